//! A scripted Chat Completions server on 127.0.0.1 for the agent tests (also included by
//! example-app's `tests/agent.rs`): it answers `POST /v1/chat/completions` with the next
//! scripted reply (the last one again once the script runs out) and records every
//! request it gets, on any path, with its body parsed as JSON.
#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

/// One scripted answer: an HTTP status and a body.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// The body, sent as `application/json` whatever it holds.
    pub body: String,
}

/// A request as the server got it.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// The request path (`/v1/chat/completions`).
    pub path: String,
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
    /// The body parsed as JSON (`Value::Null` when it is not JSON).
    pub body: Value,
    /// When it arrived.
    pub at: Instant,
}

#[derive(Default)]
struct Script {
    replies: Vec<Reply>,
    requests: Mutex<Vec<Recorded>>,
}

/// The running server: its base URL and what it has been asked.
pub struct Server {
    /// `http://127.0.0.1:PORT/v1`.
    pub base_url: String,
    script: Arc<Script>,
}

impl Server {
    /// Starts a server on a free loopback port that answers with `replies` in order.
    pub async fn start(replies: Vec<Reply>) -> Server {
        let script = Arc::new(Script { replies, ..Script::default() });
        let app = Router::new()
            .route("/v1/chat/completions", post(chat))
            .fallback(not_found)
            .with_state(Arc::clone(&script));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
        let addr = listener.local_addr().expect("its address");
        tokio::spawn(async move { axum::serve(listener, app).await });
        Server { base_url: format!("http://{addr}/v1"), script }
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.script.requests.lock().unwrap().clone()
    }
}

fn record(script: &Script, uri: &Uri, headers: &HeaderMap, body: &[u8]) -> usize {
    let authorization = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let body = serde_json::from_slice(body).unwrap_or(Value::Null);
    let mut requests = script.requests.lock().unwrap();
    requests.push(Recorded { path: uri.path().to_owned(), authorization, body, at: Instant::now() });
    requests.len() - 1
}

async fn chat(State(script): State<Arc<Script>>, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let index = record(&script, &uri, &headers, &body);
    let reply = &script.replies[index.min(script.replies.len() - 1)];
    let status = StatusCode::from_u16(reply.status).expect("a valid status");
    (status, [(header::CONTENT_TYPE, "application/json")], reply.body.clone()).into_response()
}

async fn not_found(State(script): State<Arc<Script>>, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    record(&script, &uri, &headers, &body);
    (StatusCode::NOT_FOUND, "404 page not found").into_response()
}

/// A 200 chat completion whose one choice is `message`.
pub fn completion(message: Value) -> Reply {
    let finish = if message.get("tool_calls").is_some() { "tool_calls" } else { "stop" };
    let body = json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    });
    Reply { status: 200, body: body.to_string() }
}

/// The assistant message asking for `calls`: (id, tool name, arguments JSON text).
pub fn calling(calls: &[(&str, &str, &str)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, arguments)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    json!({"role": "assistant", "content": null, "tool_calls": calls})
}

/// A 200 chat completion asking for `calls`.
pub fn tool_calls(calls: &[(&str, &str, &str)]) -> Reply {
    completion(calling(calls))
}

/// A 200 chat completion answering `text`.
pub fn answer(text: &str) -> Reply {
    completion(json!({"role": "assistant", "content": text}))
}

/// Any status with any body.
pub fn status(status: u16, body: &str) -> Reply {
    Reply { status, body: body.to_owned() }
}
