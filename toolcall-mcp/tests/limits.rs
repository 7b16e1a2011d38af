//! The cap on concurrent calls over real HTTP: a flood past it waits in line and is all
//! answered with the cap never exceeded; past the line it is refused with a clear
//! `isError` result; a call cancelled at the time limit frees its slot.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::json;
use toolcall_mcp::McpServer;

mod common;
use common::gauge::{GAUGE, Gauge, Stats};
use common::net::{Client, Era, call, serve};

/// `clients` clients, each making `calls` concurrent `work` calls of `ms`; the answers.
async fn flood(uri: &str, clients: usize, calls: usize, ms: u64) -> Vec<Result<String, String>> {
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let client = Arc::new(Client::new(uri, Era::Stateless).connect().await.expect("connect"));
        for _ in 0..calls {
            let client = Arc::clone(&client);
            tasks.push(tokio::spawn(async move { call(&client, "work", json!({"ms": ms})).await }));
        }
    }
    let mut answers = Vec::new();
    for task in tasks {
        answers.push(task.await.unwrap());
    }
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_waits_in_line_and_the_cap_holds() {
    let stats = Arc::new(Stats::default());
    let server =
        McpServer::new(&GAUGE, Gauge::new("local", &stats)).max_concurrent_calls(4).max_queued_calls(100);
    let uri = serve(server).await;
    let answers = flood(&uri, 4, 10, 20).await;
    assert!(answers.iter().all(|a| a.as_deref() == Ok("local")), "{answers:?}");
    assert_eq!(stats.calls.load(Ordering::SeqCst), 40);
    assert_eq!(stats.peak.load(Ordering::SeqCst), 4, "the cap is reached and never passed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_line_calls_are_refused_at_once() {
    let stats = Arc::new(Stats::default());
    let server =
        McpServer::new(&GAUGE, Gauge::new("local", &stats)).max_concurrent_calls(2).max_queued_calls(3);
    let uri = serve(server).await;
    // 20 calls that each hold their slot for a second: 2 run, 3 wait, the rest are refused.
    let answers = flood(&uri, 2, 10, 1000).await;
    let answered = answers.iter().filter(|a| a.is_ok()).count();
    let busy: Vec<&String> = answers.iter().filter_map(|a| a.as_ref().err()).collect();
    assert_eq!(answered, 5, "{answers:?}");
    assert_eq!(busy.len(), 15);
    for message in busy {
        assert!(
            message.starts_with("the server is busy: 2 calls are running and 3 are waiting"),
            "{message}"
        );
    }
    assert_eq!(stats.peak.load(Ordering::SeqCst), 2);
    assert_eq!(stats.calls.load(Ordering::SeqCst), 5, "a refused call never ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_call_gives_its_slot_back() {
    let stats = Arc::new(Stats::default());
    let server = McpServer::new(&GAUGE, Gauge::new("local", &stats))
        .max_concurrent_calls(1)
        .max_queued_calls(0)
        .timeout(Duration::from_millis(200));
    let uri = serve(server).await;
    let client = Client::new(&uri, Era::Legacy).connect().await.unwrap();
    let timed_out = call(&client, "work", json!({"ms": 5000})).await.unwrap_err();
    assert!(timed_out.contains("did not finish within 200 ms"), "{timed_out}");
    assert_eq!(stats.live.load(Ordering::SeqCst), 0, "the call was dropped");
    // With no line at all, the next call is refused unless the slot is free.
    assert_eq!(call(&client, "whoami", json!({})).await, Ok("local".into()));
}

/// #20's volume check over real HTTP: 1,000 sequential calls from one client, then 200
/// concurrent calls from 20 clients; every call answered, none lost, no error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_sequential_and_two_hundred_concurrent_calls_are_all_answered() {
    let stats = Arc::new(Stats::default());
    let uri = serve(McpServer::new(&GAUGE, Gauge::new("local", &stats))).await;
    let client = Client::new(&uri, Era::Stateless).connect().await.expect("connect");
    for i in 0..1_000 {
        let answer = call(&client, "work", json!({"ms": 0})).await;
        assert_eq!(answer.as_deref(), Ok("local"), "call {i}");
    }
    assert_eq!(stats.calls.load(Ordering::SeqCst), 1_000);
    let answers = flood(&uri, 20, 10, 1).await;
    assert_eq!(answers.len(), 200);
    assert!(answers.iter().all(|a| a.as_deref() == Ok("local")), "{answers:?}");
    assert_eq!(stats.calls.load(Ordering::SeqCst), 1_200, "every call ran once: none lost");
}
