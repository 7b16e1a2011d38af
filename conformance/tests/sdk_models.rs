//! The providers' own SDK models accept what toolcall emits: OpenAI definitions
//! deserialize into async-openai's chat-completion tool types, MCP definitions into the
//! official Rust SDK's (rmcp) `Tool` and `ListToolsResult`, and serializing them back
//! gives the same JSON (compared as `serde_json::Value`, so key order does not matter).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use async_openai::types::chat::{ChatCompletionTool, ChatCompletionTools, FunctionObject};
use conformance::corpus::{self, variants};
use conformance::definitions;
use rmcp::model::{ListToolsResult, Tool as McpTool};
use serde_json::{Value, json};
use toolcall_runtime::Format;

fn report(what: &str, examined: usize, failures: &[String]) {
    println!("{what}: {examined} definitions examined");
    assert!(examined > 0, "{what}: nothing examined");
    assert!(failures.is_empty(), "{what}: {} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn openai_definitions_round_trip_through_async_openai() {
    let (mut examined, mut failures) = (0, Vec::new());
    for source in corpus::sources() {
        for strict in [false, true] {
            let value = source.render_value(Format::OpenAi, strict);
            for def in definitions(&value) {
                examined += 1;
                let tool: ChatCompletionTools = match serde_json::from_value(def.clone()) {
                    Ok(tool) => tool,
                    Err(e) => {
                        failures.push(format!(
                            "{} strict={strict}: does not deserialize ({e}): {def}",
                            source.name
                        ));
                        continue;
                    }
                };
                let ChatCompletionTools::Function(ChatCompletionTool { function }) = &tool else {
                    failures.push(format!("{} strict={strict}: not a function tool: {def}", source.name));
                    continue;
                };
                if function.strict != strict.then_some(true) || function.parameters.is_none() {
                    failures.push(format!(
                        "{} strict={strict}: strict/parameters lost: {function:?}",
                        source.name
                    ));
                }
                let back = serde_json::to_value(&tool).expect("serializes");
                if &back != def {
                    failures.push(format!(
                        "{} strict={strict}: round trip changed\n  {def}\n  {back}",
                        source.name
                    ));
                }
            }
        }
    }
    report("openai_definitions_round_trip_through_async_openai", examined, &failures);
}

#[test]
fn async_openai_rejects_a_definition_without_a_name() {
    let nameless = json!({"type": "function", "function": {"parameters": {"type": "object"}}});
    assert!(serde_json::from_value::<ChatCompletionTools>(nameless).is_err());
    let function: FunctionObject =
        serde_json::from_value(json!({"name": "f", "parameters": {"type": "object"}})).unwrap();
    assert_eq!(function.strict, None);
}

#[test]
fn mcp_definitions_round_trip_through_rmcp() {
    let (mut examined, mut failures) = (0, Vec::new());
    for source in corpus::sources() {
        for strict in [false, true] {
            let value = source.render_value(Format::Mcp, strict);
            for def in definitions(&value) {
                examined += 1;
                match serde_json::from_value::<McpTool>(def.clone()) {
                    Ok(tool) => {
                        if tool.input_schema.get("type") != Some(&json!("object")) {
                            failures
                                .push(format!("{}: rmcp sees no object input schema: {def}", source.name));
                        }
                        let back = serde_json::to_value(&tool).expect("serializes");
                        if &back != def {
                            failures.push(format!(
                                "{} strict={strict}: round trip changed\n  {def}\n  {back}",
                                source.name
                            ));
                        }
                    }
                    Err(e) => failures
                        .push(format!("{} strict={strict}: does not deserialize ({e}): {def}", source.name)),
                }
            }
            let list = json!({"tools": value});
            match serde_json::from_value::<ListToolsResult>(list.clone()) {
                Ok(result) => {
                    if result.tools.len() != definitions(&value).len() {
                        failures.push(format!("{}: ListToolsResult lost tools", source.name));
                    }
                    let back = serde_json::to_value(&result).expect("serializes");
                    if back.get("tools") != Some(&value) {
                        failures
                            .push(format!("{}: ListToolsResult round trip changed the tools", source.name));
                    }
                }
                Err(e) => failures.push(format!(
                    "{} strict={strict}: ListToolsResult does not deserialize: {e}",
                    source.name
                )),
            }
        }
    }
    report("mcp_definitions_round_trip_through_rmcp", examined, &failures);
}

#[test]
fn rmcp_rejects_a_tool_without_an_input_schema() {
    assert!(serde_json::from_value::<McpTool>(json!({"name": "t"})).is_err());
    let tool: McpTool =
        serde_json::from_value(json!({"name": "t", "inputSchema": {"type": "object"}})).unwrap();
    assert_eq!(tool.name, "t");
}

#[test]
fn every_format_parses_as_a_json_array_of_objects() {
    let mut examined = 0;
    for source in corpus::sources() {
        for (format, strict) in variants() {
            let value: Value = source.render_value(format, strict);
            assert!(definitions(&value).iter().all(Value::is_object), "{} {}", source.name, format.as_str());
            examined += definitions(&value).len();
        }
    }
    println!("every_format_parses_as_a_json_array_of_objects: {examined} definitions examined");
    assert!(examined > 0);
}
