//! One caller spread round-robin over three replicas at full speed (#65 item 5): through a
//! shared Redis store it gets its rate (at most 1.1 times it), and about three times it
//! when each replica counts its own. Apart from `tests/rate_limits.rs`: the floods take
//! the machine's cores, and the tests there time calls a second apart.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use toolcall_mcp::RateLimit;

mod common;
#[cfg(feature = "redis")]
#[path = "common/redis.rs"]
mod local_redis;
#[path = "common/rate.rs"]
mod rate;

#[cfg(feature = "redis")]
use rate::redis_keys;
use rate::{STORE_TIMEOUT, call_body, call_headers, replica};

/// What a caller got by calling as fast as it could for a while.
struct Flood {
    accepted: u64,
    refused: u64,
    other: u64,
    elapsed: Duration,
}

impl Flood {
    /// The calls let through over what the rate allows in the flood's time (its burst
    /// and `per_second` a second after it).
    fn ratio(&self, per_second: u32, burst: u32) -> f64 {
        let allowed = f64::from(burst) + f64::from(per_second) * self.elapsed.as_secs_f64();
        self.accepted as f64 / allowed
    }
}

/// One caller (127.0.0.1, no token) calling `whoami` through `uris` in turn, `workers`
/// calls in flight at once, for `time`.
async fn flood(uris: &[String], workers: usize, time: Duration) -> Flood {
    let started = Instant::now();
    let tasks: Vec<_> = (0..workers)
        .map(|worker| {
            let uris = uris.to_vec();
            tokio::spawn(async move {
                let client = reqwest::Client::new();
                let (mut accepted, mut refused, mut other) = (0u64, 0u64, 0u64);
                let mut turn = worker;
                while started.elapsed() < time {
                    let mut request = client
                        .post(&uris[turn % uris.len()])
                        .header("content-type", "application/json")
                        .header("accept", "application/json, text/event-stream")
                        .body(call_body(turn as u64, "whoami"));
                    for (name, value) in call_headers("whoami", &[]) {
                        request = request.header(name, value);
                    }
                    let status = request.send().await.map(|r| r.status().as_u16()).unwrap_or(0);
                    match status {
                        200 => accepted += 1,
                        429 => refused += 1,
                        _ => other += 1,
                    }
                    turn += 1;
                }
                (accepted, refused, other)
            })
        })
        .collect();
    let mut flood = Flood { accepted: 0, refused: 0, other: 0, elapsed: Duration::ZERO };
    for task in tasks {
        let (accepted, refused, other) = task.await.unwrap();
        flood.accepted += accepted;
        flood.refused += refused;
        flood.other += other;
    }
    flood.elapsed = started.elapsed();
    flood
}

/// The rate of the flood tests: 20 calls a second, in bursts of 20.
const RATE: u32 = 20;

/// Three replicas limiting each caller to [`RATE`], counting in `store`.
async fn three_replicas(store: &toolcall_mcp::RateLimitStore) -> Vec<String> {
    let mut uris = Vec::new();
    for _ in 0..3 {
        let store = store.clone();
        uris.push(
            replica(move |http| {
                http.rate_limit = Some(RateLimit::per_second(RATE));
                http.rate_limit_store = store;
                http.rate_limit_store_timeout = STORE_TIMEOUT;
            })
            .await,
        );
    }
    uris
}

/// Each replica counting its own: the caller spread over three gets about three times its
/// rate (what the shared store is for, and what shows the measure can fail).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spread_over_three_replicas_counting_their_own_a_caller_gets_about_three_times_its_rate() {
    let uris = three_replicas(&toolcall_mcp::RateLimitStore::in_process()).await;
    let flood = flood(&uris, 6, Duration::from_secs(4)).await;
    let ratio = flood.ratio(RATE, RATE);
    println!(
        "per process: {} calls let through, {} refused, in {:.2} s: {ratio:.3} x the rate",
        flood.accepted,
        flood.refused,
        flood.elapsed.as_secs_f64()
    );
    assert_eq!(flood.other, 0, "every call answered 200 or 429");
    assert!(flood.refused > 0, "the flood went past the rate");
    assert!(ratio > 2.0 && ratio <= 3.1, "about three times the rate: {ratio:.3}");
}

/// Three replicas counting in one Redis: the caller spread over them gets its rate, at
/// most 1.1 times it.
#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spread_over_three_replicas_sharing_redis_a_caller_gets_its_rate() {
    let Some((_redis, url)) = local_redis::redis_server().await else { return };
    let store = toolcall_mcp::RateLimitStore::redis(&url).unwrap();
    assert!(store.is_shared());
    let uris = three_replicas(&store).await;
    let flood = flood(&uris, 6, Duration::from_secs(4)).await;
    let ratio = flood.ratio(RATE, RATE);
    println!(
        "through Redis: {} calls let through, {} refused, in {:.2} s: {ratio:.3} x the rate",
        flood.accepted,
        flood.refused,
        flood.elapsed.as_secs_f64()
    );
    assert_eq!(flood.other, 0, "every call answered 200 or 429");
    assert!(flood.refused > 3 * u64::from(RATE), "the flood went well past the rate");
    assert!(ratio <= 1.1, "at most 1.1 times the rate: {ratio:.3}");
    assert!(ratio >= 0.8, "and the rate, not much less: {ratio:.3}");
    let keys = redis_keys(&url).await;
    assert_eq!(keys.len(), 1, "one key for the one caller: {keys:?}");
    assert_eq!(keys[0].0, "toolcall:rate:{127.0.0.1}");
    assert!(keys[0].1 > 0 && keys[0].1 <= 1_000, "it expires once the rate is back to full: {keys:?}");
}
