//! `example-app serve --http` as child processes on 127.0.0.1, against rmcp's
//! streamable-HTTP client and raw requests: bearer tokens sign in their users (each
//! caller's notes, never another's), a request without a known token gets 401 and reaches
//! no tool, a non-loopback address is refused unless `--allow-remote` comes with a token,
//! browser origins and Host names are checked, bodies over 4 MiB get 413, and two server
//! processes with no shared state serve one 2026-07-28 client in turn. User 2 is a viewer:
//! `remove_note` is neither listed nor callable for them; `export_notes` sends progress
//! notifications and log messages, and each user's notes as an embedded resource.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); clients still use it.

use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ContentBlock,
    LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken, ResourceContents,
    ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

// The HTTP client, raw requests and the balancer of toolcall-mcp's own HTTP tests.
#[path = "../../toolcall-mcp/tests/common/net.rs"]
#[allow(dead_code)]
mod net;
use net::{Client, Era, RoundRobin, initialize_body};
#[path = "../../toolcall-mcp/tests/common/redis.rs"]
mod local_redis;
use local_redis::{redis_binary, redis_server, redis_server_on};
// The deploy/ configurations run by real nginx and HAProxy.
mod deploy;
use deploy::proxy;

/// A running `example-app serve --http`, killed when dropped.
struct Served {
    child: tokio::process::Child,
    /// `http://127.0.0.1:PORT/mcp`.
    uri: String,
}

fn serve_command(args: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_example-app"));
    command.arg("serve").args(args).env_remove("TOOLCALL_MCP_TOKEN");
    command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).kill_on_drop(true);
    command
}

/// Starts `serve ARGS` and waits for its `listening on http://ADDR/mcp` line.
async fn start(command: &mut tokio::process::Command) -> Served {
    let mut child = command.spawn().expect("spawn example-app");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let line = lines.next_line().await.unwrap().expect("a line on stderr");
    let addr: SocketAddr = line
        .strip_prefix("listening on http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("{line}"))
        .parse()
        .unwrap();
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Served { child, uri: format!("http://127.0.0.1:{}/mcp", addr.port()) }
}

/// rmcp's client: legacy `initialize`, or 2026-07-28 `server/discover`; a new connection
/// per request when `fresh`.
async fn connect(
    uri: &str,
    token: Option<&str>,
    modern: bool,
    fresh: bool,
) -> Result<RunningService<RoleClient, ()>, rmcp::service::ClientInitializeError> {
    let mut client = Client::new(uri, if modern { Era::Stateless } else { Era::Legacy });
    client.token = token.map(str::to_owned);
    client.fresh_connections = fresh;
    client.connect().await
}

async fn text(client: &RunningService<RoleClient, ()>, name: &str) -> String {
    let result = client.call_tool(CallToolRequestParams::new(name.to_owned())).await.unwrap();
    assert_eq!(result.is_error, Some(false), "{name}: {result:?}");
    result.content[0].as_text().unwrap().text.clone()
}

/// A raw `initialize` POST with `headers`: the status and the body.
async fn post_initialize(uri: &str, headers: &[(&str, &str)]) -> (u16, String) {
    post(uri, initialize_body(), headers).await
}

/// A raw POST: the status and the body; a 401 always asks for a bearer token.
async fn post(uri: &str, body: String, headers: &[(&str, &str)]) -> (u16, String) {
    let (status, response_headers, body) = net::post(uri, body, headers).await;
    if status == 401 {
        let www = response_headers.get("www-authenticate").map(|v| v.to_str().unwrap().to_owned());
        assert_eq!(www.as_deref(), Some("Bearer"));
    }
    (status, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bearer_tokens_sign_in_their_users() {
    let served =
        start(&mut serve_command(&["--http", "127.0.0.1:0", "--token", "ada-secret,2:grace-secret"])).await;
    for modern in [false, true] {
        let ada = connect(&served.uri, Some("ada-secret"), modern, false).await.expect("Ada connects");
        let grace = connect(&served.uri, Some("grace-secret"), modern, false).await.expect("Grace connects");
        assert_eq!(text(&ada, "whoami").await, r#"{"id":1,"name":"Ada"}"#);
        assert_eq!(text(&grace, "whoami").await, r#"{"id":2,"name":"Grace"}"#);
        let notes = text(&ada, "list_notes").await;
        assert!(notes.contains("oat milk") && !notes.contains("launch codes"), "{notes}");
        let notes = text(&grace, "list_notes").await;
        assert!(notes.contains("launch codes") && !notes.contains("oat milk"), "{notes}");
        // Nobody else gets in, in either lifecycle.
        assert!(connect(&served.uri, None, modern, false).await.is_err());
        assert!(connect(&served.uri, Some("grace-secreT"), modern, false).await.is_err());
    }
    let (status, body) = post_initialize(&served.uri, &[]).await;
    assert_eq!((status, body.as_str()), (401, "send Authorization: Bearer TOKEN"));
    let (status, body) = post_initialize(&served.uri, &[("authorization", "Bearer nope")]).await;
    assert_eq!((status, body.as_str()), (401, "unknown token"));
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add_note", "arguments": {"text": "pwned"}}});
    let (status, _) = post(&served.uri, call.to_string(), &[("authorization", "Bearer nope")]).await;
    assert_eq!(status, 401);
    let ada = connect(&served.uri, Some("ada-secret"), true, false).await.unwrap();
    assert!(!text(&ada, "list_notes").await.contains("pwned"), "the refused call never ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_can_come_from_the_environment() {
    let mut command = serve_command(&["--http", "127.0.0.1:0"]);
    command.env("TOOLCALL_MCP_TOKEN", "from-env");
    let served = start(&mut command).await;
    let client = connect(&served.uri, Some("from-env"), true, false).await.expect("the env token signs in");
    assert_eq!(text(&client, "whoami").await, r#"{"id":1,"name":"Ada"}"#);
    assert_eq!(post_initialize(&served.uri, &[]).await.0, 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_tokens_a_loopback_server_serves_user_1() {
    let served = start(&mut serve_command(&["--http", "127.0.0.1:0"])).await;
    let client = connect(&served.uri, None, false, false).await.unwrap();
    assert_eq!(text(&client, "whoami").await, r#"{"id":1,"name":"Ada"}"#);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_address_needs_allow_remote_and_a_token() {
    let refusals: [(&[&str], &str); 3] = [
        (&["--http", "0.0.0.0:0"], "error: 0.0.0.0:0 is not a loopback address"),
        (&["--http", "0.0.0.0:0", "--token", "t"], "error: 0.0.0.0:0 is not a loopback address"),
        (
            &["--http", "0.0.0.0:0", "--allow-remote"],
            "error: --allow-remote needs --token (or TOOLCALL_MCP_TOKEN)",
        ),
    ];
    for (args, message) in refusals {
        let output = serve_command(args).output().await.unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.starts_with(message), "{args:?}: {stderr}");
    }
    // With both it serves; any Host name is accepted, the token still is not optional.
    let served =
        start(&mut serve_command(&["--http", "0.0.0.0:0", "--allow-remote", "--token", "remote"])).await;
    let host = [("host", "mcp.example.com")];
    assert_eq!(post_initialize(&served.uri, &host).await.0, 401);
    let (status, body) = post_initialize(&served.uri, &[host[0], ("authorization", "Bearer remote")]).await;
    assert_eq!(status, 200, "{body}");
    let client = connect(&served.uri, Some("remote"), true, false).await.unwrap();
    assert_eq!(text(&client, "whoami").await, r#"{"id":1,"name":"Ada"}"#);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn origins_hosts_and_body_size_are_checked() {
    let served = start(&mut serve_command(&["--http", "127.0.0.1:0", "--token", "t"])).await;
    let token = ("authorization", "Bearer t");
    assert_eq!(post_initialize(&served.uri, &[token]).await.0, 200);
    assert_eq!(post_initialize(&served.uri, &[token, ("origin", "http://localhost:5173")]).await.0, 200);
    let (status, body) = post_initialize(&served.uri, &[token, ("origin", "https://evil.example")]).await;
    assert_eq!((status, body.as_str()), (403, "Forbidden: Origin header is not allowed"));
    let (status, body) = post_initialize(&served.uri, &[token, ("host", "evil.example")]).await;
    assert_eq!((status, body.as_str()), (403, "Forbidden: Host header is not allowed"));
    let huge =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#, "x".repeat(4 << 20));
    assert_eq!(post(&served.uri, huge, &[token]).await.0, 413);
}

/// Two processes, nothing shared, behind a balancer that alternates connections; the
/// client opens one per request, so its requests alternate between the processes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_serve_one_stateless_client_in_turn() {
    let args = ["--http", "127.0.0.1:0", "--token", "t"];
    let replicas = [start(&mut serve_command(&args)).await, start(&mut serve_command(&args)).await];
    let uris: Vec<String> = replicas.iter().map(|r| r.uri.clone()).collect();
    let balancer = RoundRobin::start(&uris).await;
    let client = connect(&balancer.uri, Some("t"), true, true).await.expect("discover through the balancer");
    for i in 0..20i64 {
        let args = json!({"a": i, "b": 1}).as_object().cloned().unwrap();
        let sum = client.call_tool(CallToolRequestParams::new("add").with_arguments(args)).await.unwrap();
        assert_eq!(sum.content[0].as_text().map(|t| t.text.clone()), Some((i + 1).to_string()));
    }
    assert_eq!(text(&client, "whoami").await, r#"{"id":1,"name":"Ada"}"#);
    let counts = balancer.counts();
    assert!(counts.iter().all(|&n| n >= 10), "each process answered half: {counts:?}");
}

// #29: the server against an attacker, with the token setup of the issue.

/// A raw `initialize` and `notifications/initialized` with `token`: the session id.
async fn session_of(uri: &str, token: &str) -> String {
    let bearer = format!("Bearer {token}");
    let (status, headers, body) = net::post(uri, initialize_body(), &[("authorization", &bearer)]).await;
    assert_eq!(status, 200, "{body}");
    let id = headers.get("mcp-session-id").unwrap().to_str().unwrap().to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    assert_eq!(post(uri, initialized, &session_headers(&bearer, &id)).await.0, 202);
    id
}

fn session_headers<'a>(bearer: &'a str, id: &'a str) -> [(&'static str, &'a str); 3] {
    [("authorization", bearer), ("mcp-session-id", id), ("mcp-protocol-version", "2025-06-18")]
}

fn tool_call(id: u64, name: &str, args: serde_json::Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}})
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_2_finds_nothing_of_user_1s_session() {
    let served = start(&mut serve_command(&["--http", "127.0.0.1:0", "--token", "s3cret,2:t2"])).await;
    let ada = session_of(&served.uri, "s3cret").await;
    let (grace, own) = ("Bearer t2", "Bearer s3cret");
    let add = tool_call(3, "add_note", json!({"text": "from user 2"}));
    assert_eq!(
        post(&served.uri, add.clone(), &session_headers(grace, &ada)).await,
        (404, "Not Found: Session not found".into())
    );
    let get = |bearer: &'static str, last: Option<&'static str>| {
        let mut request = reqwest::Client::new().get(&served.uri).header("accept", "text/event-stream");
        for (name, value) in session_headers(bearer, &ada) {
            request = request.header(name, value);
        }
        if let Some(last) = last {
            request = request.header("last-event-id", last);
        }
        request.send()
    };
    assert_eq!(get(grace, Some("0")).await.unwrap().status(), 404);
    assert_eq!(get(grace, None).await.unwrap().status(), 404);
    let delete = reqwest::Client::new().delete(&served.uri);
    let delete = session_headers(grace, &ada).iter().fold(delete, |r, (n, v)| r.header(*n, *v));
    assert_eq!(delete.send().await.unwrap().status(), 404);
    // User 1's session is whole; user 2's own calls act as user 2.
    let (status, body) =
        post(&served.uri, tool_call(4, "whoami", json!({})), &session_headers(own, &ada)).await;
    assert_eq!(status, 200);
    assert!(body.contains(r#"\"name\":\"Ada\""#), "{body}");
    let grace_client = connect(&served.uri, Some("t2"), false, false).await.unwrap();
    assert!(!text(&grace_client, "list_notes").await.contains("from user 2"), "the borrowed call never ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loopback_address_of_its_own_is_served() {
    let mut child = serve_command(&["--http", "127.0.0.2:0"]).spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let line = lines.next_line().await.unwrap().unwrap();
    let addr =
        line.strip_prefix("listening on http://").and_then(|r| r.strip_suffix("/mcp")).unwrap().to_owned();
    assert!(addr.starts_with("127.0.0.2:"), "{addr}");
    let uri = format!("http://{addr}/mcp");
    let client = connect(&uri, None, false, false).await.expect("served, Host 127.0.0.2 allowed");
    assert_eq!(text(&client, "whoami").await, r#"{"id":1,"name":"Ada"}"#);
    assert_eq!(post_initialize(&uri, &[("host", "evil.example")]).await.0, 403, "other names still refused");
    drop(child);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_mistakes_are_refused_at_start() {
    let refusals: [(&[&str], &str); 3] = [
        (&["--token", "t"], "error: --token (or TOOLCALL_MCP_TOKEN) is for --http"),
        (
            &["--http", "127.0.0.1:0", "--token", "1:same,2:same"],
            "error: the same token is given for user 1 and user 2",
        ),
        (
            &["--http", "127.0.0.1:0", "--token", "x", "--token", "3:x"],
            "error: the same token is given for user 1 and user 3",
        ),
    ];
    for (args, message) in refusals {
        let output = serve_command(args).output().await.unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.starts_with(message), "{args:?}: {stderr}");
        assert!(!stderr.contains("same,") && !stderr.contains(":x"), "no secret in the message: {stderr}");
    }
}

/// `count` unknown keys to `add`, each `width` characters long (written out directly: a
/// `Value` of them takes seconds to build in a debug build).
fn flood_of_keys(id: u64, count: usize, width: usize) -> String {
    let mut text = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2"#
    );
    for i in 0..count {
        text.push_str(&format!(r#","k{i:0width$}":0"#, width = width - 1));
    }
    text.push_str("}}}");
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trivial_call_answers_while_two_4_mib_requests_are_in_flight_and_their_errors_are_small() {
    let served = start(&mut serve_command(&["--http", "127.0.0.1:0", "--token", "s3cret"])).await;
    let session = session_of(&served.uri, "s3cret").await;
    let client = connect(&served.uri, Some("s3cret"), true, false).await.unwrap();
    // 300,000 keys (the issue's request) are refused before they are parsed.
    let refused = flood_of_keys(9, 300_000, 7);
    assert!(refused.len() > 3_500_000 && refused.len() < 4 << 20, "{}", refused.len());
    let (status, text) = post(&served.uri, refused, &session_headers("Bearer s3cret", &session)).await;
    assert_eq!(status, 413, "{text}");
    assert!(text.contains("JSON values or more; the limit is 100000"), "{text}");
    // 90,000 keys of 40 characters are parsed, decoded and answered.
    let bodies: Vec<String> = (0..2u64).map(|i| flood_of_keys(10 + i, 90_000, 40)).collect();
    let heavy: Vec<_> = bodies
        .into_iter()
        .map(|body| {
            let (uri, session) = (served.uri.clone(), session.clone());
            assert!(body.len() > 3_500_000 && body.len() < 4 << 20, "{}", body.len());
            tokio::spawn(async move {
                let sent = std::time::Instant::now();
                let (status, text) = post(&uri, body, &session_headers("Bearer s3cret", &session)).await;
                (status, text, sent, std::time::Instant::now())
            })
        })
        .collect();
    let origin = std::time::Instant::now();
    tokio::time::sleep(std::time::Duration::from_millis(150)).await;
    let begun = std::time::Instant::now();
    let args = json!({"a": 2, "b": 3}).as_object().cloned().unwrap();
    let sum = client.call_tool(CallToolRequestParams::new("add").with_arguments(args)).await.unwrap();
    let answered = std::time::Instant::now();
    let waited = answered - begun;
    eprintln!("the trivial call took {waited:?} beside two 4 MiB requests");
    assert_eq!(sum.content[0].as_text().map(|t| t.text.clone()), Some("5".into()));
    for task in heavy {
        let (status, text, sent, done) = task.await.unwrap();
        assert_eq!(status, 200);
        assert!(text.len() < 64 * 1024, "a 4 MiB request got {} bytes back", text.len());
        assert!(text.contains("and 89980 more"), "{}", &text[..text.len().min(2000)]);
        eprintln!("a 4 MiB request: {} bytes back in {:?}", text.len(), done - sent);
        // The trivial call was asked and answered while this request was in flight.
        let at = |t: std::time::Instant| t.saturating_duration_since(origin);
        assert!(
            sent < begun && done > answered,
            "sent {:?}, done {:?}; the trivial call from {:?} to {:?}",
            at(sent),
            at(done),
            at(begun),
            at(answered)
        );
    }
    assert!(waited < std::time::Duration::from_secs(1), "{waited:?}");
}

/// The message of the protocol error a call got.
fn protocol_error(error: rmcp::ServiceError) -> rmcp::model::ErrorData {
    match error {
        rmcp::ServiceError::McpError(error) => error,
        other => panic!("not a protocol error: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_viewer_neither_sees_nor_can_call_a_destructive_tool() {
    let served = start(&mut serve_command(&["--http", "127.0.0.1:0", "--token", "s3cret,2:t2"])).await;
    let every: Vec<&str> = example_app::toolset::ALL.describe().iter().map(|t| t.name).collect();
    let shown: Vec<&str> = every.iter().copied().filter(|name| *name != "remove_note").collect();
    for modern in [false, true] {
        let grace = connect(&served.uri, Some("t2"), modern, false).await.expect("Grace connects");
        let listed = grace.list_all_tools().await.unwrap();
        assert_eq!(listed.iter().map(|t| t.name.as_ref()).collect::<Vec<_>>(), shown, "modern: {modern}");
        // A call of it is a call of an unknown tool, whose list of known tools is hers.
        let params = CallToolRequestParams::new("remove_note")
            .with_arguments(json!({"id": 3}).as_object().cloned().unwrap());
        let refused = protocol_error(grace.call_tool(params).await.unwrap_err());
        assert_eq!(refused.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert_eq!(
            refused.message,
            format!("unknown tool \"remove_note\"; known tools: {}", shown.join(", "))
        );
        let unknown =
            protocol_error(grace.call_tool(CallToolRequestParams::new("remove_notes")).await.unwrap_err());
        assert_eq!(
            unknown.message,
            refused.message.replace("\"remove_note\"", "\"remove_notes\""),
            "no did-you-mean"
        );
        assert!(text(&grace, "list_notes").await.contains("launch codes"), "her note was not removed");
        // What she may do, she can: the tools annotated otherwise are there.
        let added = net::call(&grace, "add_note", json!({"text": "read-only? not quite"})).await.unwrap();
        assert!(added.contains(r#""owner":2"#), "{added}");
    }
    // Ada, an editor, sees every tool and may call `remove_note`; her client cannot ask
    // her to confirm (no elicitation), so the tool refuses and her note stays.
    let ada = connect(&served.uri, Some("s3cret"), false, false).await.unwrap();
    assert_eq!(
        ada.list_all_tools().await.unwrap().iter().map(|t| t.name.as_ref()).collect::<Vec<_>>(),
        every
    );
    let removed = net::call(&ada, "remove_note", json!({"id": 1})).await;
    assert_eq!(
        removed.map_err(|refused| refused.replace("tool failed: ", "")),
        Err("note 1 was not removed: it needs the user's confirmation, and the user cannot be asked \
             (the client did not declare elicitation (asking the user)); nothing was done"
            .to_owned())
    );
    assert!(text(&ada, "list_notes").await.contains("oat milk"));
}

/// A client that records the progress and log notifications it receives.
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
    /// Waits (up to 5 s) for `n` progress notifications and `logs` log messages; then
    /// the progress (sorted by how far it got: rmcp's client may record out of order)
    /// and the log messages' texts.
    async fn wait(&self, n: usize, logs: usize) -> (Vec<ProgressNotificationParam>, Vec<Value>) {
        for _ in 0..500 {
            if self.progress.lock().unwrap().len() >= n && self.logs.lock().unwrap().len() >= logs {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let mut progress = self.progress.lock().unwrap().clone();
        progress.sort_by(|a, b| a.progress.total_cmp(&b.progress));
        let mut logs: Vec<Value> = self.logs.lock().unwrap().iter().map(|log| log.data.clone()).collect();
        logs.sort_by_key(Value::to_string);
        (progress, logs)
    }
}

/// Calls `export_notes` as the client's user with a progress token: the result and the token.
async fn export_notes(client: &RunningService<RoleClient, Recorder>) -> (CallToolResult, ProgressToken) {
    let request = CallToolRequest::new(CallToolRequestParams::new("export_notes"));
    let handle = client
        .peer()
        .send_cancellable_request(ClientRequest::CallToolRequest(request), PeerRequestOptions::no_options())
        .await
        .unwrap();
    let token = handle.progress_token.clone();
    match handle.await_response().await.unwrap() {
        ServerResult::CallToolResult(result) => (result, token),
        other => panic!("not a tool result: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_notes_reports_progress_and_returns_the_users_notes_as_markdown() {
    let served = start(&mut serve_command(&["--http", "127.0.0.1:0", "--token", "s3cret,2:t2"])).await;
    let client = |token: &str, recorder: Recorder| {
        let config =
            StreamableHttpClientTransportConfig::with_uri(served.uri.clone()).auth_header(token.to_owned());
        let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
        recorder.serve(transport)
    };

    let recorder = Recorder::default();
    let ada = client("s3cret", recorder.clone()).await.expect("Ada connects");
    let (result, token) = export_notes(&ada).await;
    assert_eq!(result.is_error, Some(false));
    let markdown =
        "# Ada's notes\n\n## Note 1\n\nbuy oat milk\n\n## Note 2\n\ncall the plumber about the boiler\n";
    let resource =
        ResourceContents::text(markdown, "notes://user/1/export.md").with_mime_type("text/markdown");
    assert_eq!(result.content, [ContentBlock::resource(resource)]);
    assert_eq!(result.structured_content, None);
    let (progress, logs) = recorder.wait(2, 2).await;
    let seen: Vec<_> =
        progress.iter().map(|p| (p.progress_token.clone(), p.progress, p.total, p.message.clone())).collect();
    assert_eq!(
        seen,
        [
            (token.clone(), 1.0, Some(2.0), Some("note 1".to_owned())),
            (token.clone(), 2.0, Some(2.0), Some("note 2".to_owned())),
        ]
    );
    assert_eq!(logs, [json!("exported 2 notes"), json!("exporting the notes of user 1")]);

    // Grace's export holds her note only.
    let recorder = Recorder::default();
    let grace = client("t2", recorder.clone()).await.expect("Grace connects");
    let (result, _) = export_notes(&grace).await;
    let markdown = "# Grace's notes\n\n## Note 3\n\nGrace's private note: the launch codes are 0000\n";
    let resource =
        ResourceContents::text(markdown, "notes://user/2/export.md").with_mime_type("text/markdown");
    assert_eq!(result.content, [ContentBlock::resource(resource)]);
    let (progress, _) = recorder.wait(1, 2).await;
    assert_eq!(progress.iter().map(|p| (p.progress, p.total)).collect::<Vec<_>>(), [(1.0, Some(1.0))]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_from_the_command_line_apply_and_bad_values_are_usage_errors() {
    let served = start(&mut serve_command(&[
        "--http",
        "127.0.0.1:0",
        "--body-limit",
        "2KiB",
        "--max-sessions",
        "3",
        "--timeout",
        "5",
        "--idle-timeout",
        "0.5",
    ]))
    .await;
    let ping = |pad: usize| {
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#, "x".repeat(pad))
    };
    assert_eq!(post_initialize(&served.uri, &[]).await.0, 200);
    assert_eq!(post(&served.uri, ping(3 << 10), &[]).await.0, 413, "over 2 KiB (the default is 4 MiB)");
    assert_ne!(post(&served.uri, ping(1 << 10), &[]).await.0, 413, "under 2 KiB");

    let refusals: [(&[&str], &str); 5] = [
        (&["--max-sessions", "0"], "error: invalid value '0' for '--max-sessions <N>': must be at least 1\n"),
        (
            &["--body-limit", "1GB"],
            "error: invalid value '1GB' for '--body-limit <SIZE>': expected a size in bytes, or with KiB or MiB, like 4MiB\n",
        ),
        (
            &["--body-limit", "100"],
            "error: invalid value '100' for '--body-limit <SIZE>': must be from 1KiB to 1024MiB\n",
        ),
        (
            &["--timeout", "0"],
            "error: invalid value '0' for '--timeout <SECS>': must be more than 0 seconds\n",
        ),
        (
            &["--header-timeout", "90000"],
            "error: invalid value '90000' for '--header-timeout <SECS>': must be at most 86400 seconds (a day)\n",
        ),
    ];
    for (limit, message) in refusals {
        let args: Vec<&str> = ["--http", "127.0.0.1:0"].iter().chain(limit).copied().collect();
        let output = serve_command(&args).output().await.unwrap();
        assert_eq!(output.status.code(), Some(2), "{limit:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.starts_with(message), "{limit:?}: {stderr}");
    }
    // The HTTP limits need --http; a call's time limit applies over stdio too.
    let output = serve_command(&["--max-connections", "8"]).output().await.unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--http <ADDR>"));
}

/// Where `scripts/install-clients` put the official clients: `TOOLCALL_CLIENTS_DIR`, else
/// `~/.cache/toolcall-ci`. `None` when they are not there; in CI (`CI` set) that is a
/// failure, never a skip.
fn official_clients() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("TOOLCALL_CLIENTS_DIR").map(std::path::PathBuf::from).or_else(|| {
        std::env::var_os("HOME").map(|home| std::path::Path::new(&home).join(".cache/toolcall-ci"))
    })?;
    let present = dir.join("node/node_modules/@modelcontextprotocol/sdk/package.json").is_file()
        && dir.join("py/bin/python").is_file();
    if present {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the official MCP clients are not in {}: run scripts/install-clients",
        dir.display()
    );
    eprintln!("SKIPPED: the official MCP clients are not in {}: run scripts/install-clients", dir.display());
    None
}

/// Failing calls of tools that declare an `outputSchema` (a body that refuses, arguments
/// that are wrong) and of one that does not, then a success, as `(name, arguments, what
/// the model must read)`; `None` for the success.
fn failing_calls() -> Vec<(&'static str, Value, Option<&'static str>)> {
    vec![
        ("add_note", json!({"text": ""}), Some("a note has 1 to 500 characters, got 0")),
        ("whoami", json!({"bogus": 1}), Some(r#"unknown argument "bogus""#)),
        ("add_note", json!({}), Some("text: missing required argument")),
        ("list_notes", json!({"limit": "ten"}), Some("limit")),
        ("divide", json!({"a": 1, "b": 0}), Some("b must not be zero")),
        ("add_note", json!({"text": "written by a real client"}), None),
    ]
}

/// Checks what one client saw of [`failing_calls`]: every failure an `isError` result whose
/// one text block says the message and whose `_meta` carries the error's JSON, none an
/// exception; the success valid against its output schema (the client did not throw).
fn check_client_saw(client: &str, seen: &Value) {
    let calls = failing_calls();
    let seen = seen.as_array().unwrap_or_else(|| panic!("{client}: {seen}"));
    assert_eq!(seen.len(), calls.len(), "{client}: {seen:?}");
    for ((name, arguments, words), got) in calls.iter().zip(seen) {
        let what = format!("{client}: {name} {arguments}");
        assert!(got.get("threw").is_none(), "{what}: the client threw: {}", got["threw"]);
        let result = &got["result"];
        let texts: Vec<&str> = result["content"]
            .as_array()
            .unwrap_or_else(|| panic!("{what}: {result}"))
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect();
        match words {
            Some(words) => {
                assert_eq!(result["isError"], true, "{what}: {result}");
                assert_eq!(texts.len(), 1, "{what}: said once: {result}");
                assert!(texts[0].contains(words), "{what}: {result}");
                assert_eq!(
                    result.get("structuredContent").filter(|v| !v.is_null()),
                    None,
                    "{what}: {result}"
                );
                let error = &result["_meta"][toolcall_mcp::ERROR_META_KEY];
                assert!(error["error"].is_string(), "{what}: the error's JSON for programs: {result}");
            }
            None => {
                assert_ne!(result["isError"], true, "{what}: {result}");
                assert_eq!(
                    result["structuredContent"]["text"], "written by a real client",
                    "{what}: {result}"
                );
            }
        }
    }
}

/// The official TypeScript SDK (what most MCP hosts embed), the official Python SDK and
/// rmcp's client each call tools with and without an output schema with bad arguments and
/// a failing body: each sees `isError: true` and the message, not an exception (#41).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn official_clients_read_every_error_result() {
    let served = start(&mut serve_command(&["--http", "127.0.0.1:0", "--token", "s3cret"])).await;
    let calls: Vec<Value> = failing_calls()
        .into_iter()
        .map(|(name, arguments, _)| json!({"name": name, "arguments": arguments}))
        .collect();
    let calls = Value::Array(calls).to_string();

    // rmcp's client, on both lifecycles.
    for modern in [false, true] {
        let client = connect(&served.uri, Some("s3cret"), modern, false).await.unwrap();
        client.list_all_tools().await.unwrap();
        let mut seen = Vec::new();
        for (name, arguments, _) in failing_calls() {
            let params =
                CallToolRequestParams::new(name).with_arguments(arguments.as_object().cloned().unwrap());
            match client.call_tool(params).await {
                Ok(result) => seen.push(json!({"name": name, "result": result})),
                Err(error) => seen.push(json!({"name": name, "threw": error.to_string()})),
            }
        }
        check_client_saw(if modern { "rmcp 2026-07-28" } else { "rmcp" }, &Value::Array(seen));
    }

    let Some(clients) = official_clients() else { return };
    let script =
        |file: &str| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients").join(file);
    let node = tokio::process::Command::new("node")
        .arg(script("ts_client.cjs"))
        .arg(clients.join("node"))
        .args([&served.uri, "s3cret", &calls])
        .output();
    let python = tokio::process::Command::new(clients.join("py/bin/python"))
        .arg(script("py_client.py"))
        .args([&served.uri, "s3cret", &calls])
        .output();
    for (client, output) in [("TypeScript SDK", node.await.unwrap()), ("Python SDK", python.await.unwrap())] {
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{client}: {}\n{stderr}", output.status);
        // Closing its session (DELETE) succeeded as the client sees it (rmcp's 202 made the
        // Python SDK print "Session termination failed: 202").
        assert!(!stderr.contains("termination failed"), "{client}: {stderr}");
        let seen: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{client}: {e}: {}", String::from_utf8_lossy(&output.stdout)));
        check_client_saw(client, &seen);
    }
}

/// A GET of `path` beside `/mcp`: the status and the body.
async fn get(served: &Served, path: &str) -> (u16, String) {
    let url = served.uri.replace("/mcp", path);
    let response = reqwest::Client::new().get(url).send().await.expect("HTTP round trip");
    (response.status().as_u16(), response.text().await.unwrap_or_default())
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_lets_the_call_in_flight_finish_then_exits_zero() {
    // Each query of the built-in database waits 3 s: a call is in flight past the drain
    // delay (1 s).
    let args = [
        "--http",
        "127.0.0.1:0",
        "--db-latency",
        "3000",
        "--drain-grace",
        "20",
        "--drain-delay",
        "1",
        "--token",
        "ada",
    ];
    let mut served = start(&mut serve_command(&args)).await;
    // Probes need no token. Readiness asks the database, whose queries take 3 s here: it
    // answers within its own deadline (1 s) and says so, rather than hang the probe.
    assert_eq!(get(&served, "/healthz").await, (200, "ok\n".to_owned()));
    let started = std::time::Instant::now();
    let ready = get(&served, "/readyz").await;
    assert_eq!(ready, (503, "not ready: the readiness check did not answer within 1000 ms\n".to_owned()));
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    let client = connect(&served.uri, Some("ada"), false, false).await.expect("connects");
    let call = tokio::spawn(async move {
        let result = client.call_tool(CallToolRequestParams::new("list_notes")).await;
        (result, client)
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pid = served.child.id().expect("running").to_string();
    let killed = tokio::process::Command::new("kill").args(["-TERM", &pid]).status().await.unwrap();
    assert!(killed.success());
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Draining: not ready at once, so a balancer's check sees it, while requests are still
    // served for the delay (1 s here), each closing its connection after its response...
    assert_eq!(get(&served, "/readyz").await, (503, "draining\n".to_owned()));
    let (status, headers, _) =
        net::post(&served.uri, initialize_body(), &[("authorization", "Bearer ada")]).await;
    assert_eq!(status, 200, "served during the drain delay");
    assert_eq!(headers.get("connection").map(|v| v.to_str().unwrap()), Some("close"));
    // ... then the listener is closed: a new connection is refused (a balancer retries it
    // on another replica), while the call in flight goes on.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let refused = tokio::net::TcpStream::connect(net::addr_of(&served.uri)).await;
    assert_eq!(refused.err().map(|e| e.kind()), Some(std::io::ErrorKind::ConnectionRefused));
    // The call in flight at the signal gets its result.
    let (result, _client) = call.await.unwrap();
    let result = result.expect("the call in flight completes");
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert!(result.content[0].as_text().unwrap().text.contains("oat milk"));
    let status = tokio::time::timeout(Duration::from_secs(20), served.child.wait()).await.unwrap().unwrap();
    assert_eq!(status.code(), Some(0), "drained, then exited 0");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allowed_hosts_and_origins_are_named_on_the_command_line() {
    let args = [
        "--http",
        "127.0.0.1:0",
        "--allowed-host",
        "mcp.example.com",
        "--allowed-origin",
        "https://app.example.com",
    ];
    let served = start(&mut serve_command(&args)).await;
    let (status, _) = post_initialize(&served.uri, &[("host", "mcp.example.com")]).await;
    assert_eq!(status, 200, "a named host");
    let (status, _) = post_initialize(&served.uri, &[("host", "evil.example.com")]).await;
    assert_eq!(status, 403, "any other");
    let (status, _) = post_initialize(&served.uri, &[("origin", "https://app.example.com")]).await;
    assert_eq!(status, 200, "a named origin");
    let (status, _) = post_initialize(&served.uri, &[("origin", "https://evil.example.com")]).await;
    assert_eq!(status, 403);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_users_calls_past_the_rate_get_429_and_others_are_served() {
    let args = ["--http", "127.0.0.1:0", "--token", "s3cret,2:t2", "--rate-limit", "2"];
    let served = start(&mut serve_command(&args)).await;
    let (ada, grace) = (session_of(&served.uri, "s3cret").await, session_of(&served.uri, "t2").await);
    let statuses = |session: String, bearer: &'static str, calls: u64| {
        let uri = served.uri.clone();
        async move {
            let mut out = Vec::new();
            for id in 0..calls {
                let headers = session_headers(bearer, &session);
                let (status, response_headers, _) =
                    net::post(&uri, tool_call(10 + id, "whoami", json!({})), &headers).await;
                out.push((
                    status,
                    response_headers.get("retry-after").map(|v| v.to_str().unwrap().to_owned()),
                ));
            }
            out
        }
    };
    // A burst of two, then refused with a time to wait; listing is not a call.
    let seen = statuses(ada.clone(), "Bearer s3cret", 3).await;
    assert_eq!(seen[..2], [(200, None), (200, None)], "{seen:?}");
    assert_eq!(seen[2], (429, Some("1".to_owned())), "{seen:?}");
    let list = json!({"jsonrpc": "2.0", "id": 99, "method": "tools/list"}).to_string();
    assert_eq!(post(&served.uri, list, &session_headers("Bearer s3cret", &ada)).await.0, 200);
    // Grace's share is her own.
    let seen = statuses(grace, "Bearer t2", 2).await;
    assert_eq!(seen, [(200, None), (200, None)]);
    // A second later Ada may call again.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(statuses(ada, "Bearer s3cret", 1).await, [(200, None)]);
}

/// Two replicas with `--session-store redis://..`: a session made through one is served
/// by the other (#45 item 5).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_made_on_one_replica_is_served_by_another_through_redis() {
    let Some((_redis, url)) = redis_server().await else { return };
    let args = ["--http", "127.0.0.1:0", "--token", "s3cret", "--session-store", &url];
    let (one, two) = (start(&mut serve_command(&args)).await, start(&mut serve_command(&args)).await);
    let session = session_of(&one.uri, "s3cret").await;
    let headers = session_headers("Bearer s3cret", &session);
    let (status, _, body) = net::post(&two.uri, tool_call(7, "whoami", json!({})), &headers).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#"\"name\":\"Ada\""#), "{body}");
    // Without the store, the other replica would not know the session.
    let plain = start(&mut serve_command(&["--http", "127.0.0.1:0", "--token", "s3cret"])).await;
    let (status, _, _) = net::post(&plain.uri, tool_call(8, "whoami", json!({})), &headers).await;
    assert_eq!(status, 404);
}

/// A replica started while its Redis is down starts, answers `/readyz` 503 naming the
/// session store (and refuses new sessions with 503), and is ready, and makes sessions,
/// once a Redis server listens there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_started_while_redis_is_down_becomes_ready_when_it_answers() {
    let Some(binary) = redis_binary() else {
        assert!(std::env::var_os("CI").is_none(), "redis-server is not installed (.ci/run installs it)");
        return;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("redis://127.0.0.1:{port}");
    let args = ["--http", "127.0.0.1:0", "--token", "s3cret", "--session-store", &url];
    let served = start(&mut serve_command(&args)).await;
    let (status, why) = get(&served, "/readyz").await;
    assert_eq!(status, 503, "{why}");
    assert!(why.contains("the session store does not answer"), "{why}");
    let (status, _, _) =
        net::post(&served.uri, initialize_body(), &[("authorization", "Bearer s3cret")]).await;
    assert_eq!(status, 503, "no session this replica alone would know");
    let _redis = redis_server_on(&binary, port).await;
    let mut ready = false;
    for _ in 0..100 {
        if get(&served, "/readyz").await.0 == 200 {
            ready = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(ready, "ready once Redis answers");
    let session = session_of(&served.uri, "s3cret").await;
    assert!(!session.is_empty());
}

/// Legacy-session clients through `deploy/haproxy.cfg` (stickiness learned from the
/// response) and `deploy/nginx.conf` (replicas sharing sessions on Redis), and a
/// 2026-07-28 client through both, three replicas behind each: every call answered (#45
/// item 4).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deploy_configurations_serve_every_client() {
    let args = ["--http", "127.0.0.1:0", "--token", "s3cret"];
    let replica = |args: &[&str]| {
        let mut command = serve_command(args);
        async move { start(&mut command).await }
    };
    let (a, b, c) = (replica(&args).await, replica(&args).await, replica(&args).await);
    let Some(haproxy) = proxy("haproxy.cfg", [&a.uri, &b.uri, &c.uri]).await else { return };
    for modern in [false, true] {
        for _client in 0..3 {
            // A fresh connection per request: the balancer, not the connection, decides.
            let client = connect(&haproxy.uri, Some("s3cret"), modern, true).await.expect("connects");
            for _ in 0..4 {
                assert_eq!(text(&client, "whoami").await, r#"{"id":1,"name":"Ada"}"#);
            }
        }
    }
    // nginx cannot learn a session: the replicas share them on Redis.
    let Some((_redis, url)) = redis_server().await else { return };
    let shared = ["--http", "127.0.0.1:0", "--token", "s3cret", "--session-store", &url];
    let (d, e, f) = (replica(&shared).await, replica(&shared).await, replica(&shared).await);
    let Some(nginx) = proxy("nginx.conf", [&d.uri, &e.uri, &f.uri]).await else { return };
    for modern in [false, true] {
        let client = connect(&nginx.uri, Some("s3cret"), modern, true).await.expect("connects");
        for _ in 0..6 {
            assert_eq!(text(&client, "whoami").await, r#"{"id":1,"name":"Ada"}"#);
        }
    }
}
