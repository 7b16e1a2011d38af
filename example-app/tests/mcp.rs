//! `example-app serve` as a child process: rmcp's own client over stdio (initialize, list,
//! calls), and raw JSON-RPC lines for what a well-behaved client never sends (a line
//! that is not JSON, bytes that are not UTF-8, a 4 MiB line, non-object arguments, an
//! unknown method): each gets an error or is dropped, and the session goes on. stdout
//! carries protocol messages only.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{ChildStdin, ChildStdout};

fn serve_command() -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_example-app"));
    command.arg("serve");
    command
}

/// `example-app serve` with piped stdin and stdout (as lines).
fn spawn_server() -> (tokio::process::Child, ChildStdin, Lines<BufReader<ChildStdout>>) {
    let mut child = serve_command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    (child, stdin, lines)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_over_stdio() {
    let transport = TokioChildProcess::builder(serve_command()).stderr(Stdio::null()).spawn().unwrap().0;
    let client = ().serve(transport).await.expect("initialize");
    let info = client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().map(|i| i.name.as_str()), Some("example-app"));
    let tools = client.list_all_tools().await.unwrap();
    let listed: Vec<Value> = tools.iter().map(|t| serde_json::to_value(t).unwrap()).collect();
    let emitted: Vec<Value> =
        serde_json::from_str(example_app::toolset::ALL.emit(toolcall_runtime::Format::Mcp, false)).unwrap();
    assert_eq!(listed, emitted);
    let args = |v: Value| v.as_object().cloned().unwrap_or_default();
    let sum = client
        .call_tool(CallToolRequestParams::new("add").with_arguments(args(json!({"a": 2, "b": 3}))))
        .await;
    assert_eq!(sum.unwrap().content[0].as_text().map(|t| t.text.clone()), Some("5".into()));
    let notes = client.call_tool(CallToolRequestParams::new("list_notes")).await.unwrap();
    assert_eq!(notes.is_error, Some(false));
    let text = notes.content[0].as_text().unwrap().text.clone();
    assert!(text.contains("oat milk") && !text.contains("launch codes"), "{text}");
    let bad = client
        .call_tool(CallToolRequestParams::new("divide").with_arguments(args(json!({"a": 1, "b": 0}))))
        .await;
    assert_eq!(bad.unwrap().is_error, Some(true));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_messages_get_errors_and_the_session_goes_on() {
    let (mut child, mut stdin, mut lines) = spawn_server();
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        .to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        "{this is not json".to_owned(),
        "\u{feff}\u{0}garbage".to_owned(),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": [1, 2]}})
            .to_string(),
        json!({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"}).to_string(),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}})
            .to_string(),
    ];
    for (i, message) in messages.iter().enumerate() {
        stdin.write_all(format!("{message}\n").as_bytes()).await.unwrap();
        if i == 3 {
            // Bytes that are not UTF-8, and a 4 MiB line.
            stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"\xff\xfe\"}\n").await.unwrap();
            stdin.write_all(&vec![b'x'; 4 << 20]).await.unwrap();
            stdin.write_all(b"\n").await.unwrap();
        }
    }
    stdin.flush().await.unwrap();
    let mut answers = std::collections::BTreeMap::new();
    while answers.len() < 4 {
        let line = tokio::time::timeout(std::time::Duration::from_secs(20), lines.next_line())
            .await
            .expect("the server answers")
            .unwrap()
            .expect("stdout stays open");
        let message: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout is JSON-RPC only: {e}: {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
        answers.insert(message["id"].as_i64().unwrap(), message);
    }
    assert!(answers[&1]["result"]["capabilities"]["tools"].is_object());
    assert!(answers[&2]["error"]["code"].is_i64(), "non-object arguments are an error: {}", answers[&2]);
    assert!(answers[&3]["error"]["code"].is_i64(), "{}", answers[&3]);
    assert_eq!(answers[&4]["result"]["content"][0]["text"], "3", "the session goes on: {}", answers[&4]);
    drop(stdin);
    let status =
        tokio::time::timeout(std::time::Duration::from_secs(20), child.wait()).await.unwrap().unwrap();
    assert!(status.success(), "stdin closed: the server exits cleanly ({status})");
}

/// `tools/list` for a client of protocol `version`, over raw lines.
async fn list_tools_as(version: &str) -> Vec<Value> {
    let (_child, mut stdin, mut lines) = spawn_server();
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}),
    ];
    for message in messages {
        stdin.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    }
    stdin.flush().await.unwrap();
    loop {
        let line = tokio::time::timeout(std::time::Duration::from_secs(20), lines.next_line())
            .await
            .expect("the server answers")
            .unwrap()
            .expect("stdout stays open");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 2 {
            return message["result"]["tools"].as_array().unwrap().clone();
        }
    }
}

/// `TOOLS` metadata over MCP: the renamed destructive tool carries its title and
/// annotations for clients whose protocol defines them, and neither for older ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn titles_and_annotations_follow_the_protocol_version() {
    let find = |tools: &[Value], name: &str| tools.iter().find(|t| t["name"] == name).cloned().unwrap();
    let current = list_tools_as("2025-06-18").await;
    let remove = find(&current, "remove_note");
    assert_eq!(remove["title"], "Remove a note");
    assert_eq!(remove["annotations"]["destructiveHint"], true);
    assert_eq!(remove["annotations"]["idempotentHint"], true);
    assert!(!current.iter().any(|t| t["name"] == "delete_note"), "only the wire name is served");
    let march = list_tools_as("2025-03-26").await;
    let remove = find(&march, "remove_note");
    assert!(remove.get("title").is_none() && remove["annotations"]["destructiveHint"] == true, "{remove}");
    let old = list_tools_as("2024-11-05").await;
    let remove = find(&old, "remove_note");
    assert!(remove.get("title").is_none() && remove.get("annotations").is_none(), "{remove}");
}
