//! Resumability (MCP 2025-06-18 and 2025-11-25, "Resumability and Redelivery"), over real
//! HTTP: a legacy session's `tools/call` whose SSE stream breaks before the tool answers
//! gets its answer on a GET with `Last-Event-ID`, whether the tool answered while the
//! client was away or answers after it came back; an event id this session keeps no
//! stream for is answered at once (410, 404 for another caller's session, 400 for one
//! this server never gives), and nothing is replayed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Value, json};
use toolcall_mcp::{Caller, McpServer, Rejection, bearer_token};

mod common;
use common::gauge::{GAUGE, Gauge, Stats};
use common::net::{initialize_body, post, serve};

/// The protocol revision the raw client speaks: one with sessions and resumption.
const LEGACY: &str = "2025-06-18";
/// The longest any read here waits: nothing should take close to it.
const WAIT: Duration = Duration::from_secs(10);

/// A server whose callers are Ada and Grace, by bearer token.
fn two_users(stats: &Arc<Stats>) -> McpServer<Gauge> {
    let shared = Arc::clone(stats);
    McpServer::new(&GAUGE, Gauge::new("nobody", stats)).context_from_request(
        move |request| match bearer_token(request) {
            Some("ada-token") => Ok(Caller::new("ada", Gauge::new("ada", &shared))),
            Some("grace-token") => Ok(Caller::new("grace", Gauge::new("grace", &shared))),
            _ => Err(Rejection::unauthorized("send Authorization: Bearer TOKEN")),
        },
    )
}

/// The headers of a request in session `id` as the holder of `token`.
fn in_session<'a>(token: &'a str, id: &'a str) -> [(&'static str, &'a str); 3] {
    [("authorization", token), ("mcp-session-id", id), ("mcp-protocol-version", LEGACY)]
}

/// A legacy session initialized as the holder of `token` (`Bearer ...`).
async fn session_of(uri: &str, token: &str) -> String {
    let (status, headers, text) = post(uri, initialize_body(), &[("authorization", token)]).await;
    assert_eq!(status, 200, "{text}");
    let id = headers["mcp-session-id"].to_str().unwrap().to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let (status, _, _) = post(uri, initialized, &in_session(token, &id)).await;
    assert_eq!(status, 202);
    id
}

/// `tools/call` of `work` (answers the caller's name after `ms`) with JSON-RPC id `id`.
fn work(id: u64, ms: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "work", "arguments": {"ms": ms}}})
    .to_string()
}

/// One SSE event: its `id:` and its `data:`.
#[derive(Debug)]
struct Event {
    id: Option<String>,
    data: String,
}

impl Event {
    /// The JSON-RPC message it carries (none for a priming event).
    fn message(&self) -> Option<Value> {
        serde_json::from_str(&self.data).ok()
    }
}

/// An SSE stream read from a raw response, one event at a time.
struct Sse {
    response: reqwest::Response,
    pending: String,
}

impl Sse {
    fn new(response: reqwest::Response) -> Self {
        assert_eq!(response.status(), 200);
        let kind = response.headers()["content-type"].to_str().unwrap().to_owned();
        assert!(kind.starts_with("text/event-stream"), "{kind}");
        Sse { response, pending: String::new() }
    }

    /// The next event (keep-alive comments skipped); `None` when the stream ended. Fails
    /// the test past [`WAIT`].
    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.pending.find("\n\n") {
                let block: String = self.pending.drain(..end + 2).collect();
                let (mut id, mut data, mut field) = (None, Vec::new(), false);
                for line in block.lines() {
                    if let Some(value) = line.strip_prefix("id:") {
                        id = Some(value.trim_start().to_owned());
                        field = true;
                    } else if let Some(value) = line.strip_prefix("data:") {
                        data.push(value.strip_prefix(' ').unwrap_or(value).to_owned());
                        field = true;
                    } else if line.starts_with("retry:") {
                        field = true;
                    }
                }
                if field {
                    return Some(Event { id, data: data.join("\n") });
                }
                continue;
            }
            let chunk = tokio::time::timeout(WAIT, self.response.chunk())
                .await
                .expect("the stream went quiet without ending")
                .expect("the stream broke");
            match chunk {
                Some(bytes) => self.pending.push_str(std::str::from_utf8(&bytes).unwrap()),
                None => return None,
            }
        }
    }
}

/// POSTs `body` in session `id` on a connection of its own; its SSE stream.
async fn call(uri: &str, token: &str, id: &str, body: String) -> Sse {
    let mut request = reqwest::Client::new()
        .post(uri)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body);
    for (name, value) in in_session(token, id) {
        request = request.header(name, value);
    }
    Sse::new(request.send().await.expect("POST"))
}

/// A GET in session `id` with `Last-Event-ID: last`, on a connection of its own.
async fn resume(uri: &str, token: &str, id: &str, last: &str) -> reqwest::Response {
    let mut request =
        reqwest::Client::new().get(uri).header("accept", "text/event-stream").header("last-event-id", last);
    for (name, value) in in_session(token, id) {
        request = request.header(name, value);
    }
    tokio::time::timeout(WAIT, request.send()).await.expect("an answer in time").expect("GET")
}

/// Waits (up to [`WAIT`]) until `done` holds.
async fn until(what: &str, done: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while !done() {
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting until {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Reads the call's first event (the priming event: an id, no message) and drops the
/// connection; the id.
async fn first_id_then_drop(mut stream: Sse) -> String {
    let priming = stream.next().await.expect("a priming event");
    assert!(priming.message().is_none(), "the first event carries no message: {priming:?}");
    let id = priming.id.expect("the priming event has an id");
    drop(stream);
    id
}

/// Reads a resumed stream to its end; its events.
async fn to_the_end(mut stream: Sse) -> Vec<Event> {
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event);
    }
    events
}

/// The one JSON-RPC response among `events`, checked to answer request `id` with `user`'s
/// name, and the SSE id it came with.
fn answer(events: &[Event], id: u64, user: &str) -> String {
    let answers: Vec<(&Event, Value)> = events
        .iter()
        .filter_map(|e| Some((e, e.message()?)))
        .filter(|(_, m)| m.get("id").is_some())
        .collect();
    assert_eq!(answers.len(), 1, "one response, delivered once: {events:?}");
    let (event, message) = &answers[0];
    assert_eq!(message["id"], id, "{message}");
    assert_ne!(message["result"]["isError"], true, "{message}");
    assert_eq!(message["result"]["content"][0]["text"], user, "{message}");
    event.id.clone().expect("the response has an event id")
}

/// The `N/S` parts of an event id as the server writes them: index `N` in stream `S`.
fn parts(id: &str) -> (u64, &str) {
    let (index, stream) = id.split_once('/').expect("an event id of a request stream");
    (index.parse().unwrap(), stream)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_sent_while_the_client_was_away_is_replayed() {
    let stats = Arc::new(Stats::default());
    let uri = serve(two_users(&stats)).await;
    let (ada, grace) = ("Bearer ada-token", "Bearer grace-token");
    let session = session_of(&uri, ada).await;

    let stream = call(&uri, ada, &session, work(5, 300)).await;
    let last = first_id_then_drop(stream).await;
    let (index, stream_id) = parts(&last);
    assert_eq!(index, 0, "{last}");
    // The call goes on without its client (a disconnect is not a cancellation before
    // 2026-07-28) and answers into the void.
    until("the tool has answered", || {
        stats.calls.load(Ordering::SeqCst) == 1 && stats.live.load(Ordering::SeqCst) == 0
    })
    .await;
    tokio::time::sleep(Duration::from_millis(200)).await;

    // Another caller holding the session id and the event id gets nothing of it.
    let foreign = resume(&uri, grace, &session, &last).await;
    assert_eq!(foreign.status(), 404, "another caller's session does not exist for Grace");

    let resumed = resume(&uri, ada, &session, &last).await;
    let events = to_the_end(Sse::new(resumed)).await;
    let id = answer(&events, 5, "ada");
    assert_eq!(parts(&id), (1, stream_id), "the response is event 1 of the same stream");
    assert_eq!(stats.calls.load(Ordering::SeqCst), 1, "the call ran once");

    // Delivered: the stream is not kept, and a second resume says so at once.
    let again = resume(&uri, ada, &session, &last).await;
    assert_eq!(again.status(), 410);
    let text = again.text().await.unwrap();
    assert!(text.starts_with("Gone:"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_back_before_the_answer_gets_it_on_the_resumed_stream() {
    let stats = Arc::new(Stats::default());
    let uri = serve(two_users(&stats)).await;
    let ada = "Bearer ada-token";
    let session = session_of(&uri, ada).await;

    let stream = call(&uri, ada, &session, work(6, 1500)).await;
    let last = first_id_then_drop(stream).await;
    let resumed = Sse::new(resume(&uri, ada, &session, &last).await);
    assert_eq!(stats.live.load(Ordering::SeqCst), 1, "resumed while the tool still runs");
    let events = to_the_end(resumed).await;
    let id = answer(&events, 6, "ada");
    assert_eq!(parts(&id), (1, parts(&last).1));

    // The session goes on: a call on it is answered on its own POST stream, as before.
    let mut stream = call(&uri, ada, &session, work(7, 0)).await;
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event);
    }
    answer(&events, 7, "ada");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_id_with_no_kept_stream_is_answered_at_once() {
    let stats = Arc::new(Stats::default());
    let uri = serve(two_users(&stats)).await;
    let ada = "Bearer ada-token";
    let first = session_of(&uri, ada).await;
    let second = session_of(&uri, ada).await;

    // A call on the first session, left while it runs.
    let stream = call(&uri, ada, &first, work(8, 1000)).await;
    let last = first_id_then_drop(stream).await;

    // Its event id on the other session of the same caller: event ids belong to their
    // session, and this one keeps no such stream. Nothing is replayed, nothing hangs.
    let foreign = resume(&uri, ada, &second, &last).await;
    assert_eq!(foreign.status(), 410);
    let text = foreign.text().await.unwrap();
    assert!(text.starts_with("Gone:") && text.contains(&last), "{text}");
    // An id of a stream that never was.
    let unknown = resume(&uri, ada, &first, "3/4096").await;
    assert_eq!(unknown.status(), 410);
    // Not an event id this server gives.
    let malformed = resume(&uri, ada, &first, "not-an-event").await;
    assert_eq!(malformed.status(), 400);
    assert!(malformed.text().await.unwrap().starts_with("Bad Request:"));

    // The kept stream is untouched by all of that.
    let events = to_the_end(Sse::new(resume(&uri, ada, &first, &last).await)).await;
    answer(&events, 8, "ada");
}
