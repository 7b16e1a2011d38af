//! Output schemas of any shape from a generated toolset (#44 item 4): example-app's tools
//! whose results are not objects (`list_notes` returns `Vec<Note>`, `add` an `i64`,
//! `divide` an `f64`, `restock` a `u64`) carry their output schema in
//! `ToolInfo::output`; `emit(Format::Mcp)` leaves those out (its definitions are valid in
//! every revision), and the server adds them for a client on 2026-07-28, which gets each
//! such result as `structuredContent` too. A client on an earlier revision keeps today's
//! rule: object schemas only (from 2025-06-18), `structuredContent` only for objects.
//!
//! Clients: rmcp's, over the stdio transport (`serve_lines`) in each revision, and over
//! streamable HTTP in both lifecycles.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::net::{Client, Era, serve};
use example_app::{App, toolset};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion, Tool};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use serde_json::{Value, json};
use toolcall_mcp::McpServer;
use toolcall_runtime::{Format, ToolInfo};

/// example-app's tools whose results are not objects, with what a call with these
/// arguments returns, as `Value`s compare (demo data: Ada's two notes).
fn calls() -> Vec<(&'static str, Value)> {
    vec![
        ("list_notes", json!({})),
        ("add", json!({"a": 2, "b": 3})),
        ("divide", json!({"a": 1, "b": 4})),
        ("restock", json!({"counts": {"apples": 2, "pears": 3}})),
    ]
}

fn info(name: &str) -> &'static ToolInfo {
    toolset::ALL.describe().iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no tool {name}"))
}

/// The output schema `name` has in its row, parsed.
fn schema_of(name: &str) -> Option<Value> {
    info(name).output_value()
}

fn is_object_schema(schema: &Value) -> bool {
    schema["type"] == "object"
}

/// rmcp's client, on protocol `version`, connected to example-app's toolset over the
/// stdio transport.
async fn connect(version: &ProtocolVersion) -> RunningService<RoleClient, ClientConfig> {
    let (client_side, server_side) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(server_side);
    let server = McpServer::new(&toolset::ALL, App::demo()).page_size(1000);
    tokio::spawn(server.serve_lines(read, write));
    let config = ClientConfig::default().with_protocol_version(version.clone());
    if *version == ProtocolVersion::V_2026_07_28 {
        let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![version.clone()] };
        config.serve_with_lifecycle(client_side, lifecycle).await.expect("discovers")
    } else {
        config.serve(client_side).await.expect("initializes")
    }
}

/// A successful call of `name` with `args`: its text block and its `structuredContent`.
async fn call<S: rmcp::service::Service<RoleClient>>(
    client: &RunningService<RoleClient, S>,
    name: &str,
    args: &Value,
) -> (String, Option<Value>) {
    let params =
        CallToolRequestParams::new(name.to_owned()).with_arguments(args.as_object().cloned().unwrap());
    let result = client.call_tool(params).await.expect("tools/call");
    assert_eq!(result.is_error, Some(false), "{name}: {result:?}");
    let text = result.content[0].as_text().expect("a text block").text.clone();
    (text, result.structured_content)
}

fn listed_schema(tools: &[Tool], name: &str) -> Option<Value> {
    let tool = tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("{name} is listed"));
    tool.output_schema.as_deref().cloned().map(Value::Object)
}

/// The generated rows hold the schemas of non-object results; the emitted MCP text does
/// not (it is what every revision takes), and the other formats have no output schema.
#[test]
fn rows_hold_every_shape_and_emit_only_object_schemas() {
    let names = schema_of("list_notes").expect("Vec<Note> has an output schema");
    assert_eq!(names["type"], "array");
    assert_eq!(names["items"]["type"], "object", "{names}");
    assert_eq!(schema_of("add"), Some(json!({"type": "integer"})));
    assert_eq!(schema_of("restock"), Some(json!({"type": "integer", "minimum": 0})));
    assert_eq!(schema_of("export_notes"), None, "content blocks claim no output schema");
    let emitted: Vec<Value> = serde_json::from_str(toolset::ALL.emit(Format::Mcp, false)).unwrap();
    let mut others = 0;
    for (tool, info) in emitted.iter().zip(toolset::ALL.describe()) {
        assert_eq!(tool["name"], info.name);
        match info.output_value() {
            Some(schema) if is_object_schema(&schema) => {
                assert_eq!(tool["outputSchema"], schema, "{}", info.name)
            }
            Some(_) => {
                others += 1;
                assert!(tool.get("outputSchema").is_none(), "{}: {tool}", info.name);
            }
            None => assert!(tool.get("outputSchema").is_none(), "{}", info.name),
        }
    }
    assert!(others >= calls().len(), "{others} tools with other shapes");
    for format in [Format::OpenAi, Format::OpenAiResponses, Format::Anthropic, Format::Gemini] {
        for strict in [false, true] {
            assert!(!toolset::ALL.emit(format, strict).contains("outputSchema"), "{format:?}");
        }
    }
}

#[tokio::test]
async fn a_2026_07_28_client_gets_every_generated_output_schema_as_the_row_holds_it() {
    let client = connect(&ProtocolVersion::V_2026_07_28).await;
    let listed = client.list_tools(None).await.expect("tools/list").tools;
    assert_eq!(listed.len(), toolset::ALL.len());
    for info in toolset::ALL.describe() {
        assert_eq!(listed_schema(&listed, info.name), info.output_value(), "{}", info.name);
    }
    // Byte for byte: the schema the build wrote, properties in declaration order.
    let notes = listed.iter().find(|t| t.name == "list_notes").unwrap();
    assert_eq!(
        serde_json::to_string(notes.output_schema.as_deref().unwrap()).unwrap(),
        info("list_notes").output.unwrap()
    );
    client.cancel().await.ok();
}

#[tokio::test]
async fn earlier_revisions_list_only_the_object_schemas() {
    for version in [ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25] {
        let client = connect(&version).await;
        let listed = client.list_tools(None).await.expect("tools/list").tools;
        for info in toolset::ALL.describe() {
            let expected = info.output_value().filter(is_object_schema);
            assert_eq!(listed_schema(&listed, info.name), expected, "{version}: {}", info.name);
        }
        assert!(
            listed_schema(&listed, "get_weather").is_some(),
            "{version}: a struct result keeps its schema"
        );
        client.cancel().await.ok();
    }
    let client = connect(&ProtocolVersion::V_2025_03_26).await;
    let listed = client.list_tools(None).await.expect("tools/list").tools;
    assert!(listed.iter().all(|t| t.output_schema.is_none()), "2025-03-26 has no output schemas");
    client.cancel().await.ok();
}

#[tokio::test]
async fn results_of_other_shapes_are_structured_for_2026_07_28_only() {
    for version in [
        ProtocolVersion::V_2025_03_26,
        ProtocolVersion::V_2025_06_18,
        ProtocolVersion::V_2025_11_25,
        ProtocolVersion::V_2026_07_28,
    ] {
        let client = connect(&version).await;
        let newest = version == ProtocolVersion::V_2026_07_28;
        for (name, args) in calls() {
            let (text, structured) = call(&client, name, &args).await;
            let value: Value = serde_json::from_str(&text).unwrap();
            assert!(!value.is_object(), "{name}: {value}");
            assert_eq!(structured, newest.then_some(value.clone()), "{version} {name}");
        }
        let (_, notes) = call(&client, "list_notes", &json!({})).await;
        if newest {
            let notes = notes.expect("list_notes is structured");
            assert_eq!(notes.as_array().map(Vec::len), Some(2), "Ada's two notes: {notes}");
            assert!(notes[0]["text"].is_string(), "{notes}");
        }
        // A struct result is structured in every revision, as before.
        let (_, weather) = call(&client, "get_weather", &json!({"city": "Oslo"})).await;
        assert!(weather.is_some_and(|w| w["city"] == "Oslo"), "{version}");
        client.cancel().await.ok();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_each_lifecycle_gets_its_revisions_shapes() {
    let uri = serve(McpServer::new(&toolset::ALL, App::demo()).page_size(1000)).await;
    for era in [Era::Legacy, Era::Stateless] {
        let newest = era == Era::Stateless;
        let client = Client::new(&uri, era).connect().await.expect("connects");
        let listed = client.list_tools(None).await.expect("tools/list").tools;
        let expected = schema_of("list_notes").filter(|_| newest);
        assert_eq!(listed_schema(&listed, "list_notes"), expected, "{era:?}");
        for (name, args) in calls() {
            let (text, structured) = call(&client, name, &args).await;
            let value: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(structured, newest.then_some(value), "{era:?} {name}");
        }
        client.cancel().await.ok();
    }
}
