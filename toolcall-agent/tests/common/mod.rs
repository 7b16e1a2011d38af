//! A scripted model server on 127.0.0.1 for the agent tests (also included by
//! example-app's `tests/agent.rs`): it answers `POST /v1/chat/completions` (OpenAI Chat
//! Completions), `/v1/responses` (OpenAI Responses), `/v1/messages` (Anthropic) and
//! `/v1beta/models/MODEL:generateContent` or `:streamGenerateContent` (Gemini) with the
//! next scripted reply (the last one again once the script runs out), anything else with
//! 404, and records every request it gets, on any path, with its body parsed as JSON.
//! The reply builders below make bodies shaped as each provider documents them.
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

/// One scripted answer: an HTTP status, a body and its content type.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// The body, sent as it is.
    pub body: String,
    /// `application/json`, or `text/event-stream` for a stream.
    pub content_type: &'static str,
    /// More headers to send (`retry-after`, rate-limit headers).
    pub headers: Vec<(&'static str, String)>,
}

impl Reply {
    /// The same reply with header `name: value`.
    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Reply {
        self.headers.push((name, value.into()));
        self
    }
}

/// A request as the server got it.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// The request path (`/v1/chat/completions`).
    pub path: String,
    /// The query string ("" when none).
    pub query: String,
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
    /// Every header, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON (`Value::Null` when it is not JSON).
    pub body: Value,
    /// The body's text, as sent.
    pub raw: String,
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
    /// `http://127.0.0.1:PORT/v1beta` (Gemini's).
    pub gemini_url: String,
    script: Arc<Script>,
}

impl Server {
    /// Starts a server on a free loopback port that answers with `replies` in order.
    pub async fn start(replies: Vec<Reply>) -> Server {
        let script = Arc::new(Script { replies, ..Script::default() });
        let app = Router::new()
            .route("/v1/chat/completions", post(scripted))
            .route("/v1/responses", post(scripted))
            .route("/v1/messages", post(scripted))
            .route("/v1beta/models/{action}", post(scripted))
            .fallback(not_found)
            .with_state(Arc::clone(&script));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
        let addr = listener.local_addr().expect("its address");
        tokio::spawn(async move { axum::serve(listener, app).await });
        Server { base_url: format!("http://{addr}/v1"), gemini_url: format!("http://{addr}/v1beta"), script }
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.script.requests.lock().unwrap().clone()
    }
}

impl Recorded {
    /// The header `name` (lower case), if it was sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

fn record(script: &Script, uri: &Uri, headers: &HeaderMap, body: &[u8]) -> usize {
    let authorization = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let raw = String::from_utf8_lossy(body).into_owned();
    let body = serde_json::from_slice(body).unwrap_or(Value::Null);
    let all = headers
        .iter()
        .map(|(name, value)| {
            (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned())
        })
        .collect();
    let query = uri.query().unwrap_or_default().to_owned();
    let mut requests = script.requests.lock().unwrap();
    let path = uri.path().to_owned();
    requests.push(Recorded { path, query, authorization, headers: all, body, raw, at: Instant::now() });
    requests.len() - 1
}

async fn scripted(State(script): State<Arc<Script>>, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let index = record(&script, &uri, &headers, &body);
    let reply = &script.replies[index.min(script.replies.len() - 1)];
    let status = StatusCode::from_u16(reply.status).expect("a valid status");
    let mut response =
        (status, [(header::CONTENT_TYPE, reply.content_type)], reply.body.clone()).into_response();
    for (name, value) in &reply.headers {
        let value = axum::http::HeaderValue::from_str(value).expect("a header value");
        response.headers_mut().insert(*name, value);
    }
    response
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
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    });
    json_reply(body)
}

/// A 200 JSON reply.
pub fn json_reply(body: Value) -> Reply {
    Reply { status: 200, body: body.to_string(), content_type: "application/json", headers: Vec::new() }
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
    Reply { status, body: body.to_owned(), content_type: "application/json", headers: Vec::new() }
}

/// A 200 `text/event-stream` of `events`: (event name or none, data).
pub fn sse(events: &[(Option<&str>, Value)]) -> Reply {
    let mut body = String::new();
    for (name, data) in events {
        if let Some(name) = name {
            body.push_str(&format!("event: {name}\n"));
        }
        body.push_str(&format!("data: {data}\n\n"));
    }
    Reply { status: 200, body, content_type: "text/event-stream", headers: Vec::new() }
}

/// OpenAI Responses: a completed response with `output` items and usage.
pub fn response(output: Vec<Value>, input_tokens: u64, output_tokens: u64) -> Reply {
    json_reply(json!({
        "id": "resp_1",
        "object": "response",
        "created_at": 1_741_476_542,
        "status": "completed",
        "error": null,
        "incomplete_details": null,
        "model": "gpt-4.1-2025-04-14",
        "output": output,
        "parallel_tool_calls": true,
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens,
        },
    }))
}

/// A Responses `function_call` output item.
pub fn function_call(call_id: &str, name: &str, arguments: &str) -> Value {
    json!({"type": "function_call", "id": format!("fc_{call_id}"), "call_id": call_id, "name": name, "arguments": arguments, "status": "completed"})
}

/// A Responses `message` output item with one `output_text` part.
pub fn output_message(text: &str) -> Value {
    json!({"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}]})
}

/// Anthropic: a message with `content` blocks and usage.
pub fn message(content: Vec<Value>, input_tokens: u64, output_tokens: u64) -> Reply {
    let stop = if content.iter().any(|b| b["type"] == "tool_use") { "tool_use" } else { "end_turn" };
    json_reply(json!({
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": null,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }))
}

/// An Anthropic `tool_use` block.
pub fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

/// An Anthropic `text` block.
pub fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// Gemini: a response whose one candidate has `parts`, with usage metadata.
pub fn candidate(parts: Vec<Value>, prompt_tokens: u64, candidates_tokens: u64) -> Reply {
    json_reply(json!({
        "candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": candidates_tokens,
            "totalTokenCount": prompt_tokens + candidates_tokens,
        },
        "modelVersion": "gemini-2.5-flash",
        "responseId": "resp-1",
    }))
}

/// A Gemini `functionCall` part (no id, as the Developer API sends them).
pub fn function_call_part(name: &str, args: Value) -> Value {
    json!({"functionCall": {"name": name, "args": args}})
}

/// A reply of `provider` asking for `calls` (id, tool name, arguments JSON text), counting
/// 10 tokens in and 5 out (Gemini's calls have no ids: the agent makes them).
pub fn provider_calls(provider: toolcall_agent::Provider, calls: &[(&str, &str, &str)]) -> Reply {
    use toolcall_agent::Provider;
    let object = |args: &str| serde_json::from_str::<Value>(args).unwrap();
    match provider {
        Provider::OpenAi => tool_calls(calls),
        Provider::OpenAiResponses => {
            response(calls.iter().map(|(id, name, args)| function_call(id, name, args)).collect(), 10, 5)
        }
        Provider::Anthropic => {
            message(calls.iter().map(|(id, name, args)| tool_use(id, name, object(args))).collect(), 10, 5)
        }
        Provider::Gemini => candidate(
            calls.iter().map(|(_, name, args)| function_call_part(name, object(args))).collect(),
            10,
            5,
        ),
    }
}

/// A reply of `provider` answering `text`, counting 10 tokens in and 5 out.
pub fn provider_text(provider: toolcall_agent::Provider, text: &str) -> Reply {
    use toolcall_agent::Provider;
    match provider {
        Provider::OpenAi => answer(text),
        Provider::OpenAiResponses => response(vec![output_message(text)], 10, 5),
        Provider::Anthropic => message(vec![text_block(text)], 10, 5),
        Provider::Gemini => candidate(vec![json!({"text": text})], 10, 5),
    }
}

impl Server {
    /// The base URL `provider` is given: Gemini's `/v1beta`, the others' `/v1`.
    pub fn url_for(&self, provider: toolcall_agent::Provider) -> String {
        match provider {
            toolcall_agent::Provider::Gemini => self.gemini_url.clone(),
            _ => self.base_url.clone(),
        }
    }
}
