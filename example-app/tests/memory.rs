//! Memory a large request used comes back (#29): `example-app serve --http` parses a 4 MB
//! `tools/call` holding 90,000 unknown argument names (the most its limits let through to
//! the parser), answers with a bounded error, and within seconds its resident memory is
//! back near where it was before. The binary's allocator (jemalloc with background
//! threads, `src/main.rs`) is what gives it back: under glibc's malloc the same process
//! kept about 22 MiB of it for good, which this test refuses.
//!
//! Linux only: it reads the server's resident size from `/proc`.

#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};

#[path = "../../toolcall-mcp/tests/common/net.rs"]
#[allow(dead_code)]
mod net;

/// How far above its resting size the server may stay once the request is over.
const SETTLED_MARGIN_MIB: f64 = 12.0;
/// How long it has to get there (jemalloc's decay is 10 s).
const SETTLE_WITHIN: Duration = Duration::from_secs(40);

/// The server's resident set size in MiB.
fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|line| line.starts_with("VmRSS:")).unwrap();
    let kib: f64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib / 1024.0
}

/// A `tools/call` of `add` with `count` unknown names of 40 characters beside `a` and `b`.
fn heavy_call(count: usize) -> String {
    let mut arguments = serde_json::Map::new();
    arguments.insert("a".into(), json!(1));
    arguments.insert("b".into(), json!(2));
    for i in 0..count {
        arguments.insert(format!("k{i:039}"), json!(0));
    }
    json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "add", "arguments": arguments}})
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_a_large_request_used_is_given_back() {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_example-app"))
        .args(["serve", "--http", "127.0.0.1:0", "--token", "s3cret"])
        .env_remove("TOOLCALL_MCP_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn example-app");
    let pid = child.id().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let line = lines.next_line().await.unwrap().expect("a line on stderr");
    let addr: SocketAddr = line
        .strip_prefix("listening on http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("{line}"))
        .parse()
        .unwrap();
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    let uri = format!("http://{addr}/mcp");

    let bearer = [("authorization", "Bearer s3cret")];
    let (status, headers, _) = net::post(&uri, net::initialize_body(), &bearer).await;
    assert_eq!(status, 200);
    let id = headers.get("mcp-session-id").unwrap().to_str().unwrap().to_owned();
    let session = [
        ("authorization", "Bearer s3cret"),
        ("mcp-session-id", id.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    assert_eq!(net::post(&uri, initialized, &session).await.0, 202);

    let body = heavy_call(90_000);
    assert!(body.len() > 4_000_000 && body.len() < 4 * 1024 * 1024, "{}", body.len());
    let resting = rss_mib(pid);
    let (status, _, reply) = net::post(&uri, body, &session).await;
    assert_eq!(status, 200);
    assert!(reply.contains("and 89980 more"), "the error lists 20 names and counts the rest: {reply}");
    let after = rss_mib(pid);

    let began = Instant::now();
    let mut now = after;
    while now > resting + SETTLED_MARGIN_MIB && began.elapsed() < SETTLE_WITHIN {
        tokio::time::sleep(Duration::from_millis(500)).await;
        now = rss_mib(pid);
    }
    assert!(
        now <= resting + SETTLED_MARGIN_MIB,
        "resting {resting:.1} MiB, {after:.1} MiB right after the request, still {now:.1} MiB after {:?}",
        began.elapsed()
    );
}
