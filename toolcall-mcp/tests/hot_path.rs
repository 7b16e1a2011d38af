//! The HTTP layer's hot path (#48): `tools/call` and `tools/list` answered from the
//! request's bytes by the handler, without rmcp's per-request machinery. Over real HTTP:
//! its answers are the ones rmcp's path gives the same request (a request with a param
//! the hot path does not read goes to rmcp, which ignores it), in both lifecycles; a
//! `tools/list` page rendered once is never another caller's; a legacy call that waits
//! runs on its own task and stops on `notifications/cancelled`.
//!
//! Which path answered shows in the framing: the hot path sends an answer that is over at
//! its first poll whole (`Content-Length`; a cheap tool's calls are, once its first few
//! measured it cheap, `crate::inline`), rmcp streams it (chunked), and a legacy hot
//! answer's stream numbers start at 2^48.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Value, json};
use toolcall_fixtures::Ctx;
use toolcall_fixtures::context_toolset::ALL;
use toolcall_mcp::{Caller, McpServer, Rejection, bearer_token};

mod common;
use common::live_becomes;
use common::net::{initialize_body, post, serve};

/// The first stream number of a legacy hot answer.
const HOT_STREAMS: u64 = 1 << 48;

/// More calls than a tool needs to be measured cheap and run inline.
const WARM_UP: u64 = 12;

/// The fixture toolset's server with the context `ctx`, its tools inline once measured
/// (with a budget no cheap call overruns, however loaded the machine).
fn server(ctx: Arc<Ctx>) -> McpServer<Ctx> {
    McpServer::with_shared_context(&ALL, ctx).inline_budget(Duration::from_secs(1))
}

/// One HTTP answer, as the test reads it.
#[derive(Debug)]
struct Answer {
    status: u16,
    /// Whether it came whole (a `Content-Length`), as the hot path sends it.
    whole: bool,
    /// The SSE events' ids, in order (the JSON body of a non-SSE answer has none).
    ids: Vec<String>,
    /// The JSON-RPC message answering the request.
    message: Value,
    /// The headers that say how to take the stream (type, caching, proxy buffering).
    stream_headers: Vec<Option<String>>,
}

/// POSTs `body` with `headers` and reads the answer.
async fn ask(uri: &str, body: &Value, headers: &[(&str, &str)]) -> Answer {
    let (status, response_headers, text) = post(uri, body.to_string(), headers).await;
    let whole = response_headers.contains_key("content-length");
    let stream_headers = ["content-type", "cache-control", "x-accel-buffering"]
        .iter()
        .map(|name| response_headers.get(*name).map(|value| value.to_str().unwrap().to_owned()))
        .collect();
    let mut ids = Vec::new();
    let mut message = Value::Null;
    for event in text.split("\n\n") {
        for line in event.lines() {
            if let Some(id) = line.strip_prefix("id: ") {
                ids.push(id.to_owned());
            } else if let Some(data) = line.strip_prefix("data: ")
                && let Ok(value) = serde_json::from_str::<Value>(data)
                && value.get("id").is_some()
            {
                message = value;
            }
        }
    }
    if message.is_null() {
        message = serde_json::from_str(&text).unwrap_or(Value::Null);
    }
    Answer { status, whole, ids, message, stream_headers }
}

/// A legacy session on `uri` (initialize, initialized) with `extra` headers.
async fn session(uri: &str, extra: &[(&str, &str)]) -> String {
    let (status, headers, text) = post(uri, initialize_body(), extra).await;
    assert_eq!(status, 200, "{text}");
    let id = headers["mcp-session-id"].to_str().unwrap().to_owned();
    let mut with_session = extra.to_vec();
    with_session.extend([("mcp-session-id", id.as_str()), ("mcp-protocol-version", "2025-06-18")]);
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, _, _) = post(uri, initialized.to_string(), &with_session).await;
    assert_eq!(status, 202);
    id
}

/// The `_meta` of a 2026-07-28 request.
fn modern_meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": {},
           "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}})
}

/// A request of `method` with `params`, id `id`.
fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// `params` with a key the hot path does not read (rmcp ignores it): the request then
/// goes through rmcp.
fn through_rmcp(mut params: Value) -> Value {
    params["x-through-rmcp"] = json!(true);
    params
}

/// The requests compared: calls that succeed, fail to decode, name no tool, and the list.
fn compared() -> Vec<(&'static str, Value)> {
    vec![
        ("tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 40}})),
        ("tools/call", json!({"name": "add", "arguments": {"a": "two"}})),
        ("tools/call", json!({"name": "nope", "arguments": {}})),
        ("tools/call", json!({"name": "whoami"})),
        ("tools/list", json!({})),
    ]
}

/// Request `id` of `method` with `params` and `headers`, answered by the hot path (once its
/// tool is warm) and by rmcp: the same message, framed each its way.
async fn hot_and_cold(
    uri: &str,
    id: u64,
    method: &str,
    params: Value,
    headers: &[(&str, &str)],
) -> (Answer, Answer) {
    for _ in 0..WARM_UP {
        ask(uri, &request(id, method, params.clone()), headers).await;
    }
    let hot = ask(uri, &request(id, method, params.clone()), headers).await;
    let cold = ask(uri, &request(id, method, through_rmcp(params)), headers).await;
    assert_eq!(hot.status, 200, "{method} {hot:?}");
    assert!(hot.whole && !cold.whole, "{method}: the hot path answered the first, rmcp the second");
    assert_eq!(hot.message, cold.message, "{method} #{id}");
    assert_eq!(hot.stream_headers, cold.stream_headers, "{method} #{id}");
    (hot, cold)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_hot_answers_are_rmcps() {
    let ctx = Arc::new(Ctx { user: "ada".into(), ..Ctx::default() });
    let uri = serve(server(ctx)).await;
    for (at, (method, params)) in compared().into_iter().enumerate() {
        let mut params = params;
        params["_meta"] = modern_meta();
        let mut headers = vec![("mcp-protocol-version", "2026-07-28"), ("mcp-method", method)];
        let name = params["name"].as_str().map(str::to_owned);
        if let Some(name) = &name {
            headers.push(("mcp-name", name.as_str()));
        }
        let (hot, _) = hot_and_cold(&uri, at as u64 + 1, method, params, &headers).await;
        assert!(hot.ids.is_empty(), "a stateless answer has no event ids");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_hot_answers_are_rmcps_with_their_own_streams() {
    let ctx = Arc::new(Ctx { user: "ada".into(), ..Ctx::default() });
    let uri = serve(server(ctx)).await;
    let id = session(&uri, &[]).await;
    let headers = [("mcp-session-id", id.as_str()), ("mcp-protocol-version", "2025-06-18")];
    for (at, (method, params)) in compared().into_iter().enumerate() {
        let (hot, cold) = hot_and_cold(&uri, at as u64 + 1, method, params, &headers).await;
        // A priming event, then the answer, on a stream no rmcp stream of the session has.
        let stream = hot.ids[0].strip_prefix("0/").and_then(|s| s.parse::<u64>().ok()).unwrap();
        assert!(stream >= HOT_STREAMS, "{:?}", hot.ids);
        assert_eq!(hot.ids, [format!("0/{stream}"), format!("1/{stream}")]);
        assert!(cold.ids.len() == 2 && cold.ids[0].starts_with("0/"), "{:?}", cold.ids);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_can_be_asked_or_wants_progress_goes_through_rmcp() {
    let ctx = Arc::new(Ctx { user: "ada".into(), ..Ctx::default() });
    let uri = serve(server(ctx)).await;
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "raw", "version": "0"}}});
    let (status, headers, _) = post(&uri, initialize.to_string(), &[]).await;
    assert_eq!(status, 200);
    let asking = headers["mcp-session-id"].to_str().unwrap().to_owned();
    let in_session =
        |id: &str| [("mcp-session-id", id.to_owned()), ("mcp-protocol-version", "2025-06-18".into())];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let asking_headers = in_session(&asking);
    let asking_headers: Vec<(&str, &str)> = asking_headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    post(&uri, initialized, &asking_headers).await;
    let call = request(1, "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}}));
    let answer = ask(&uri, &call, &asking_headers).await;
    assert!(!answer.whole, "a client that declared elicitation is asked on rmcp's streams");
    assert_eq!(answer.message["result"]["content"][0]["text"], "3");

    let plain = session(&uri, &[]).await;
    let plain_headers = in_session(&plain);
    let plain_headers: Vec<(&str, &str)> = plain_headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let with_token = request(
        2,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": {"progressToken": 7}}),
    );
    let answer = ask(&uri, &with_token, &plain_headers).await;
    assert!(!answer.whole, "progress rides rmcp's stream");
    assert_eq!(answer.message["result"]["content"][0]["text"], "3");
    for _ in 0..WARM_UP {
        ask(&uri, &call, &plain_headers).await;
    }
    let answer = ask(&uri, &call, &plain_headers).await;
    assert!(answer.whole, "the same call without a token is hot");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_rendered_once_is_never_another_callers() {
    fn ctx(user: &str) -> Ctx {
        Ctx { user: user.into(), ..Ctx::default() }
    }
    let server = McpServer::new(&ALL, ctx("nobody"))
        .context_from_request(|request| match bearer_token(request) {
            Some("ada") => Ok(Caller::new("ada", ctx("ada"))),
            Some("grace") => Ok(Caller::new("grace", ctx("grace"))),
            _ => Err(Rejection::unauthorized("who?")),
        })
        .tool_filter(|ctx: &Ctx, tool| ctx.user == "ada" || tool.name != "add");
    let uri = serve(server).await;
    let names = |answer: &Answer| -> Vec<String> {
        let tools = answer.message["result"]["tools"].as_array().cloned().unwrap_or_default();
        tools.iter().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect()
    };
    let mut seen = Vec::new();
    for round in 0..2 {
        for token in ["ada", "grace"] {
            let bearer = format!("Bearer {token}");
            let mut params = json!({});
            params["_meta"] = modern_meta();
            let headers = [
                ("authorization", bearer.as_str()),
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/list"),
            ];
            let answer = ask(&uri, &request(round, "tools/list", params), &headers).await;
            assert!(answer.whole, "{token}: a hot answer");
            assert_eq!(answer.message["result"]["cacheScope"], "private", "a filtered list is per caller");
            seen.push((token, names(&answer)));
        }
    }
    for (token, names) in &seen {
        assert_eq!(names.contains(&"add".to_owned()), *token == "ada", "{token}: {names:?}");
        assert!(names.contains(&"whoami".to_owned()), "{token}: {names:?}");
    }
    assert_eq!(seen[0], seen[2], "the rendered page is served again");
    assert_eq!(seen[1], seen[3]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_legacy_call_runs_on_and_stops_when_cancelled() {
    let ctx = Arc::new(Ctx { user: "ada".into(), ..Ctx::default() });
    let uri = serve(server(Arc::clone(&ctx))).await;
    let id = session(&uri, &[]).await;
    let headers = [("mcp-session-id", id.clone()), ("mcp-protocol-version", "2025-06-18".to_owned())];
    let call = {
        let (uri, headers) = (uri.clone(), headers.clone());
        tokio::spawn(async move {
            let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
            let body = request(41, "tools/call", json!({"name": "hold"})).to_string();
            post(&uri, body, &headers).await
        })
    };
    assert!(live_becomes(&ctx, 1).await, "the held call runs");
    call.abort();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(ctx.live.load(Ordering::SeqCst), 1, "a legacy client may resume: its call goes on");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 41}});
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let (status, _, _) = post(&uri, cancel.to_string(), &headers).await;
    assert_eq!(status, 202);
    assert!(live_becomes(&ctx, 0).await, "notifications/cancelled dropped the call's future");
}

/// A legacy session starts parked and lives as long as it is used, whoever serves it: rmcp
/// restores it for a request only rmcp serves, and again after its own idle end while the
/// hot path kept the session in use; a session unused for the session idle time ends (404).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_lives_while_used_through_either_path_and_ends_when_idle() {
    use common::WithHttp;
    // Long enough that a call on a loaded machine stays well within one idle time.
    let idle = Duration::from_millis(1500);
    let ctx = Arc::new(Ctx { user: "ada".into(), ..Ctx::default() });
    let uri = serve(server(ctx).with_http(|http| http.session_idle_timeout = idle)).await;
    let id = session(&uri, &[]).await;
    let headers = [("mcp-session-id", id.as_str()), ("mcp-protocol-version", "2025-06-18")];
    let set_level = |n: u64| request(n, "logging/setLevel", json!({"level": "info"}));
    let add = |n: u64| request(n, "tools/call", json!({"name": "add", "arguments": {"a": n, "b": 1}}));
    let answer = ask(&uri, &set_level(2), &headers).await;
    assert_eq!(
        (answer.status, &answer.message["result"]),
        (200, &json!({})),
        "rmcp restored the parked session"
    );
    // Three idle times of calls, each well within one: rmcp's own session idles out meanwhile.
    for n in 3..(3 + 3 * 6) {
        let answer = ask(&uri, &add(n), &headers).await;
        assert_eq!(answer.message["result"]["content"][0]["text"], json!((n + 1).to_string()), "{answer:?}");
        tokio::time::sleep(idle / 6).await;
    }
    let answer = ask(&uri, &set_level(40), &headers).await;
    assert_eq!((answer.status, &answer.message["result"]), (200, &json!({})), "restored again: {answer:?}");
    tokio::time::sleep(idle + idle / 2).await;
    let answer = ask(&uri, &add(41), &headers).await;
    assert_eq!(answer.status, 404, "the session ended after its idle time: {answer:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_parked_sessions_first_requests_to_rmcp_may_arrive_together() {
    // rmcp's session worker takes nothing but the replayed `initialize` first: a client's
    // standalone stream and its requests that reach rmcp together while rmcp restores a
    // parked session (as the TypeScript client sends them, on open connections) take turns.
    // Without the turns this failed within its rounds: 500, "Session service terminated".
    let ctx = Arc::new(Ctx { user: "ada".into(), ..Ctx::default() });
    let uri = serve(server(ctx)).await;
    let client = reqwest::Client::new();
    let send = |id: &str, request: reqwest::RequestBuilder| {
        let request = request
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-session-id", id)
            .header("mcp-protocol-version", "2025-06-18");
        tokio::spawn(async move { request.send().await.map(|response| response.status().as_u16()) })
    };
    for round in 0..40 {
        let id = session(&uri, &[]).await;
        // Connections open in the client's pool, by requests the hot path answers.
        let list = request(1, "tools/list", json!({})).to_string();
        let warm: Vec<_> = (0..9).map(|_| send(&id, client.post(&uri).body(list.clone()))).collect();
        for warm in warm {
            assert_eq!(warm.await.unwrap().unwrap(), 200);
        }
        let stream = send(&id, client.get(&uri));
        let asks: Vec<_> = (0..8)
            .map(|n| send(&id, client.post(&uri).body(request(n, "ping", json!({})).to_string())))
            .collect();
        assert_eq!(stream.await.unwrap().unwrap(), 200, "round {round}: the standalone stream");
        for ask in asks {
            assert_eq!(ask.await.unwrap().unwrap(), 200, "round {round}: a ping");
        }
    }
}
