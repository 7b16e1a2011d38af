//! What an idle legacy session holds on the server: sessions opened over HTTP on
//! 127.0.0.1 as toolcall-bench's load test opens them (`examples/mcp_load.rs`, "idle
//! sessions": `initialize`, `notifications/initialized`, one `tools/call` each) and left
//! open, and the heap bytes the process holds for them, counted by a global allocator
//! wrapper (deterministic, unlike the load test's resident size). One test in this
//! binary, so nothing else allocates meanwhile.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::alloc::System;
use std::time::Duration;

use serde_json::json;
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};
use toolcall_mcp::McpServer;

mod common;
use common::net::{initialize_body, post_with, serve};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Sessions opened for the count.
const SESSIONS: usize = 400;

/// The most heap an idle legacy session may hold, in bytes: 3,757 measured (bytes asked
/// of the allocator, so the same from run to run, unlike the pages resident), with room
/// for a field or two, not for a second buffer or rmcp's session machinery (60-80 KiB).
/// It was 11,947 while the hot path kept the client's `initialize` params as a slice of
/// the request's body, itself a slice of the connection's 8 KiB read buffer, which each
/// parked session then held whole; the params are copied out now (`hot.rs`).
const MAX_BYTES_PER_SESSION: isize = 6 * 1024;

/// The bytes the process's heap holds now.
fn live_bytes() -> isize {
    let stats = GLOBAL.stats();
    stats.bytes_allocated as isize - stats.bytes_deallocated as isize + stats.bytes_reallocated
}

/// The heap once the server's tasks have settled (answers written and dropped): read
/// until two readings 50 ms apart agree.
async fn settled_bytes() -> isize {
    let mut last = live_bytes();
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let now = live_bytes();
        if now == last {
            return now;
        }
        last = now;
    }
    last
}

/// Opens one legacy session on `uri` as the load test does; its id.
async fn open_session(http: &reqwest::Client, uri: &str) -> String {
    let (status, headers, body) = post_with(http, uri, initialize_body(), &[]).await;
    assert_eq!(status, 200, "{body}");
    let id = headers.get("mcp-session-id").expect("a session id").to_str().unwrap().to_owned();
    let session = [("mcp-session-id", id.as_str()), ("mcp-protocol-version", "2025-06-18")];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let (status, _, body) = post_with(http, uri, initialized, &session).await;
    assert_eq!(status, 202, "{body}");
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "add", "arguments": {"a": 2, "b": 40}}});
    let (status, _, body) = post_with(http, uri, call.to_string(), &session).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("42"), "{body}");
    id
}

#[tokio::test(flavor = "current_thread")]
async fn an_idle_legacy_session_holds_little() {
    let uri = serve(McpServer::new(&example_app::toolset::ALL, example_app::App::demo())).await;
    let http = reqwest::Client::builder().pool_max_idle_per_host(1).build().expect("an HTTP client");
    // What the first sessions fill once (the greeting, the parked peer, the tool list's
    // page, the runtime's and the client's own state) is not any session's.
    for _ in 0..8 {
        open_session(&http, &uri).await;
    }
    let before = settled_bytes().await;
    let mut ids = Vec::with_capacity(SESSIONS);
    for _ in 0..SESSIONS {
        ids.push(open_session(&http, &uri).await);
    }
    let held = settled_bytes().await - before;
    let per_session = held / SESSIONS as isize;
    println!("{SESSIONS} idle legacy sessions hold {held} bytes: {per_session} per session");
    assert!(
        per_session <= MAX_BYTES_PER_SESSION,
        "an idle legacy session holds {per_session} bytes, more than {MAX_BYTES_PER_SESSION}"
    );
    // The sessions are still open: a call in the first one is answered in it.
    let session = [("mcp-session-id", ids[0].as_str()), ("mcp-protocol-version", "2025-06-18")];
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": {"name": "add", "arguments": {"a": 1, "b": 1}}});
    let (status, _, body) = post_with(&http, &uri, call.to_string(), &session).await;
    assert_eq!(status, 200, "{body}");
}
