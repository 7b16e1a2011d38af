//! Tools that talk back (#32), against rmcp's client, on the fixture tools of
//! `context_tools/talking.rs`: `export` reports a step per item, logs at info and returns
//! text plus an embedded markdown resource; `pixel` logs a warning and returns an image;
//! `count_up` is sync and reports without a total; `erase` is destructive.
//!
//! The client receives `notifications/progress` with its own progress token and
//! `notifications/message` at or above the level it set; content blocks arrive as blocks;
//! a caller a `tool_filter` hides `erase` from neither sees nor can call it, in process,
//! over raw stdio lines and over HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); clients still use it.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, ContentBlock, ErrorCode, LoggingLevel,
    LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken, ResourceContents,
    ServerResult, SetLevelRequestParams,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolcall_fixtures::Ctx;
use toolcall_fixtures::context_toolset::ALL;
use toolcall_mcp::{Caller, McpServer, Rejection, bearer_token};
use toolcall_runtime::ToolInfo;

mod common;
use common::connect_as;

/// A client that records the notifications it receives.
#[derive(Clone, Default)]
struct Recorder {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    logs: Arc<Mutex<Vec<LoggingMessageNotificationParam>>>,
}

impl ClientHandler for Recorder {
    async fn on_progress(&self, params: ProgressNotificationParam, _: NotificationContext<RoleClient>) {
        self.progress.lock().unwrap().push(params);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.logs.lock().unwrap().push(params);
    }
}

impl Recorder {
    fn progress(&self) -> Vec<ProgressNotificationParam> {
        self.progress.lock().unwrap().clone()
    }

    fn logs(&self) -> Vec<(LoggingLevel, Option<String>, Value)> {
        self.logs.lock().unwrap().iter().map(|l| (l.level, l.logger.clone(), l.data.clone())).collect()
    }

    /// Waits (up to 5 s) until `done` holds for what was recorded.
    async fn until(&self, done: impl Fn(&Recorder) -> bool) -> bool {
        for _ in 0..500 {
            if done(self) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    }
}

fn args(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

/// Calls `name` and returns the result with the progress token the client attached.
async fn call_with_token(
    client: &RunningService<RoleClient, Recorder>,
    name: &str,
    arguments: Value,
) -> (rmcp::model::CallToolResult, ProgressToken) {
    call_with_options(client, name, arguments, PeerRequestOptions::no_options()).await
}

/// [`call_with_token`] with request options (`_meta`).
async fn call_with_options(
    client: &RunningService<RoleClient, Recorder>,
    name: &str,
    arguments: Value,
    options: PeerRequestOptions,
) -> (rmcp::model::CallToolResult, ProgressToken) {
    let request =
        CallToolRequest::new(CallToolRequestParams::new(name.to_owned()).with_arguments(args(arguments)));
    let handle = client
        .peer()
        .send_cancellable_request(ClientRequest::CallToolRequest(request), options)
        .await
        .unwrap();
    let token = handle.progress_token.clone();
    match handle.await_response().await.unwrap() {
        ServerResult::CallToolResult(result) => (result, token),
        other => panic!("not a tool result: {other:?}"),
    }
}

fn is_destructive(info: &ToolInfo) -> bool {
    info.is_destructive()
}

/// The fixture server for user `user`; the user `viewer` gets no destructive tool.
fn server(user: &str) -> (McpServer<Ctx>, Arc<Ctx>) {
    let ctx = Arc::new(Ctx { user: user.to_owned(), ..Ctx::default() });
    let server = McpServer::with_shared_context(&ALL, Arc::clone(&ctx))
        .tool_filter(|ctx: &Ctx, info: &ToolInfo| ctx.user != "viewer" || !is_destructive(info));
    (server, ctx)
}

fn expected_export_resource(user: &str) -> ContentBlock {
    ContentBlock::resource(
        ResourceContents::text(
            format!("# {user}\n- item 1\n- item 2\n- item 3\n"),
            format!("items://{user}"),
        )
        .with_mime_type("text/markdown"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_logs_and_an_embedded_resource_reach_the_client() {
    let recorder = Recorder::default();
    let client = connect_as(server("ada").0, recorder.clone()).await;
    let capabilities = client.peer_info().map(|i| i.capabilities.clone()).unwrap();
    assert!(capabilities.logging.is_some(), "the server declares logging");

    let (result, token) = call_with_token(&client, "export", json!({"count": 3})).await;
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.content, vec![ContentBlock::text("3 items"), expected_export_resource("ada")]);
    assert_eq!(result.structured_content, None, "content blocks claim no structured content");

    // With the client's own token. (rmcp's client handles each notification on a task of
    // its own, so it may record them out of order: the order on the wire is checked over
    // stdio lines below.)
    assert!(recorder.until(|r| r.progress().len() >= 3).await, "{:?}", recorder.progress());
    let mut seen: Vec<_> =
        recorder.progress().into_iter().map(|p| (p.progress_token, p.progress, p.total, p.message)).collect();
    seen.sort_by(|a, b| a.1.total_cmp(&b.1));
    let want: Vec<_> =
        (1..=3).map(|i| (token.clone(), f64::from(i), Some(3.0), Some(format!("item {i}")))).collect();
    assert_eq!(seen, want);

    // Before any logging/setLevel, info and above are sent; the logger is the tool.
    assert!(recorder.until(|r| !r.logs().is_empty()).await);
    assert_eq!(recorder.logs(), [(LoggingLevel::Info, Some("export".to_owned()), json!("exported 3 items"))]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_level_warning_keeps_info_from_the_client() {
    let recorder = Recorder::default();
    let client = connect_as(server("ada").0, recorder.clone()).await;
    client.peer().set_level(SetLevelRequestParams::new(LoggingLevel::Warning)).await.unwrap();

    let (exported, _) = call_with_token(&client, "export", json!({"count": 1})).await;
    assert_eq!(exported.is_error, Some(false));
    let (pixel, _) = call_with_token(&client, "pixel", json!({})).await;
    assert_eq!(pixel.content, vec![ContentBlock::image("iVBORw==", "image/png")]);
    assert_eq!(pixel.structured_content, None);

    // The warning is sent after export's info would have been: once it is here, the info
    // log would be too, had it been sent.
    assert!(recorder.until(|r| !r.logs().is_empty()).await);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(recorder.logs(), [(LoggingLevel::Warning, Some("pixel".to_owned()), json!("only one pixel"))]);

    // Back to debug: info is sent again, on the same session.
    client.peer().set_level(SetLevelRequestParams::new(LoggingLevel::Debug)).await.unwrap();
    call_with_token(&client, "export", json!({"count": 2})).await;
    assert!(recorder.until(|r| r.logs().len() == 2).await, "{:?}", recorder.logs());
    assert_eq!(
        recorder.logs()[1],
        (LoggingLevel::Info, Some("export".to_owned()), json!("exported 2 items"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn content_tools_have_no_output_schema() {
    let client = connect_as(server("ada").0, Recorder::default()).await;
    let tools = client.list_all_tools().await.unwrap();
    for name in ["export", "pixel"] {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        assert_eq!(tool.output_schema, None, "{name}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hidden_tool_is_an_unknown_tool_to_its_caller() {
    let (viewer_server, viewer_ctx) = server("viewer");
    let viewer = connect_as(viewer_server.page_size(2), Recorder::default()).await;
    let (editor_server, editor_ctx) = server("ada");
    let editor = connect_as(editor_server.page_size(2), Recorder::default()).await;

    // tools/list: every tool but erase, paged by what the caller sees (2 per page).
    let names =
        |tools: Vec<rmcp::model::Tool>| tools.into_iter().map(|t| t.name.to_string()).collect::<Vec<_>>();
    let all: Vec<String> = ALL.describe().iter().map(|t| t.name.to_owned()).collect();
    let seen = names(viewer.list_all_tools().await.unwrap());
    let shown: Vec<String> = all.iter().filter(|n| *n != "erase").cloned().collect();
    assert_eq!(seen, shown);
    assert_eq!(names(editor.list_all_tools().await.unwrap()), all);
    let first = viewer.list_tools(None).await.unwrap();
    assert_eq!(first.tools.len(), 2);
    assert_eq!(first.next_cursor.as_deref(), Some("2"));

    // tools/call of erase: exactly what an unknown name gets, naming only the tools shown.
    let call = |client: &RunningService<RoleClient, Recorder>, name: &'static str| {
        let params = CallToolRequestParams::new(name).with_arguments(args(json!({"item": "x"})));
        let peer = client.peer().clone();
        async move { peer.call_tool(params).await }
    };
    let hidden = call(&viewer, "erase").await.unwrap_err();
    let unknown = call(&viewer, "erasf").await.unwrap_err();
    let (rmcp::ServiceError::McpError(hidden), rmcp::ServiceError::McpError(unknown)) = (hidden, unknown)
    else {
        panic!("not protocol errors");
    };
    assert_eq!(hidden.code, ErrorCode::INVALID_PARAMS);
    let known = shown.join(", ");
    assert_eq!(hidden.message, format!("unknown tool \"erase\"; known tools: {known}"));
    assert_eq!(unknown.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(
        unknown.message,
        format!("unknown tool \"erasf\"; known tools: {known}"),
        "no did-you-mean erase"
    );
    let data = hidden.data.unwrap();
    assert_eq!(data["error"], "unknown_tool");
    assert_eq!(data["known"], json!(shown));
    assert_eq!(viewer_ctx.hits.load(Ordering::SeqCst), 0, "erase did not run");

    // The same tool for an editor runs.
    let erased = call(&editor, "erase").await.unwrap();
    assert_eq!(erased.content, vec![ContentBlock::text("erased x")]);
    assert_eq!(editor_ctx.hits.load(Ordering::SeqCst), 1);
}

/// Writes `message` as one line.
async fn send(out: &mut tokio::io::WriteHalf<tokio::io::DuplexStream>, message: Value) {
    out.write_all(format!("{message}\n").as_bytes()).await.unwrap();
}

/// Reads JSON lines from the server until the response with `id`; returns every message.
async fn read_until_response(
    lines: &mut tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    id: u64,
) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .expect("the server answers")
            .unwrap()
            .expect("the server keeps the pipe open");
        let message: Value = serde_json::from_str(&line).unwrap();
        let done = message["id"] == json!(id);
        seen.push(message);
        if done {
            return seen;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_stdio_lines_progress_needs_a_token_and_the_filter_applies() {
    let (server, _) = server("viewer");
    let (client_side, server_side) = tokio::io::duplex(1 << 16);
    let (server_in, server_out) = tokio::io::split(server_side);
    tokio::spawn(server.serve_lines(server_in, server_out));
    let (client_in, mut client_out) = tokio::io::split(client_side);
    let mut lines = BufReader::new(client_in).lines();
    send(
        &mut client_out,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}),
    )
    .await;
    send(&mut client_out, json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    let initialized = read_until_response(&mut lines, 1).await;
    assert_eq!(initialized.last().unwrap()["result"]["capabilities"]["logging"], json!({}));

    send(
        &mut client_out,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "count_up", "arguments": {"to": 3}, "_meta": {"progressToken": "tok-7"}}}),
    )
    .await;
    let first = read_until_response(&mut lines, 2).await;
    let (response, notes) = first.split_last().unwrap();
    assert_eq!(response["result"]["content"], json!([{"type": "text", "text": "3"}]));
    let progress: Vec<Value> = notes.iter().map(|n| n["params"].clone()).collect();
    assert_eq!(
        progress,
        (1..=3).map(|i| json!({"progressToken": "tok-7", "progress": i as f64})).collect::<Vec<_>>(),
        "sync count_up's reports, in order, before its result: {notes:?}"
    );
    assert!(notes.iter().all(|n| n["method"] == "notifications/progress"));

    send(
        &mut client_out,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "count_up", "arguments": {"to": 2}}}),
    )
    .await;
    let second = read_until_response(&mut lines, 3).await;
    assert_eq!(second.len(), 1, "no token, no progress: {second:?}");
    assert_eq!(second[0]["result"]["content"], json!([{"type": "text", "text": "2"}]));

    send(
        &mut client_out,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "erase", "arguments": {"item": "x"}, "_meta": {"progressToken": "tok-8"}}}),
    )
    .await;
    let hidden = read_until_response(&mut lines, 4).await;
    assert_eq!(hidden.len(), 1, "{hidden:?}");
    assert_eq!(hidden[0]["error"]["code"], json!(-32602));
    let message = hidden[0]["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("unknown tool \"erase\"; known tools: "), "{message}");
    assert!(!message.contains("erase,") && !message.ends_with("erase"), "{message}");

    // Progress and the log message, in the order the tool made them, then the result.
    send(
        &mut client_out,
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "export", "arguments": {"count": 2}, "_meta": {"progressToken": 9}}}),
    )
    .await;
    let exported = read_until_response(&mut lines, 5).await;
    let methods: Vec<&str> =
        exported[..exported.len() - 1].iter().map(|n| n["method"].as_str().unwrap()).collect();
    assert_eq!(methods, ["notifications/progress", "notifications/progress", "notifications/message"]);
    assert_eq!(
        exported[1]["params"],
        json!({"progressToken": 9, "progress": 2.0, "total": 2.0, "message": "item 2"})
    );
    assert_eq!(
        exported[2]["params"],
        json!({"level": "info", "logger": "export", "data": "exported 2 items"})
    );
    assert_eq!(
        exported[3]["result"]["content"][1],
        json!({"type": "resource", "resource": {"uri": "items://viewer", "mimeType": "text/markdown", "text": "# viewer\n- item 1\n- item 2\n"}})
    );
    assert_eq!(exported[3]["result"].get("structuredContent"), None);
}

/// An HTTP client of `uri` sending `token`, recording notifications.
async fn http_client(uri: &str, token: &str, recorder: Recorder) -> RunningService<RoleClient, Recorder> {
    let config = StreamableHttpClientTransportConfig::with_uri(uri.to_owned()).auth_header(token.to_owned());
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    recorder.serve(transport).await.expect("initialize over HTTP")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_each_caller_sees_its_tools_and_gets_its_notifications() {
    let (server, _) = server("local");
    let server = server.context_from_request(|request| match bearer_token(request) {
        Some("t1") => Ok(Caller::new("ada", Ctx { user: "ada".into(), ..Ctx::default() })),
        Some("t2") => Ok(Caller::new("viewer", Ctx { user: "viewer".into(), ..Ctx::default() })),
        _ => Err(Rejection::unauthorized("send a known token")),
    });
    let uri = common::net::serve(server).await;

    let viewer = http_client(&uri, "t2", Recorder::default()).await;
    let tools = viewer.list_all_tools().await.unwrap();
    assert!(!tools.iter().any(|t| t.name == "erase"));
    assert_eq!(tools.len(), ALL.len() - 1);
    let hidden = viewer
        .call_tool(CallToolRequestParams::new("erase").with_arguments(args(json!({"item": "x"}))))
        .await
        .unwrap_err();
    let rmcp::ServiceError::McpError(hidden) = hidden else { panic!("{hidden:?}") };
    assert_eq!(hidden.code, ErrorCode::INVALID_PARAMS);
    assert!(hidden.message.starts_with("unknown tool \"erase\"; known tools: "), "{}", hidden.message);

    let recorder = Recorder::default();
    let ada = http_client(&uri, "t1", recorder.clone()).await;
    assert!(ada.list_all_tools().await.unwrap().iter().any(|t| t.name == "erase"));
    let (result, token) = call_with_token(&ada, "export", json!({"count": 3})).await;
    assert_eq!(result.content, vec![ContentBlock::text("3 items"), expected_export_resource("ada")]);
    // Progress rides the request's own stream.
    assert!(recorder.until(|r| r.progress().len() >= 3).await, "{:?}", recorder.progress());
    let mut seen: Vec<_> = recorder.progress().into_iter().map(|p| (p.progress_token, p.progress)).collect();
    seen.sort_by(|a, b| a.1.total_cmp(&b.1));
    assert_eq!(seen, (1..=3).map(|i| (token.clone(), f64::from(i))).collect::<Vec<_>>());
    // A log message travels on the session's standalone stream.
    assert!(recorder.until(|r| !r.logs().is_empty()).await, "the log message arrives");
    assert_eq!(recorder.logs(), [(LoggingLevel::Info, Some("export".to_owned()), json!("exported 3 items"))]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_http_request_gets_its_progress_and_its_own_log_level() {
    use rmcp::model::ProtocolVersion;
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};

    let (server, _) = server("viewer");
    let uri = common::net::serve(server).await;
    let recorder = Recorder::default();
    let transport = StreamableHttpClientTransport::with_client(
        reqwest::Client::new(),
        StreamableHttpClientTransportConfig::with_uri(uri),
    );
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    let client = recorder.clone().serve_with_lifecycle(transport, lifecycle).await.expect("discover");
    assert!(!client.list_all_tools().await.unwrap().iter().any(|t| t.name == "erase"));

    let (result, token) = call_with_token(&client, "export", json!({"count": 2})).await;
    assert_eq!(result.content[0], ContentBlock::text("2 items"));
    assert!(recorder.until(|r| r.progress().len() >= 2).await, "{:?}", recorder.progress());
    let mut seen: Vec<_> = recorder.progress().into_iter().map(|p| (p.progress_token, p.progress)).collect();
    seen.sort_by(|a, b| a.1.total_cmp(&b.1));
    assert_eq!(seen, [(token.clone(), 1.0), (token, 2.0)]);
    // 2026-07-28: a request that set no level gets no log message (a server MUST NOT
    // log for it), whatever the server's default.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(recorder.logs(), [], "no level, no log");

    // A request's own level (`io.modelcontextprotocol/logLevel`) decides: info is sent
    // at info, and kept away at warning; the message comes with the request's response.
    let with_level = |level: LoggingLevel| {
        let mut meta = rmcp::model::RequestMetaObject::new();
        meta.set_log_level(level);
        let mut options = PeerRequestOptions::no_options();
        options.meta = Some(meta);
        options
    };
    call_with_options(&client, "export", json!({"count": 2}), with_level(LoggingLevel::Info)).await;
    assert!(recorder.until(|r| !r.logs().is_empty()).await, "the log message arrives");
    assert_eq!(recorder.logs(), [(LoggingLevel::Info, Some("export".to_owned()), json!("exported 2 items"))]);
    let options = || with_level(LoggingLevel::Warning);
    call_with_options(&client, "export", json!({"count": 1}), options()).await;
    call_with_options(&client, "pixel", json!({}), options()).await;
    assert!(recorder.until(|r| r.logs().len() >= 2).await);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        recorder.logs()[1..],
        [(LoggingLevel::Warning, Some("pixel".to_owned()), json!("only one pixel"))]
    );
}
