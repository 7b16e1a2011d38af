//! A tool's own [`ToolFailure`] over MCP (#42 item 5): an `isError` result whose one text
//! block says "call again with changed arguments" for a retry and "tool failed" for a
//! failure, each with its code, and whose `_meta` error object carries kind and code.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use rmcp::model::CallToolRequestParams;
use serde_json::json;
use toolcall_fixtures::toolset::ALL;
use toolcall_mcp::{McpServer, error_json};

#[tokio::test]
async fn a_retry_and_a_failure_read_differently_with_their_codes() {
    let client = common::connect(McpServer::new(&ALL, ())).await;
    let call = |item: &str| {
        let params = CallToolRequestParams::new("stock")
            .with_arguments(json!({"item": item}).as_object().cloned().unwrap());
        client.call_tool(params)
    };
    let retry = call("desk").await.expect("an isError result, not a protocol error");
    assert_eq!(retry.is_error, Some(true));
    let text = &retry.content[0].as_text().unwrap().text;
    assert_eq!(text, "call again with changed arguments (not_found): no item named \"desk\"; try \"lamp\"");
    let json = error_json(&retry).expect("the error object in _meta");
    assert_eq!((json["error"].as_str(), json["code"].as_str()), (Some("retry"), Some("not_found")));
    assert_eq!(retry.structured_content, None);

    let failed = call("closed").await.unwrap();
    assert_eq!(failed.is_error, Some(true));
    assert_eq!(
        failed.content[0].as_text().unwrap().text,
        "tool failed (unavailable): the warehouse is closed"
    );
    assert_eq!(error_json(&failed).unwrap()["error"], "failed");

    let fine = call("lamp").await.unwrap();
    assert_eq!((fine.is_error, fine.content[0].as_text().unwrap().text.as_str()), (Some(false), "3"));
    client.cancel().await.ok();
}
