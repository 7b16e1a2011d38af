//! `example-app serve` over stdio against a line over the 16 MiB limit (#29): the line is
//! reported on stderr with the limit, answered with a JSON-RPC error carrying its id, and
//! the session goes on.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_over_the_limit_is_logged_and_answered() {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_example-app"))
        .arg("serve")
        .env_remove("TOOLCALL_MCP_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut stderr = child.stderr.take().unwrap();
    let mut send = async |message: Value| {
        stdin.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    };
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})).await;
    let reply: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(reply["id"], 1);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    let pad = "x".repeat(17 << 20);
    send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2, "pad": pad}}})).await;
    let reply: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(reply["id"], 7, "{reply}");
    assert_eq!(reply["error"]["code"], -32600);
    assert_eq!(reply["error"]["data"]["limit"], 16 << 20);
    send(json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}})).await;
    let reply: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(reply["id"], 8);
    assert_eq!(reply["result"]["content"][0]["text"], "3");
    drop(stdin);
    let mut logged = String::new();
    stderr.read_to_string(&mut logged).await.unwrap();
    assert!(logged.contains("over the limit of 16777216 bytes per line"), "{logged}");
    assert!(logged.contains("answered with a JSON-RPC error"), "{logged}");
}
