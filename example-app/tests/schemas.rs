//! Snapshots of every schema the example app emits: each format, strict and not.
//! A changed snapshot is a changed decision about what models see; review it
//! (`cargo insta review`) before accepting it.

use example_app::toolset;
use toolcall_runtime::Format;
use toolcall_runtime::json::pretty;

fn snapshot_name(format: Format, strict: bool) -> String {
    format!("{}_{}", format.as_str(), if strict { "strict" } else { "lax" })
}

#[test]
fn every_emitted_schema_matches_its_snapshot() {
    for format in Format::ALL {
        for strict in [false, true] {
            let text = pretty(toolset::ALL.emit(format, strict));
            insta::with_settings!({
                snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/example-app"),
                prepend_module_to_snapshot => false,
                omit_expression => true,
            }, {
                insta::assert_snapshot!(snapshot_name(format, strict), text);
            });
        }
    }
}

#[test]
fn pretty_printing_keeps_the_emitted_json() {
    for format in Format::ALL {
        for strict in [false, true] {
            let text = toolset::ALL.emit(format, strict);
            let reparsed: serde_json::Value = serde_json::from_str(&pretty(text)).unwrap();
            assert_eq!(reparsed, toolset::ALL.emit_value(format, strict), "{format:?} strict={strict}");
        }
    }
}

/// Every `type` keyword under `value`, with its JSON pointer, that is an array.
fn type_arrays(value: &serde_json::Value, at: &str, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, member) in map {
                if key == "type" && member.is_array() {
                    out.push(format!("{at}/type"));
                }
                type_arrays(member, &format!("{at}/{key}"), out);
            }
        }
        serde_json::Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                type_arrays(item, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// #62 point 8: MCP clients read `type` as one name (the MCP Inspector warns of each type
/// array in `tools/list`): the lax definitions, input and output schemas, write a null
/// option as `anyOf`; only OpenAI's and MCP's strict input schemas keep type arrays.
#[test]
fn lax_definitions_have_no_type_array() {
    for format in [Format::Mcp, Format::OpenAi, Format::OpenAiResponses, Format::Anthropic] {
        let mut found = Vec::new();
        type_arrays(&toolset::ALL.emit_value(format, false), "", &mut found);
        assert!(found.is_empty(), "{format:?}: {found:?}");
    }
    let mut strict = Vec::new();
    type_arrays(&toolset::ALL.emit_value(Format::Mcp, true), "", &mut strict);
    assert!(strict.iter().all(|at| at.contains("/inputSchema/")), "{strict:?}");
    assert!(!strict.is_empty(), "MCP strict's optional parameters are nullable type arrays");
}
