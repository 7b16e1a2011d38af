//! The MCP server against rmcp's own client over an in-process duplex pipe, serving
//! example-app's toolset with its context: initialize, list (paged), calls that succeed,
//! fail with each error kind, time out or are cancelled, 100 concurrent calls, and a
//! session that keeps going after each.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use example_app::App;
use example_app::app::Store;
use example_app::models::{Role, User};
use rmcp::ServiceError;
use rmcp::model::{CallToolRequestParams, CallToolResult, ErrorCode};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};
use toolcall_mcp::McpServer;

mod common;
use common::{connect, connect_as};

fn app(latency: Duration) -> App {
    let store = Arc::new(Store::seeded(latency));
    App::for_user(&store, User { id: 1, name: "Ada".into(), role: Role::Editor })
}

fn args(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

async fn call(client: &RunningService<RoleClient, ()>, name: &str, value: Value) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args(value)))
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn texts(result: &CallToolResult) -> Vec<String> {
    result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_and_list_every_tool_across_pages() {
    let server = McpServer::new(&example_app::toolset::ALL, app(Duration::ZERO))
        .name("example")
        .version("9.9.9")
        .instructions("Notes and weather.")
        .page_size(4);
    let expected: Vec<Value> =
        serde_json::from_str(example_app::toolset::ALL.emit(toolcall_runtime::Format::Mcp, false)).unwrap();
    let client = connect(server).await;
    let info = client.peer_info().expect("server info");
    let implementation = info.server_info.clone().expect("server info");
    assert_eq!((implementation.name.as_str(), implementation.version.as_str()), ("example", "9.9.9"));
    assert_eq!(info.instructions.as_deref(), Some("Notes and weather."));
    assert!(info.capabilities.tools.is_some());
    assert!(info.capabilities.resources.is_none() && info.capabilities.prompts.is_none());
    // One page holds at most 4 tools; the client follows the cursors to the end.
    let first = client.list_tools(None).await.unwrap();
    assert_eq!(first.tools.len(), 4);
    assert_eq!(first.next_cursor.as_deref(), Some("4"));
    let all = client.list_all_tools().await.unwrap();
    let listed: Vec<Value> = all.iter().map(|t| serde_json::to_value(t).unwrap()).collect();
    assert_eq!(listed, expected, "the listed definitions are the toolset's");
    let bad = client
        .list_tools(Some(rmcp::model::PaginatedRequestParams::default().with_cursor(Some("x".into()))))
        .await;
    assert!(bad.is_err(), "{bad:?}");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_succeed_fail_and_the_session_goes_on() {
    let client = connect(McpServer::new(&example_app::toolset::ALL, app(Duration::ZERO))).await;
    // Success: the JSON text, and structured content for a tool with an output schema.
    let weather = call(&client, "get_weather", json!({"city": "Oslo"})).await;
    assert_eq!(weather.is_error, Some(false));
    assert_eq!(texts(&weather), [r#"{"city":"Oslo","days":3,"temp":21.5}"#]);
    assert_eq!(weather.structured_content, Some(json!({"city": "Oslo", "days": 3, "temp": 21.5})));
    let sum = call(&client, "add", json!({"a": 2, "b": 40})).await;
    assert_eq!((texts(&sum), sum.structured_content), (vec!["42".to_owned()], None));
    // Async tools with the server's context: Ada's notes only.
    let notes = call(&client, "list_notes", json!({})).await;
    let notes: Value = serde_json::from_str(&texts(&notes)[0]).unwrap();
    assert!(notes.as_array().unwrap().iter().all(|n| n["owner"] == 1), "{notes}");
    // Every error kind is an isError result with the message and the JSON object.
    for (name, arguments, kind, words) in [
        ("get_weather", json!({}), "missing_argument", "city: missing required argument"),
        (
            "get_weather",
            json!({"city": "Oslo", "days": "5"}),
            "invalid_argument",
            r#"days: expected an integer, got "5""#,
        ),
        ("get_weather", json!({"city": "Oslo", "c": 1}), "unknown_arguments", r#"unknown argument "c""#),
        ("divide", json!({"a": 1, "b": 0}), "failed", "tool failed: b must not be zero"),
        ("explode", json!({}), "panicked", "tool panicked"),
    ] {
        let result = call(&client, name, arguments).await;
        assert_eq!(result.is_error, Some(true), "{name}");
        let texts = texts(&result);
        // Said once: the message in one block; the JSON object for programs beside it.
        assert_eq!(texts.len(), 1, "{name}: {texts:?}");
        assert!(texts[0].contains(words), "{name}: {texts:?}");
        assert_eq!(result.structured_content, None, "{name}: an error claims no structured content");
        let json = toolcall_mcp::error_json(&result).cloned().unwrap_or_default();
        assert_eq!(json["error"], kind, "{name}");
    }
    // An unknown tool is a protocol error (invalid params), and the session goes on.
    let unknown = client.call_tool(CallToolRequestParams::new("nope")).await;
    match unknown {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
            assert!(error.message.contains("unknown tool \"nope\""), "{}", error.message);
        }
        other => panic!("expected an invalid-params error, got {other:?}"),
    }
    assert_eq!(texts(&call(&client, "add", json!({"a": 1, "b": 1})).await), ["2"]);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_call_hits_the_time_limit_and_the_next_call_works() {
    let server = McpServer::new(&example_app::toolset::ALL, app(Duration::from_secs(5)))
        .timeout(Duration::from_millis(100));
    let client = connect(server).await;
    let started = std::time::Instant::now();
    let slow = call(&client, "list_notes", json!({})).await;
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    assert_eq!(slow.is_error, Some(true));
    assert!(texts(&slow)[0].contains("did not finish within 100 ms"), "{:?}", texts(&slow));
    assert_eq!(texts(&call(&client, "whoami", json!({})).await), [r#"{"id":1,"name":"Ada"}"#]);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_call_is_cancelled_and_the_session_goes_on() {
    let client = connect(McpServer::new(&example_app::toolset::ALL, app(Duration::from_secs(30)))).await;
    let abandoned = tokio::time::timeout(
        Duration::from_millis(100),
        client.call_tool(CallToolRequestParams::new("list_notes")),
    )
    .await;
    assert!(abandoned.is_err(), "the 30 s call cannot have finished");
    assert_eq!(texts(&call(&client, "add", json!({"a": 20, "b": 22})).await), ["42"]);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_concurrent_calls_on_one_session_are_all_answered() {
    let client =
        Arc::new(connect(McpServer::new(&example_app::toolset::ALL, app(Duration::from_millis(20)))).await);
    let calls: Vec<_> = (0..100i64)
        .map(|i| {
            let client = Arc::clone(&client);
            tokio::spawn(async move {
                let (name, value) = if i % 2 == 0 {
                    ("add", json!({"a": i, "b": 1}))
                } else {
                    ("list_notes", json!({"limit": 1}))
                };
                (i, call(&client, name, value).await)
            })
        })
        .collect();
    for task in calls {
        let (i, result) = task.await.unwrap();
        assert_eq!(result.is_error, Some(false), "{i}");
        if i % 2 == 0 {
            assert_eq!(texts(&result), [(i + 1).to_string()], "{i}");
        }
    }
}

/// Each protocol version gets only the fields it defines: `outputSchema` exists from
/// 2025-06-18 on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_negotiated_protocol_version_decides_the_fields() {
    use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProtocolVersion};
    for (version, with_output) in [
        (ProtocolVersion::V_2025_03_26, false),
        (ProtocolVersion::V_2025_06_18, true),
        (ProtocolVersion::V_2025_11_25, true),
    ] {
        let server = McpServer::new(&example_app::toolset::ALL, app(Duration::ZERO));
        let config = ClientConfig::new(ClientCapabilities::default(), Implementation::new("probe", "0"))
            .with_protocol_version(version.clone());
        let client = connect_as(server, config).await;
        assert_eq!(client.peer_info().map(|i| i.protocol_version.clone()), Some(version.clone()));
        let tools = client.list_all_tools().await.unwrap();
        let weather = tools.iter().find(|t| t.name == "get_weather").unwrap();
        assert_eq!(weather.output_schema.is_some(), with_output, "{version:?}");
        assert!(tools.iter().all(|t| t.output_schema.is_none() || with_output), "{version:?}");
        client.cancel().await.unwrap();
    }
}

/// A 1,000-tool set, built the way generated code builds one, lists completely across
/// pages of 100.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_tools_list_completely_across_pages() {
    use toolcall_runtime::ir::{Param, Tool, Type};
    use toolcall_runtime::{Emitted, ToolInfo, Toolset};
    let tools: Vec<Tool> = (0..1000)
        .map(|i| {
            Tool::new(format!("tool_{i:04}"))
                .description("One of many.")
                .param(Param::new("x", Type::integer()))
        })
        .collect();
    let infos: Vec<ToolInfo> = tools.iter().map(|t| ToolInfo::leaked("many", t)).collect();
    let toolset: &'static Toolset<()> = Box::leak(Box::new(Toolset::new(
        Box::leak(infos.into_boxed_slice()),
        Box::leak(Box::new(Emitted::new())),
        |_, _, _| None,
    )));

    let client = connect(McpServer::new(toolset, ())).await;
    let mut pages = 0;
    let mut cursor = None;
    let mut names = Vec::new();
    loop {
        let params = rmcp::model::PaginatedRequestParams::default().with_cursor(cursor.clone());
        let page = client.list_tools(Some(params)).await.unwrap();
        pages += 1;
        assert!(page.tools.len() <= 100);
        names.extend(page.tools.iter().map(|t| t.name.to_string()));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!((pages, names.len()), (10, 1000));
    assert_eq!(names, tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>());
    client.cancel().await.unwrap();
}
