//! MCP output against the `Tool` (and `ListToolsResult`) definitions of every MCP schema
//! version in `../shared/reference/`, plus the MCP checklist items the schemas do not
//! express (§4, §8 MCP).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use conformance::corpus;
use conformance::reference::{MCP_VERSIONS, mcp_definition_schema, mcp_schema};
use conformance::rules::{common_violations, mcp_violations};
use conformance::{definitions, validate};
use serde_json::{Value, json};
use toolcall_runtime::render::Format;

/// `(version, Tool validator, ListToolsResult validator)` for each schema file present.
fn validators() -> Vec<(&'static str, jsonschema::Validator, jsonschema::Validator)> {
    MCP_VERSIONS
        .iter()
        .filter_map(|version| {
            let document = mcp_schema(version)?;
            let tool = validate::validator(&mcp_definition_schema(&document, "Tool"));
            let list = validate::validator(&mcp_definition_schema(&document, "ListToolsResult"));
            Some((*version, tool, list))
        })
        .collect()
}

/// A `tools/list` result carrying `tools`; from 2026-07-28 on a result also names its
/// `resultType` and cache hints.
fn list_tools_result(version: &str, tools: &Value) -> Value {
    if version >= "2026-07-28" {
        json!({"tools": tools, "resultType": "complete", "ttlMs": 0, "cacheScope": "public"})
    } else {
        json!({"tools": tools})
    }
}

#[test]
fn mcp_tools_validate_against_every_protocol_version() {
    let validators = validators();
    if validators.is_empty() {
        println!("mcp_tools_validate_against_every_protocol_version: SKIPPED, no MCP schema file found");
        return;
    }
    let mut examined = 0;
    let mut failures = Vec::new();
    for source in corpus::sources() {
        for strict in [false, true] {
            let value = source.render_value(Format::Mcp, strict);
            for (version, tool, list) in &validators {
                for def in definitions(&value) {
                    for error in validate::errors(tool, def) {
                        failures.push(format!("{version} {} strict={strict} {def}: {error}", source.name));
                    }
                    examined += 1;
                }
                let result = list_tools_result(version, &value);
                for error in validate::errors(list, &result) {
                    failures
                        .push(format!("{version} {} strict={strict} ListToolsResult: {error}", source.name));
                }
            }
        }
    }
    println!(
        "mcp_tools_validate_against_every_protocol_version: {examined} tool definitions examined against {} versions",
        validators.len()
    );
    assert!(examined > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_mcp_tool_validators_reject_what_the_schemas_forbid() {
    let validators = validators();
    for (version, tool, _) in &validators {
        let good = json!({"name": "t", "inputSchema": {"type": "object"}});
        assert!(validate::errors(tool, &good).is_empty(), "{version}");
        let bad: [Value; 3] = [
            json!({"inputSchema": {"type": "object"}}),
            json!({"name": "t", "inputSchema": {"type": "array"}}),
            json!({"name": "t", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": "yes"}}),
        ];
        for def in bad {
            assert!(!validate::errors(tool, &def).is_empty(), "{version} accepted {def}");
        }
    }
    println!("the_mcp_tool_validators_reject_what_the_schemas_forbid: {} versions", validators.len());
}

#[test]
fn mcp_checklist_names_input_schemas_and_refs() {
    let mut examined = 0;
    let mut failures = Vec::new();
    for source in corpus::sources() {
        for strict in [false, true] {
            let value = source.render_value(Format::Mcp, strict);
            let defs = definitions(&value);
            examined += defs.len();
            failures.extend(
                mcp_violations(defs).into_iter().map(|v| format!("{} strict={strict} {v}", source.name)),
            );
            failures.extend(
                common_violations(defs, Format::Mcp).into_iter().map(|v| format!("{} {v}", source.name)),
            );
            for def in defs {
                let extra: Vec<&String> = def
                    .as_object()
                    .into_iter()
                    .flat_map(|m| m.keys())
                    .filter(|k| {
                        ![
                            "name",
                            "title",
                            "description",
                            "inputSchema",
                            "outputSchema",
                            "annotations",
                            "icons",
                            "_meta",
                        ]
                        .contains(&k.as_str())
                    })
                    .collect();
                // provider-rules §8 MCP item 8: `title` a string, `annotations` booleans only.
                if def.get("title").is_some_and(|t| !t.is_string()) {
                    failures.push(format!("{} strict={strict}: title is not a string in {def}", source.name));
                }
                if let Some(hints) = def.get("annotations") {
                    let known =
                        ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "title"];
                    let bad = hints.as_object().is_none_or(|m| {
                        m.iter()
                            .any(|(k, v)| !known.contains(&k.as_str()) || (k != "title" && !v.is_boolean()))
                    });
                    if bad {
                        failures.push(format!("{} strict={strict}: bad annotations in {def}", source.name));
                    }
                }
                if !extra.is_empty() {
                    failures.push(format!(
                        "{} strict={strict}: unexpected MCP keys {extra:?} in {def}",
                        source.name
                    ));
                }
            }
        }
    }
    println!("mcp_checklist_names_input_schemas_and_refs: {examined} MCP definitions examined");
    assert!(examined > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `served` as a client on `version` gets it: before 2026-07-28, which takes only object
/// output schemas, without an `outputSchema` of another shape (toolcall-mcp's
/// `tests/generated_output_schemas.rs` checks through rmcp's client that each revision is
/// served exactly this).
fn served_for(version: &str, served: &[Value]) -> Vec<Value> {
    let mut served = served.to_vec();
    if version < "2026-07-28" {
        for def in &mut served {
            let object = def.as_object_mut().unwrap();
            if object.get("outputSchema").is_some_and(|schema| schema["type"] != "object") {
                object.remove("outputSchema");
            }
        }
    }
    served
}

/// What `toolcall-mcp` serves (the definitions parsed into rmcp's `Tool` once at start and
/// serialized back by rmcp, with the output schemas of every shape 2026-07-28 takes; an
/// earlier revision gets only the object ones) validates against each protocol version's
/// `Tool` schema.
#[test]
fn served_definitions_validate_against_every_protocol_version() {
    let validators = validators();
    if validators.is_empty() {
        println!(
            "served_definitions_validate_against_every_protocol_version: SKIPPED, no MCP schema file found"
        );
        return;
    }
    let server = toolcall_mcp::McpServer::new(&example_app::toolset::ALL, example_app::App::demo());
    let served: Vec<Value> = server.tools().iter().map(|t| serde_json::to_value(t).unwrap()).collect();
    assert_eq!(served.len(), example_app::toolset::ALL.len());
    let others = served.iter().filter(|def| def.get("outputSchema").is_some_and(|s| s["type"] != "object"));
    assert!(others.count() >= 4, "example-app's list, number and union results have output schemas");
    let mut failures = Vec::new();
    for (version, tool, list) in &validators {
        let served = served_for(version, &served);
        for def in &served {
            failures.extend(validate::errors(tool, def).into_iter().map(|e| format!("{version} {def}: {e}")));
        }
        let result = list_tools_result(version, &Value::Array(served.clone()));
        failures.extend(validate::errors(list, &result).into_iter().map(|e| format!("{version} list: {e}")));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
