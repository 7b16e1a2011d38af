//! What a client receives is what the author wrote, byte for byte (#42 item 1): the raw
//! `tools/list` answer, over stdio in every protocol revision and over HTTP in both
//! lifecycles, holds each tool's definition as `emit(Format::Mcp, false)` gives it
//! (parameters and nested properties in declaration order), less the fields a revision
//! does not define and, from 2026-07-28, with the output schemas `emit` leaves out (of
//! results that are not objects) as the build wrote them; a result's text and
//! `structuredContent` keep its struct's field order.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::net::{initialize_body, post, serve};
use example_app::{App, toolset};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolcall_mcp::McpServer;
use toolcall_runtime::Format;

/// Each tool's definition as `emit` gives it, compact, less the fields `version` does
/// not define (`icons` before 2025-11-25; `title`, `outputSchema`, `_meta` before
/// 2025-06-18; `annotations` before 2025-03-26). From 2026-07-28, which takes an
/// `outputSchema` of any shape, a tool whose result is not an object (`emit` writes only
/// object schemas, which every revision takes) has its `ToolInfo::output` besides, where
/// MCP's `Tool` writes it: after `inputSchema`.
fn emitted_for(version: &str) -> Vec<String> {
    let emitted: Vec<Value> = serde_json::from_str(toolset::ALL.emit(Format::Mcp, false)).unwrap();
    emitted
        .into_iter()
        .zip(toolset::ALL.describe())
        .map(|(mut tool, info)| {
            let object = tool.as_object_mut().unwrap();
            if version >= "2026-07-28"
                && !object.contains_key("outputSchema")
                && let Some(schema) = info.output_value()
            {
                let at = object.keys().position(|key| key == "inputSchema").unwrap() + 1;
                object.shift_insert(at, "outputSchema".to_owned(), schema);
            }
            if version < "2025-11-25" {
                object.shift_remove("icons");
            }
            if version < "2025-06-18" {
                object.shift_remove("title");
                object.shift_remove("outputSchema");
                object.shift_remove("_meta");
            }
            if version < "2025-03-26" {
                object.shift_remove("annotations");
            }
            tool.to_string()
        })
        .collect()
}

/// The emitted text, re-serialized from the snapshot's `Value`, is the emitted text:
/// what the checks below compare against is the author's order, not a sorted copy.
#[test]
fn the_comparison_keeps_the_emitted_order() {
    let text = toolset::ALL.emit(Format::Mcp, false);
    let parsed: Value = serde_json::from_str(text).unwrap();
    assert_eq!(parsed.to_string(), text, "a parsed and re-written definition is the emitted text");
    let first = &emitted_for("2026-07-28")[0];
    let (user_id, amount) = (first.find("\"user_id\"").unwrap(), first.find("\"amount\"").unwrap());
    assert!(user_id < amount, "transfer(user_id, amount, memo) keeps its order: {first}");
}

/// A server on one end of two pipes; every line it writes is recorded and forwarded to
/// the client's end.
async fn tapped_stdio() -> (tokio::io::DuplexStream, tokio::sync::mpsc::UnboundedReceiver<String>) {
    let server = McpServer::new(&toolset::ALL, App::demo()).page_size(1000);
    let (client_side, server_in) = tokio::io::duplex(1 << 20);
    let (server_in_read, mut server_in_write) = tokio::io::split(server_in);
    let (server_out, tap) = tokio::io::duplex(1 << 20);
    let (lines_tx, lines) = tokio::sync::mpsc::unbounded_channel();
    let (to_server_read, to_client_write) = (server_in_read, server_out);
    tokio::spawn(server.serve_lines(to_server_read, to_client_write));
    // Forward the server's lines to the client (through `server_in_write`, the client's
    // read side), recording each.
    tokio::spawn(async move {
        let mut reader = BufReader::new(tap).lines();
        while let Ok(Some(line)) = reader.next_line().await {
            let _ = lines_tx.send(line.clone());
            if server_in_write.write_all(format!("{line}\n").as_bytes()).await.is_err() {
                break;
            }
        }
    });
    (client_side, lines)
}

#[tokio::test]
async fn stdio_serves_the_emitted_definitions_byte_for_byte_in_every_revision() {
    for version in [
        ProtocolVersion::V_2024_11_05,
        ProtocolVersion::V_2025_03_26,
        ProtocolVersion::V_2025_06_18,
        ProtocolVersion::V_2025_11_25,
        ProtocolVersion::V_2026_07_28,
    ] {
        let (client_side, mut lines) = tapped_stdio().await;
        let info = ClientConfig::default().with_protocol_version(version.clone());
        let client = if version == ProtocolVersion::V_2026_07_28 {
            let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![version.clone()] };
            info.serve_with_lifecycle(client_side, lifecycle).await.expect("discovers")
        } else {
            info.serve(client_side).await.expect("initializes")
        };
        let listed = client.list_tools(None).await.expect("tools/list");
        assert_eq!(listed.tools.len(), toolset::ALL.len());
        let mut answer = None;
        while let Ok(Some(line)) = tokio::time::timeout(Duration::from_secs(5), lines.recv()).await {
            if line.contains("\"tools\":[") {
                answer = Some(line);
                break;
            }
        }
        let answer = answer.expect("the tools/list answer passed the tap");
        for tool in emitted_for(version.as_str()) {
            assert!(answer.contains(&tool), "{version}: served differs from emitted:\n{tool}\nin\n{answer}");
        }
        client.cancel().await.ok();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_serves_the_emitted_definitions_byte_for_byte() {
    let uri = serve(McpServer::new(&toolset::ALL, App::demo()).page_size(1000)).await;
    let (status, headers, _) = post(&uri, initialize_body(), &[]).await;
    assert_eq!(status, 200);
    let session = headers["mcp-session-id"].to_str().unwrap().to_owned();
    let session_headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-06-18")];
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    post(&uri, initialized, &session_headers).await;
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let (status, _, body) = post(&uri, list, &session_headers).await;
    assert_eq!(status, 200, "{body}");
    for tool in emitted_for("2025-06-18") {
        assert!(body.contains(&tool), "served differs from emitted:\n{tool}\nin\n{body}");
    }
}

#[tokio::test]
async fn results_keep_their_structs_field_order() {
    let (client_side, _lines) = tapped_stdio().await;
    let client = ().serve(client_side).await.expect("initializes");
    let args = serde_json::json!({"user_id": "42", "amount": "1.50", "memo": "lunch"});
    let params = CallToolRequestParams::new("transfer").with_arguments(args.as_object().cloned().unwrap());
    let result = client.call_tool(params).await.expect("tools/call");
    let text = result.content[0].as_text().expect("a text block").text.clone();
    assert!(text.starts_with("{\"user_id\":"), "the struct's first field comes first: {text}");
    let structured = result.structured_content.expect("structured content").to_string();
    assert_eq!(structured, text, "structuredContent in the same order as the text");
    client.cancel().await.ok();
}
