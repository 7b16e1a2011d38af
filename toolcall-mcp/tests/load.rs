//! A load test over real HTTP on 127.0.0.1: N clients at once, each making M calls one
//! after another, against one server with a cap on concurrent calls. It asserts that every
//! call is answered and that the cap holds (and is reached); it prints throughput and
//! latency, which it does not assert (machines differ).
//!
//! Every run checks the same things; `TOOLCALL_LOAD=full` sets the full size (add
//! `--release` for a release build), the default is a tenth of it:
//!
//! ```text
//! TOOLCALL_LOAD=full cargo test -p toolcall-mcp --test load -- --nocapture
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::json;
use toolcall_mcp::McpServer;

mod common;
use common::gauge::{GAUGE, Gauge, Stats};
use common::net::{Client, Era, call, serve};

/// One run's shape.
#[derive(Clone, Copy, Debug)]
struct Load {
    era: Era,
    clients: usize,
    calls: usize,
    /// How long each call holds its slot, standing for the tool's own work.
    work_ms: u64,
    cap: usize,
    queue: usize,
}

/// What a run measured.
#[derive(Debug)]
struct Outcome {
    answered: usize,
    refused: usize,
    peak: usize,
    elapsed: Duration,
    latencies: Vec<Duration>,
}

async fn run(load: Load) -> Outcome {
    let stats = Arc::new(Stats::default());
    let server = McpServer::new(&GAUGE, Gauge::new("load", &stats))
        .max_concurrent_calls(load.cap)
        .max_queued_calls(load.queue);
    let uri = serve(server).await;
    let mut clients = Vec::new();
    for _ in 0..load.clients {
        clients.push(Client::new(&uri, load.era).connect().await.expect("connect"));
    }
    let started = Instant::now();
    let tasks: Vec<_> = clients
        .into_iter()
        .map(|client| {
            tokio::spawn(async move {
                let mut answers = Vec::with_capacity(load.calls);
                for _ in 0..load.calls {
                    let sent = Instant::now();
                    let answer = call(&client, "work", json!({"ms": load.work_ms})).await;
                    answers.push((answer, sent.elapsed()));
                }
                answers
            })
        })
        .collect();
    let mut outcome =
        Outcome { answered: 0, refused: 0, peak: 0, elapsed: Duration::ZERO, latencies: Vec::new() };
    for task in tasks {
        for (answer, latency) in task.await.unwrap() {
            match answer {
                Ok(text) => {
                    assert_eq!(text, "load");
                    outcome.answered += 1;
                }
                Err(text) => {
                    assert!(text.starts_with("the server is busy"), "{text}");
                    outcome.refused += 1;
                }
            }
            outcome.latencies.push(latency);
        }
    }
    outcome.elapsed = started.elapsed();
    outcome.peak = stats.peak.load(Ordering::SeqCst);
    assert_eq!(stats.calls.load(Ordering::SeqCst), outcome.answered, "every answered call ran once");
    report(load, &mut outcome);
    outcome
}

fn report(load: Load, outcome: &mut Outcome) {
    outcome.latencies.sort();
    let at = |q: f64| {
        let i = ((outcome.latencies.len() as f64 - 1.0) * q).round() as usize;
        outcome.latencies.get(i).copied().unwrap_or_default()
    };
    let total = outcome.answered + outcome.refused;
    println!(
        "{:?} {} clients x {} calls of {} ms, cap {} + queue {}: {} answered, {} refused, peak {} running; \
         {:.2} s, {:.0} calls/s; latency p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        load.era,
        load.clients,
        load.calls,
        load.work_ms,
        load.cap,
        load.queue,
        outcome.answered,
        outcome.refused,
        outcome.peak,
        outcome.elapsed.as_secs_f64(),
        total as f64 / outcome.elapsed.as_secs_f64(),
        at(0.5).as_secs_f64() * 1e3,
        at(0.95).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        at(1.0).as_secs_f64() * 1e3,
    );
}

/// Every call is answered and the cap is never passed (and reached, when calls hold
/// their slot and there are enough clients).
async fn all_answered(load: Load) {
    let outcome = run(load).await;
    assert_eq!(outcome.answered, load.clients * load.calls);
    assert_eq!(outcome.refused, 0);
    assert!(outcome.peak <= load.cap, "the cap holds: {outcome:?}");
    if load.work_ms > 0 && load.clients >= load.cap {
        assert_eq!(outcome.peak, load.cap, "calls that hold their slot fill every slot");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn small_load_is_all_answered_within_the_cap() {
    for era in [Era::Stateless, Era::Legacy] {
        all_answered(Load { era, clients: 16, calls: 10, work_ms: 5, cap: 4, queue: 64 }).await;
    }
}

/// `n` at full size (`TOOLCALL_LOAD=full`), else a tenth of it.
fn sized(n: usize) -> usize {
    if std::env::var("TOOLCALL_LOAD").is_ok_and(|v| v == "full") { n } else { (n / 10).max(1) }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_is_answered_within_the_cap_and_a_flood_is_refused_past_the_line() {
    for era in [Era::Stateless, Era::Legacy] {
        // Fast tools: the transport's own cost.
        let fast = Load { era, clients: sized(100), calls: sized(100), work_ms: 0, cap: 64, queue: 256 };
        all_answered(fast).await;
        // Slow tools past the cap: calls wait in line, the cap holds.
        let slow = Load { era, clients: sized(200), calls: 25, work_ms: 20, cap: sized(32), queue: 256 };
        all_answered(slow).await;
    }
    // A flood past cap and line: the rest are refused at once, nothing else fails.
    let flood = Load {
        era: Era::Stateless,
        clients: sized(400),
        calls: 5,
        work_ms: 50,
        cap: sized(32),
        queue: sized(64),
    };
    let outcome = run(flood).await;
    assert_eq!(outcome.answered + outcome.refused, flood.clients * flood.calls);
    assert!(outcome.refused > 0 && outcome.answered >= flood.cap, "{outcome:?}");
    assert_eq!(outcome.peak, flood.cap);
    // Client and server share this process: its peak memory bounds the server's.
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(peak) = status.lines().find(|l| l.starts_with("VmHWM")) {
        println!(
            "peak resident memory of clients and server together: {}",
            peak.trim_start_matches("VmHWM:").trim()
        );
    }
}
