//! The HTTP server against what an attacker would try (#29), over real HTTP on 127.0.0.1,
//! with raw sockets where a client library would hide the attack: sessions bound to the
//! identity that created them, connection time limits from the first byte and before
//! authentication, an early 413 for `Expect: 100-continue`, caps on connections, sessions
//! and streams, two `Host` headers, DELETE of a deleted session. Time limits are set
//! short here; the defaults are asserted once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::AsyncWriteExt;
use toolcall_mcp::{Caller, McpServer, Rejection, bearer_token};

mod common;

use common::WithHttp;
use common::gauge::{GAUGE, Gauge, Stats};
use common::net::{Client, Era, call, initialize_body, post, post_head, raw, read_for, read_until, serve};
use toolcall_mcp::HttpSettings;

/// Ada and Grace sign in with their tokens; anyone else is unauthorized.
fn two_users(stats: &Arc<Stats>) -> McpServer<Gauge> {
    let shared = Arc::clone(stats);
    McpServer::new(&GAUGE, Gauge::new("local", stats)).context_from_request(
        move |request| match bearer_token(request) {
            Some("ada-token") => Ok(Caller::new("ada", Gauge::new("ada", &shared))),
            Some("grace-token") => Ok(Caller::new("grace", Gauge::new("grace", &shared))),
            _ => Err(Rejection::unauthorized("send Authorization: Bearer TOKEN")),
        },
    )
}

/// A legacy session initialized with `token` (and its `notifications/initialized`).
async fn session_of(uri: &str, token: &str) -> String {
    let bearer = format!("Bearer {token}");
    let (status, headers, text) = post(uri, initialize_body(), &[("authorization", &bearer)]).await;
    assert_eq!(status, 200, "{text}");
    let id = headers.get("mcp-session-id").expect("a session").to_str().unwrap().to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let (status, _, _) = post(uri, initialized, &in_session(&bearer, &id)).await;
    assert_eq!(status, 202);
    id
}

fn in_session<'a>(bearer: &'a str, id: &'a str) -> [(&'static str, &'a str); 3] {
    [("authorization", bearer), ("mcp-session-id", id), ("mcp-protocol-version", "2025-06-18")]
}

/// A GET (an SSE stream) on session `id`; the response, kept to keep the stream open.
async fn get(uri: &str, bearer: &str, id: &str, last_event: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new().get(uri).header("accept", "text/event-stream");
    for (name, value) in in_session(bearer, id) {
        request = request.header(name, value);
    }
    if let Some(last) = last_event {
        request = request.header("last-event-id", last);
    }
    request.send().await.expect("GET")
}

async fn delete(uri: &str, bearer: &str, id: &str) -> u16 {
    let mut request = reqwest::Client::new().delete(uri);
    for (name, value) in in_session(bearer, id) {
        request = request.header(name, value);
    }
    request.send().await.expect("DELETE").status().as_u16()
}

fn whoami() -> String {
    json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "whoami"}}).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_identity_finds_no_session_by_any_method() {
    let stats = Arc::new(Stats::default());
    let uri = serve(two_users(&stats)).await;
    let ada = session_of(&uri, "ada-token").await;
    let (grace, mallory) = ("Bearer grace-token", "Bearer ada-token");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}});
    for body in [whoami(), cancel.to_string(), initialize_body()] {
        let (status, _, text) = post(&uri, body, &in_session(grace, &ada)).await;
        assert_eq!((status, text.as_str()), (404, "Not Found: Session not found"));
    }
    let stream = get(&uri, grace, &ada, None).await;
    assert_eq!(stream.status(), 404);
    let resumed = get(&uri, grace, &ada, Some("0")).await;
    assert_eq!(resumed.status(), 404, "no replay of Ada's events");
    assert_eq!(delete(&uri, grace, &ada).await, 404);
    assert_eq!(stats.calls.load(Ordering::SeqCst), 0);
    // Ada's session is untouched.
    let (status, _, text) = post(&uri, whoami(), &in_session(mallory, &ada)).await;
    assert_eq!(status, 200);
    assert!(text.contains(r#""text":"ada""#), "{text}");
    let stream = get(&uri, mallory, &ada, None).await;
    assert_eq!(stream.status(), 200);
    drop(stream);
    // Ada ends it (204: it is gone, not queued to go); a second DELETE finds nothing.
    assert_eq!(delete(&uri, mallory, &ada).await, 204);
    assert_eq!(delete(&uri, mallory, &ada).await, 404);
    let (status, _, _) = post(&uri, whoami(), &in_session(mallory, &ada)).await;
    assert_eq!(status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_standalone_stream_per_session() {
    let stats = Arc::new(Stats::default());
    let uri = serve(two_users(&stats)).await;
    let ada = session_of(&uri, "ada-token").await;
    let bearer = "Bearer ada-token";
    let first = get(&uri, bearer, &ada, None).await;
    assert_eq!(first.status(), 200);
    let second = get(&uri, bearer, &ada, None).await;
    assert_eq!(second.status(), 409);
    assert!(second.text().await.unwrap().starts_with("Conflict"));
    // Calls go on beside the stream.
    let (status, _, _) = post(&uri, whoami(), &in_session(bearer, &ada)).await;
    assert_eq!(status, 200);
    drop(first);
    // The server notices the closed stream when it next writes to it; wait for that.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let again = get(&uri, bearer, &ada, None).await;
        if again.status() == 200 {
            break;
        }
        assert_eq!(again.status(), 409);
        assert!(Instant::now() < deadline, "the closed stream was never released");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A server with short connection time limits.
fn quick(stats: &Arc<Stats>) -> McpServer<Gauge> {
    two_users(stats)
        .with_http(|http| http.header_timeout = Duration::from_millis(300))
        .with_http(|http| http.body_timeout = Duration::from_millis(300))
        .with_http(|http| http.idle_timeout = Duration::from_millis(300))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_and_silent_connections_are_closed_before_authentication() {
    let stats = Arc::new(Stats::default());
    let uri = serve(quick(&stats)).await;
    let generous = Duration::from_secs(5);

    // Connected, nothing sent.
    let mut silent = raw(&uri).await;
    let begun = Instant::now();
    let (_, closed) = read_for(&mut silent, generous).await;
    assert!(closed && begun.elapsed() < Duration::from_secs(4), "silent: {:?}", begun.elapsed());

    // A head that never ends, one header every 100 ms.
    let mut slow = raw(&uri).await;
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n").await.unwrap();
    let begun = Instant::now();
    let mut closed = false;
    for i in 0..40 {
        if slow.write_all(format!("X-Slow-{i}: 1\r\n").as_bytes()).await.is_err() {
            closed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let closed = closed || read_for(&mut slow, generous).await.1;
    assert!(closed && begun.elapsed() < Duration::from_secs(4), "slow head: {:?}", begun.elapsed());

    // A body shorter than its Content-Length (no token: the head alone is refused 401 and
    // the body is never waited for).
    let mut short = raw(&uri).await;
    short.write_all(post_head(100, &[]).as_bytes()).await.unwrap();
    short.write_all(b"{\"jsonrpc\"").await.unwrap();
    let (response, closed) = read_for(&mut short, generous).await;
    assert!(response.starts_with("HTTP/1.1 401"), "{response}");
    assert!(closed, "a refused request's connection is closed");

    // The same, signed in: 408 once the body limit passes.
    let mut short = raw(&uri).await;
    short.write_all(post_head(100, &["Authorization: Bearer ada-token"]).as_bytes()).await.unwrap();
    short.write_all(b"{\"jsonrpc\"").await.unwrap();
    let begun = Instant::now();
    let (response, closed) = read_for(&mut short, generous).await;
    assert!(response.starts_with("HTTP/1.1 408 Request Timeout"), "{response}");
    assert!(closed && begun.elapsed() < Duration::from_secs(4));

    // An endless chunked body.
    let mut endless = raw(&uri).await;
    let head = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ada-token\r\n\
                Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
                Transfer-Encoding: chunked\r\n\r\n";
    endless.write_all(head.as_bytes()).await.unwrap();
    let writer = tokio::spawn(async move {
        loop {
            if endless.write_all(b"1\r\n \r\n").await.is_err() {
                return endless;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    let mut endless =
        tokio::time::timeout(generous, writer).await.expect("the server stopped reading").unwrap();
    let (response, _) = read_for(&mut endless, Duration::from_millis(500)).await;
    assert!(response.is_empty() || response.starts_with("HTTP/1.1 408"), "{response}");

    // An idle keep-alive connection after a whole request.
    let mut idle = raw(&uri).await;
    let body = initialize_body();
    idle.write_all(post_head(body.len(), &["Authorization: Bearer ada-token"]).as_bytes()).await.unwrap();
    idle.write_all(body.as_bytes()).await.unwrap();
    let response = read_until(&mut idle, "result", generous).await;
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    let begun = Instant::now();
    let (_, closed) = read_for(&mut idle, generous).await;
    assert!(closed && begun.elapsed() < Duration::from_secs(4), "idle: {:?}", begun.elapsed());

    // Real clients are served meanwhile, and nothing ran for the attackers.
    let client = Client::new(&uri, Era::Stateless).token("grace-token").connect().await.unwrap();
    assert_eq!(call(&client, "whoami", json!({})).await, Ok("grace".into()));
    assert_eq!(stats.calls.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_call_is_not_cut_by_the_idle_limit() {
    let stats = Arc::new(Stats::default());
    let uri = serve(quick(&stats)).await;
    let client = Client::new(&uri, Era::Legacy).token("ada-token").connect().await.unwrap();
    assert_eq!(call(&client, "work", json!({"ms": 1500})).await, Ok("ada".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expect_continue_past_the_limit_is_413_at_once() {
    let stats = Arc::new(Stats::default());
    let uri = serve(two_users(&stats)).await;
    let mut socket = raw(&uri).await;
    let head = post_head(5 << 30, &["Authorization: Bearer ada-token", "Expect: 100-continue"]);
    socket.write_all(head.as_bytes()).await.unwrap();
    let (response, closed) = read_for(&mut socket, Duration::from_secs(5)).await;
    assert!(response.starts_with("HTTP/1.1 413 Payload Too Large"), "{response}");
    assert!(!response.contains("100 Continue"), "{response}");
    assert!(response.contains("request body exceeds 4194304 bytes"), "{response}");
    assert!(closed);
    // Within the limit, the client is told to go on.
    let mut socket = raw(&uri).await;
    let body = initialize_body();
    let head = post_head(body.len(), &["Authorization: Bearer ada-token", "Expect: 100-continue"]);
    socket.write_all(head.as_bytes()).await.unwrap();
    let response = read_until(&mut socket, "100 Continue", Duration::from_secs(5)).await;
    assert!(response.starts_with("HTTP/1.1 100 Continue"), "{response}");
    socket.write_all(body.as_bytes()).await.unwrap();
    let response = read_until(&mut socket, "result", Duration::from_secs(5)).await;
    assert!(response.contains("HTTP/1.1 200"), "{response}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_host_headers_are_a_bad_request() {
    let stats = Arc::new(Stats::default());
    let uri = serve(McpServer::new(&GAUGE, Gauge::new("local", &stats))).await;
    let body = initialize_body();
    for extra in ["Host: evil.example", "Host: localhost", "Mcp-Session-Id: a\r\nMcp-Session-Id: b"] {
        let mut socket = raw(&uri).await;
        socket.write_all(post_head(body.len(), &[extra]).as_bytes()).await.unwrap();
        socket.write_all(body.as_bytes()).await.unwrap();
        let (response, _) = read_for(&mut socket, Duration::from_secs(2)).await;
        assert!(response.starts_with("HTTP/1.1 400 Bad Request"), "{extra}: {response}");
        assert!(response.contains("more than one"), "{response}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_past_the_cap_get_503_and_the_rest_are_served() {
    let stats = Arc::new(Stats::default());
    let uri =
        serve(McpServer::new(&GAUGE, Gauge::new("local", &stats)).with_http(|http| http.max_connections = 4))
            .await;
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(raw(&uri).await);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut extra = raw(&uri).await;
    let (response, closed) = read_for(&mut extra, Duration::from_secs(2)).await;
    assert!(response.starts_with("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1"), "{response}");
    assert!(closed);
    drop(held);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let client = Client::new(&uri, Era::Stateless).connect().await.unwrap();
    assert_eq!(call(&client, "whoami", json!({})).await, Ok("local".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_session_cap_the_oldest_idle_session_makes_room() {
    let stats = Arc::new(Stats::default());
    let uri = serve(two_users(&stats).with_http(|http| http.max_sessions = 3)).await;
    let bearer = "Bearer ada-token";
    let mut ids = Vec::new();
    for _ in 0..5 {
        ids.push(session_of(&uri, "ada-token").await);
    }
    for (i, id) in ids.iter().enumerate() {
        let (status, _, _) = post(&uri, whoami(), &in_session(bearer, id)).await;
        assert_eq!(status, if i < 2 { 404 } else { 200 }, "session {i}");
    }
    // Every session busy (a stream open in each): a new one is refused, 503.
    let mut streams = Vec::new();
    for id in &ids[2..] {
        let stream = get(&uri, bearer, id, None).await;
        assert_eq!(stream.status(), 200);
        streams.push(stream);
    }
    let (status, headers, text) = post(&uri, initialize_body(), &[("authorization", bearer)]).await;
    assert_eq!(status, 503, "{text}");
    assert_eq!(headers.get("retry-after").unwrap(), "5");
    assert!(headers.get("mcp-session-id").is_none());
    drop(streams);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_identitys_flood_closes_only_its_own_sessions() {
    let stats = Arc::new(Stats::default());
    let uri = serve(
        two_users(&stats)
            .with_http(|http| http.max_sessions = 3)
            .with_http(|http| http.max_sessions_per_identity = 2),
    )
    .await;
    let grace = session_of(&uri, "grace-token").await;
    let ada = "Bearer ada-token";
    let mut ids = Vec::new();
    for _ in 0..10 {
        ids.push(session_of(&uri, "ada-token").await);
    }
    // Without a cap per identity, the server's cap would have closed Grace's session,
    // the least recently used one, at Ada's third.
    let (status, _, text) = post(&uri, whoami(), &in_session("Bearer grace-token", &grace)).await;
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("grace"), "{text}");
    for (i, id) in ids.iter().enumerate() {
        let (status, _, _) = post(&uri, whoami(), &in_session(ada, id)).await;
        assert_eq!(status, if i < 8 { 404 } else { 200 }, "Ada's session {i}");
    }
    // Both of Ada's sessions busy: her next one is refused, 429, and Grace is still served.
    let mut streams = Vec::new();
    for id in &ids[8..] {
        let stream = get(&uri, ada, id, None).await;
        assert_eq!(stream.status(), 200);
        streams.push(stream);
    }
    let (status, headers, text) = post(&uri, initialize_body(), &[("authorization", ada)]).await;
    assert_eq!(status, 429, "{text}");
    assert_eq!(headers.get("retry-after").unwrap(), "5");
    assert!(headers.get("mcp-session-id").is_none());
    let again = session_of(&uri, "grace-token").await;
    let (status, _, _) = post(&uri, whoami(), &in_session("Bearer grace-token", &again)).await;
    assert_eq!(status, 200);
    drop(streams);
}

/// #29's flood: thousands of `initialize` at the default cap; the server keeps answering
/// and a new client works right after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_initialize_flood_leaves_the_server_serving() {
    let stats = Arc::new(Stats::default());
    let uri = serve(McpServer::new(&GAUGE, Gauge::new("local", &stats))).await;
    let http = reqwest::Client::new();
    let mut tasks = Vec::new();
    for worker in 0..8 {
        let (http, uri) = (http.clone(), uri.clone());
        tasks.push(tokio::spawn(async move {
            let mut ok = 0;
            for _ in 0..(1_500 / 8) {
                let response = http
                    .post(&uri)
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .body(initialize_body())
                    .send()
                    .await
                    .expect("answered");
                ok += usize::from(response.status() == 200);
                let _ = response.bytes().await;
            }
            (worker, ok)
        }));
    }
    let mut answered = 0;
    for task in tasks {
        answered += task.await.unwrap().1;
    }
    assert_eq!(answered, 8 * (1_500 / 8), "every initialize answered 200: old idle sessions made room");
    let client = Client::new(&uri, Era::Legacy).connect().await.unwrap();
    assert_eq!(call(&client, "whoami", json!({})).await, Ok("local".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_defaults() {
    assert_eq!(HttpSettings::default().header_timeout, Duration::from_secs(10));
    assert_eq!(HttpSettings::default().body_timeout, Duration::from_secs(30));
    assert_eq!(HttpSettings::default().idle_timeout, Duration::from_secs(60));
    assert_eq!(HttpSettings::default().max_sessions, 1000);
    assert_eq!(HttpSettings::default().max_sessions_per_identity, 100);
    assert_eq!(HttpSettings::default().max_connections, 512);
    assert_eq!(HttpSettings::default().body_limit, 4 << 20);
}

/// A timed-out call's result carries the error's JSON object, like every error result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_result_carries_its_json() {
    let stats = Arc::new(Stats::default());
    let uri =
        serve(McpServer::new(&GAUGE, Gauge::new("local", &stats)).timeout(Duration::from_millis(200))).await;
    let client = Client::new(&uri, Era::Stateless).connect().await.unwrap();
    let params = rmcp::model::CallToolRequestParams::new("work")
        .with_arguments(json!({"ms": 5000}).as_object().cloned().unwrap());
    let result = client.call_tool(params).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(result.content.len(), 1, "the message is said once");
    assert_eq!(result.structured_content, None);
    let json: serde_json::Value = toolcall_mcp::error_json(&result).cloned().unwrap();
    assert_eq!(json["error"], "timeout");
    assert_eq!(json["tool"], "work");
    assert_eq!(json["limit_ms"], 200);
    assert_eq!(json["started"], true);
}

/// A large body of many small values is refused before it is parsed; a large body of few
/// values is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_of_too_many_json_values_is_413_before_parsing() {
    let stats = Arc::new(Stats::default());
    let uri = serve(
        McpServer::new(&GAUGE, Gauge::new("local", &stats)).with_http(|http| http.max_json_values = 1000),
    )
    .await;
    let client = Client::new(&uri, Era::Legacy).connect().await.unwrap();
    let many = vec![0; 40_000];
    let refused = call(&client, "whoami", json!({"pad": many})).await;
    assert!(refused.is_err(), "{refused:?}");
    let (status, _, text) = post(
        &uri,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "whoami", "arguments": {"pad": vec![0; 40_000]}}}).to_string(),
        &[],
    )
    .await;
    assert_eq!(status, 413);
    assert!(text.contains("JSON values or more; the limit is 1000"), "{text}");
    let few = "x".repeat(200_000);
    assert_eq!(call(&client, "whoami", json!({"pad": few})).await, Ok("local".into()));
    assert_eq!(stats.calls.load(Ordering::SeqCst), 1);
}
