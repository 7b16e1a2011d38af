//! The MCP server over streamable HTTP on 127.0.0.1 with an OS-assigned port, against
//! rmcp's own streamable-HTTP client: initialize, list, calls and concurrent calls.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use example_app::App;
use example_app::app::Store;
use example_app::models::{Role, User};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};
use toolcall_mcp::McpServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_on_a_loopback_port() {
    let store = Arc::new(Store::seeded(Duration::from_millis(10)));
    let app = App::for_user(&store, User { id: 2, name: "Grace".into(), role: Role::Editor });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = McpServer::new(&example_app::toolset::ALL, app).name("over-http");
    let serving = tokio::spawn(server.serve_http_on(listener));

    let transport = StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    let client = Arc::new(().serve(transport).await.expect("initialize over HTTP"));
    let name = client.peer_info().and_then(|i| i.server_info.clone()).map(|i| i.name);
    assert_eq!(name.as_deref(), Some("over-http"));
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), example_app::toolset::ALL.len());
    let args = |v: Value| v.as_object().cloned().unwrap_or_default();
    let calls: Vec<_> = (0..20i64)
        .map(|i| {
            let client = Arc::clone(&client);
            tokio::spawn(async move {
                client
                    .call_tool(
                        CallToolRequestParams::new("add").with_arguments(args(json!({"a": i, "b": i}))),
                    )
                    .await
            })
        })
        .collect();
    for (i, call) in (0..20i64).zip(calls) {
        let result = call.await.unwrap().unwrap();
        assert_eq!(result.content[0].as_text().map(|t| t.text.clone()), Some((2 * i).to_string()));
    }
    // The context is the server's: Grace's notes, whatever the model sends.
    let notes = client.call_tool(CallToolRequestParams::new("list_notes")).await.unwrap();
    let text = notes.content[0].as_text().unwrap().text.clone();
    assert!(text.contains("launch codes") && !text.contains("oat milk"), "{text}");
    let failed = client
        .call_tool(CallToolRequestParams::new("get_weather").with_arguments(args(json!({"days": 1}))))
        .await
        .unwrap();
    assert_eq!(failed.is_error, Some(true));
    serving.abort();
}
