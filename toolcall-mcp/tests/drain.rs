//! A drain as a balancer sees it (#65 item 1), over real HTTP on 127.0.0.1 with raw
//! sockets: `serve_http_until` told to stop answers `/readyz` 503 at once and serves on for
//! the drain delay, each response with `Connection: close` (and the connection closed after
//! it); then its listener closes (a new connection is refused), an idle kept-alive
//! connection is closed, a connection opened before that still gets its request answered
//! (hyper would have closed it unread), and the call in flight gets its result before
//! `serve_http_until` returns `Ok`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::AsyncWriteExt;
use toolcall_mcp::McpServer;

mod common;

use common::WithHttp;
use common::gauge::{GAUGE, Gauge, Stats};
use common::net::{Client, Era, call, initialize_body, post_head, read_for, read_until};

/// Sends a raw `initialize` on `stream`; the response, read until its result.
async fn initialize_on(stream: &mut tokio::net::TcpStream) -> String {
    let body = initialize_body();
    stream.write_all(post_head(body.len(), &[]).as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    read_until(stream, "\"result\"", Duration::from_secs(5)).await
}

/// Whether a response's head says `Connection: close`.
fn says_close(response: &str) -> bool {
    let head = response.split("\r\n\r\n").next().unwrap_or_default().to_ascii_lowercase();
    head.lines().any(|line| line == "connection: close")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drain_serves_on_closing_connections_then_refuses_new_ones_and_answers_the_call_in_flight() {
    let delay = Duration::from_millis(400);
    let stats = Arc::new(Stats::default());
    let server = McpServer::new(&GAUGE, Gauge::new("ada", &stats)).with_http(|http| {
        http.drain_delay = delay;
        http.drain_grace = Duration::from_secs(10);
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let uri = format!("http://{addr}/mcp");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(server.serve_http_until(listener, async {
        let _ = stopped.await;
    }));

    // Before the drain: kept-alive connections, no `Connection: close`.
    let (mut reused, mut kept) = (common::net::raw(&uri).await, common::net::raw(&uri).await);
    for stream in [&mut reused, &mut kept] {
        let response = initialize_on(stream).await;
        assert!(response.starts_with("HTTP/1.1 200") && !says_close(&response), "{response}");
    }
    // A call that outlives the drain delay.
    let client = Client::new(&uri, Era::Stateless).connect().await.expect("connects");
    let call = tokio::spawn(async move { call(&client, "work", json!({"ms": 1500})).await });
    tokio::time::sleep(Duration::from_millis(200)).await;

    let signalled = Instant::now();
    stop.send(()).unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    // Announced: not ready, yet a request on a kept-alive connection is served, and its
    // response closes the connection so the balancer does not send on it again.
    let readyz = reqwest::get(format!("http://{addr}/readyz")).await.unwrap();
    assert_eq!(readyz.status(), 503);
    assert_eq!(readyz.text().await.unwrap(), "draining\n");
    let response = initialize_on(&mut reused).await;
    assert!(response.starts_with("HTTP/1.1 200") && says_close(&response), "{response}");
    let (_, closed) = read_for(&mut reused, Duration::from_millis(500)).await;
    assert!(closed, "the server closed the connection after that response");
    // A connection opened now whose request comes only after the listener closed.
    let mut late = common::net::raw(&uri).await;

    tokio::time::sleep((delay + Duration::from_millis(200)).saturating_sub(signalled.elapsed())).await;
    // Stopping: a new connection is refused (a balancer retries it on another replica)...
    let refused = tokio::net::TcpStream::connect(addr).await;
    assert_eq!(refused.err().map(|e| e.kind()), Some(std::io::ErrorKind::ConnectionRefused));
    // ... the idle kept-alive connection is closed, with nothing sent on it...
    let (received, closed) = read_for(&mut kept, Duration::from_millis(500)).await;
    assert!(closed && received.is_empty(), "{received:?}");
    // ... and the connection opened before gets its request answered, then closed.
    let response = initialize_on(&mut late).await;
    assert!(response.starts_with("HTTP/1.1 200") && says_close(&response), "{response}");
    let (_, closed) = read_for(&mut late, Duration::from_millis(500)).await;
    assert!(closed);

    // The call in flight at the signal gets its result, then the server returns.
    let answered = tokio::time::timeout(Duration::from_secs(10), call).await.unwrap().unwrap();
    assert_eq!(answered, Ok("ada".to_owned()));
    let returned = tokio::time::timeout(Duration::from_secs(10), serving).await.unwrap().unwrap();
    assert!(returned.is_ok(), "{returned:?}");
}
