//! Any bytes as one HTTP request to toolcall-mcp's streamable-HTTP router (example-app's
//! tools, bearer tokens as `example-app serve --token` signs users in): the head's
//! `Name: value` lines up to the first empty line (lines that are not headers are
//! skipped), then the body. The request always goes to `POST /mcp` with MCP's content
//! type and accept headers unless the input gives its own. The server must answer
//! every request with a status and a body that ends, never panic or hang; a 2xx
//! JSON answer must be JSON-RPC 2.0, and nothing but 2xx, 4xx and 5xx comes back.
#![no_main]

use std::sync::LazyLock;
use std::time::Duration;

use axum::body::Body;
use libfuzzer_sys::fuzz_target;
use toolcall_mcp::http::{HeaderName, HeaderValue, Method, Request};
use toolcall_mcp::{Caller, McpServer, Rejection, bearer_token};
use toolcall_runtime::serde_json::{self, Value};
use tower::ServiceExt;

use example_app::models::Role;

#[path = "mcp_common.rs"]
mod common;
use common::{RUNTIME, STORE, app};

/// One router for the run: sessions a request creates stay, as on a real server.
static ROUTER: LazyLock<axum::Router> = LazyLock::new(|| {
    McpServer::new(&example_app::toolset::ALL, app(1, "Ada", Role::default()))
        .timeout(Duration::from_secs(2))
        .context_from_request(move |request| match bearer_token(request) {
            Some("s3cret") => Ok(Caller::new("1", app(1, "Ada", Role::default()))),
            Some("t2") => Ok(Caller::new("2", app(2, "Grace", Role::Viewer))),
            _ => Err(Rejection::unauthorized("unknown token")),
        })
        .router()
        .expect("example-app's definitions parse")
});

fuzz_target!(|data: &[u8]| {
    let request = request_of(data);
    RUNTIME.block_on(async {
        STORE.reset().await.expect("the store resets");
        let answer = async {
            let response = ROUTER.clone().oneshot(request).await.expect("the router is infallible");
            let status = response.status();
            let json = response
                .headers()
                .get("content-type")
                .is_some_and(|value| value.as_bytes().starts_with(b"application/json"));
            let body = axum::body::to_bytes(response.into_body(), 64 << 20).await;
            (status, json, body)
        };
        let (status, json, body) =
            tokio::time::timeout(Duration::from_secs(20), answer).await.expect("an answer within 20 s");
        assert!(status.is_success() || status.is_client_error() || status.is_server_error(), "{status}");
        let Ok(body) = body else { return };
        if status.is_success() && json && !body.is_empty() {
            let message: Value = serde_json::from_slice(&body).unwrap_or_else(|e| {
                panic!("a 2xx JSON answer that is not JSON ({e}): {}", String::from_utf8_lossy(&body))
            });
            let messages = message.as_array().cloned().unwrap_or_else(|| vec![message]);
            for message in messages {
                assert_eq!(message["jsonrpc"], "2.0", "{message}");
            }
        }
    });
});

/// The request the input stands for: its header lines, then its body.
fn request_of(data: &[u8]) -> Request<Body> {
    let split = data.windows(2).position(|w| w == b"\n\n");
    let (head, body) = match split {
        Some(at) => (&data[..at], &data[at + 2..]),
        None => (&[][..], data),
    };
    let mut request = Request::builder()
        .method(Method::POST)
        .uri("http://localhost/mcp")
        .body(Body::from(body.to_vec()))
        .expect("a fixed request head is valid");
    let headers = request.headers_mut();
    headers.insert("host", HeaderValue::from_static("localhost"));
    headers.insert("content-type", HeaderValue::from_static("application/json"));
    headers.insert("accept", HeaderValue::from_static("application/json, text/event-stream"));
    // The input's first line of each default header replaces it; later ones add to it.
    let mut replaced: Vec<HeaderName> = Vec::new();
    for line in head.split(|&b| b == b'\n') {
        let Some(colon) = line.iter().position(|&b| b == b':') else { continue };
        let (Ok(name), Ok(value)) =
            (HeaderName::from_bytes(&line[..colon]), HeaderValue::from_bytes(line[colon + 1..].trim_ascii()))
        else {
            continue;
        };
        if name == "method" {
            if let Ok(method) = Method::from_bytes(value.as_bytes()) {
                *request.method_mut() = method;
            }
            continue;
        }
        let default = ["host", "content-type", "accept"].contains(&name.as_str());
        if default && !replaced.contains(&name) {
            replaced.push(name.clone());
            request.headers_mut().insert(name, value);
        } else {
            request.headers_mut().append(name, value);
        }
    }
    request
}
