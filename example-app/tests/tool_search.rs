//! `example-app serve --tool-search` over stdio, on each protocol revision the server
//! speaks with `initialize` (2026-07-28, over HTTP: toolcall-mcp/tests/tool_search.rs): tools/list shows `whoami` and `search_tools`; a search finds
//! `get_weather` for a question about the weather, its definition shaped as that
//! revision's tools/list shapes it; the tool found is called by name.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_finds_and_the_found_tool_is_called_on_every_revision() {
    for revision in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_example-app"))
            .args(["serve", "--tool-search"])
            .env_remove("TOOLCALL_MCP_TOKEN")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut ask = async |id: u64, method: &str, params: Value| -> Value {
            let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            stdin.write_all(format!("{message}\n").as_bytes()).await.unwrap();
            loop {
                let reply: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
                if reply["id"] == id {
                    return reply;
                }
            }
        };
        let init = json!({"protocolVersion": revision, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}});
        let reply = ask(1, "initialize", init).await;
        assert_eq!(reply["result"]["protocolVersion"], revision, "{reply}");
        let listed = ask(2, "tools/list", json!({})).await;
        let names: Vec<&str> = listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["whoami", "search_tools"], "{revision}");

        let query = json!({"name": "search_tools", "arguments": {"query": "what's the weather forecast for Oslo this week?", "limit": 3}});
        let reply = ask(3, "tools/call", query).await;
        let text = reply["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{reply}"));
        let found: Value = serde_json::from_str(text).unwrap();
        let first = &found["tools"][0];
        assert_eq!(first["name"], "get_weather", "{revision}: {found}");
        assert!(found["tools"].as_array().unwrap().len() <= 3);
        let has = |key: &str| first.get(key).is_some();
        let at_least = |version: &str| revision >= version;
        assert_eq!(has("outputSchema"), at_least("2025-06-18"), "{revision}: {first}");
        assert_eq!(
            reply["result"]["structuredContent"], found,
            "{revision}: the object result, as any tool's"
        );

        let call = json!({"name": "get_weather", "arguments": {"city": "Oslo"}});
        let reply = ask(4, "tools/call", call).await;
        assert_eq!(reply["result"]["isError"], false, "{revision}: {reply}");
    }
}
