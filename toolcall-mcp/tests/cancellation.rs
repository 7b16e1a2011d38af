//! Cancellation is observable: the fixture tool `hold` keeps a guard alive in the context
//! (`Ctx::live`) until its future is dropped. A client that abandons a call, and a call
//! that hits the server's time limit, both drop it; the session goes on.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use toolcall_fixtures::Ctx;
use toolcall_fixtures::context_toolset::ALL;
use toolcall_mcp::McpServer;

mod common;
use common::{connect, live_becomes};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_call_is_dropped_on_the_server() {
    let ctx = Arc::new(Ctx { user: "ada".into(), ..Ctx::default() });
    let client = Arc::new(connect(McpServer::with_shared_context(&ALL, Arc::clone(&ctx))).await);
    let call = {
        let client = Arc::clone(&client);
        tokio::spawn(async move { client.call_tool(CallToolRequestParams::new("hold")).await })
    };
    assert!(live_becomes(&ctx, 1).await, "the held call runs on the server");
    call.abort();
    assert!(live_becomes(&ctx, 0).await, "notifications/cancelled dropped the call's future");
    let me = client.call_tool(CallToolRequestParams::new("whoami")).await.unwrap();
    assert_eq!(me.content[0].as_text().map(|t| t.text.clone()), Some("ada".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_the_time_limit_is_dropped_and_says_so() {
    let ctx = Arc::new(Ctx::default());
    let server = McpServer::with_shared_context(&ALL, Arc::clone(&ctx)).timeout(Duration::from_millis(50));
    let client = connect(server).await;
    let result = client.call_tool(CallToolRequestParams::new("hold")).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    let text = result.content[0].as_text().unwrap().text.clone();
    assert!(text.contains("`hold` did not finish within 50 ms"), "{text}");
    assert!(live_becomes(&ctx, 0).await, "the timed-out call was dropped");
    let sum = client
        .call_tool(
            CallToolRequestParams::new("add")
                .with_arguments(serde_json::json!({"a": 1, "b": 2}).as_object().cloned().unwrap()),
        )
        .await
        .unwrap();
    assert_eq!(sum.content[0].as_text().map(|t| t.text.clone()), Some("3".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tools_own_time_limit_replaces_the_servers() {
    let ctx = Arc::new(Ctx::default());
    let client = connect(McpServer::with_shared_context(&ALL, Arc::clone(&ctx))).await;
    let result = client.call_tool(CallToolRequestParams::new("hold_limited")).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    let text = result.content[0].as_text().unwrap().text.clone();
    assert!(text.contains("`hold_limited` did not finish within 80 ms (the tool's time limit)"), "{text}");
    assert!(live_becomes(&ctx, 0).await, "the timed-out call was dropped");
}

/// Over streamable HTTP, a 2026-07-28 client that goes away mid-call (its connection
/// closes with the call's response unread) cancels the call: the tool's future is dropped
/// (#44 item 4). A client of an earlier revision may come back for the answer with
/// `Last-Event-ID`, so its call goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_client_that_disconnects_cancels_its_call_from_2026_07_28() {
    use common::net::{initialize_body, post, serve};
    let ctx = Arc::new(Ctx { user: "ada".into(), ..Ctx::default() });
    let uri = serve(McpServer::with_shared_context(&ALL, Arc::clone(&ctx))).await;
    let modern = {
        let uri = uri.clone();
        tokio::spawn(async move {
            let body = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hold","_meta":{
                "io.modelcontextprotocol/protocolVersion":"2026-07-28",
                "io.modelcontextprotocol/clientCapabilities":{}}}}"#;
            let headers =
                [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", "hold")];
            post(&uri, body, &headers).await
        })
    };
    assert!(live_becomes(&ctx, 1).await, "the held call runs on the server");
    modern.abort();
    assert!(live_becomes(&ctx, 0).await, "the closed connection dropped the call's future");

    let (status, headers, _) = post(&uri, initialize_body(), &[]).await;
    assert_eq!(status, 200);
    let session = headers["mcp-session-id"].to_str().unwrap().to_owned();
    let session_headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-06-18")];
    post(&uri, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, &session_headers).await;
    let legacy = {
        let (uri, session) = (uri.clone(), session.clone());
        tokio::spawn(async move {
            let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-06-18")];
            post(&uri, r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"hold"}}"#, &headers)
                .await
        })
    };
    assert!(live_becomes(&ctx, 1).await, "the legacy call runs");
    legacy.abort();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(ctx.live.load(Ordering::SeqCst), 1, "a legacy client may resume: its call goes on");
}
