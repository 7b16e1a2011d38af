//! Rate limits over real HTTP (#65 item 5): one caller spread round-robin over three
//! replicas at full speed gets its rate once through a shared Redis store (at most 1.1
//! times it) and about three times it when each replica counts its own; a Redis outage
//! fails open to each replica's count and is logged once, its end once; the 429 names
//! the limit a call met; behind a trusted proxy, tokenless callers are the clients the
//! proxy names, and an untrusted peer's forwarding headers are ignored.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use toolcall_mcp::{HttpSettings, McpServer, RateLimit};

mod common;
#[cfg(feature = "redis")]
#[path = "common/redis.rs"]
mod local_redis;

use common::WithHttp;
use common::gauge::{GAUGE, Gauge, Stats};
use common::net::{post, serve};

/// A 2026-07-28 `tools/call` of `tool` (no session needed: any replica answers it).
fn call_body(id: u64, tool: &str) -> String {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": {"ms": 0}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}
    })
    .to_string()
}

/// The headers a 2026-07-28 call of `tool` carries, and `extra`.
fn call_headers<'a>(tool: &'a str, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut headers =
        vec![("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", tool)];
    headers.extend_from_slice(extra);
    headers
}

/// Calls `tool` once through `uri` with `extra` headers: the status and the body.
async fn call(uri: &str, tool: &str, extra: &[(&str, &str)]) -> (u16, Option<String>, String) {
    let (status, headers, body) = post(uri, call_body(1, tool), &call_headers(tool, extra)).await;
    let retry_after = headers.get("retry-after").map(|value| value.to_str().unwrap().to_owned());
    (status, retry_after, body)
}

/// A server of the gauge tools with `edit` applied to its HTTP settings, served.
async fn replica(edit: impl FnOnce(&mut HttpSettings)) -> String {
    let stats = Arc::new(Stats::default());
    serve(McpServer::new(&GAUGE, Gauge::new("replica", &stats)).with_http(edit)).await
}

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

/// The deadline of a count in Redis in these tests: a debug build on a machine busy
/// compiling can take longer than the default's 200 ms for the first (connecting) one,
/// and a count that misses it is counted in process, which is not what they measure.
const STORE_TIMEOUT: Duration = Duration::from_secs(1);

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

/// Every key in the Redis at `url`, with its time to live in milliseconds.
#[cfg(feature = "redis")]
async fn redis_keys(url: &str) -> Vec<(String, i64)> {
    let client = redis::Client::open(url).unwrap();
    let mut connection = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS").arg("*").query_async(&mut connection).await.unwrap();
    let mut out = Vec::new();
    for key in keys {
        let ttl: i64 = redis::cmd("PTTL").arg(&key).query_async(&mut connection).await.unwrap();
        out.push((key, ttl));
    }
    out
}

/// The 429 names the limit a call met: the caller's own rate, or its rate on one tool;
/// in process and through Redis alike, with `Retry-After` in whole seconds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_429_says_whether_the_caller_or_the_caller_on_one_tool_was_limited() {
    assert_texts(toolcall_mcp::RateLimitStore::in_process()).await;
    #[cfg(feature = "redis")]
    {
        let Some((_redis, url)) = local_redis::redis_server().await else { return };
        assert_texts(toolcall_mcp::RateLimitStore::redis(&url).unwrap()).await;
    }
}

/// A caller at 3 a second and `work` at 1 a second per caller, counted in `store`.
async fn assert_texts(store: toolcall_mcp::RateLimitStore) {
    let uri = replica(move |http| {
        http.rate_limit = Some(RateLimit::per_second(3));
        http.tool_rate_limits = BTreeMap::from([("work".to_owned(), RateLimit::per_second(1))]);
        http.rate_limit_store = store;
        http.rate_limit_store_timeout = STORE_TIMEOUT;
    })
    .await;
    assert_eq!(call(&uri, "work", &[]).await.0, 200);
    let (status, retry_after, text) = call(&uri, "work", &[]).await;
    assert_eq!((status, retry_after.as_deref()), (429, Some("1")), "{text}");
    assert_eq!(
        text,
        "Too Many Requests: calls of work from this caller are over its rate of 1 per second; retry after 1 s"
    );
    // One of the caller's three went to `work`; the tool's refusal took none.
    assert_eq!(call(&uri, "whoami", &[]).await.0, 200);
    assert_eq!(call(&uri, "whoami", &[]).await.0, 200);
    let (status, retry_after, text) = call(&uri, "whoami", &[]).await;
    assert_eq!((status, retry_after.as_deref()), (429, Some("1")), "{text}");
    assert_eq!(
        text, "Too Many Requests: calls from this caller are over the rate of 3 per second; retry after 1 s",
        "whoami has no limit of its own: the caller's rate is named, not the tool"
    );
}

/// Two tokenless callers behind one trusted proxy (the test's own address) are counted
/// apart, by the client `Forwarded` or `X-Forwarded-For` names; a peer that is not a
/// trusted proxy is counted as itself whatever its headers say.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_each_client_has_its_own_count() {
    let limited = |proxies: &'static str| {
        move |http: &mut HttpSettings| {
            http.rate_limit = Some(RateLimit::per_second(1));
            http.trusted_proxies = vec![proxies.parse().unwrap()];
        }
    };
    let ada = [("forwarded", r#"for="192.0.2.1:4711";proto=https"#)];
    let grace = [("x-forwarded-for", "198.51.100.99, 192.0.2.2")];
    let behind = replica(limited("127.0.0.0/8")).await;
    assert_eq!(call(&behind, "whoami", &ada).await.0, 200);
    assert_eq!(call(&behind, "whoami", &grace).await.0, 200, "another client, another count");
    assert_eq!(call(&behind, "whoami", &ada).await.0, 429, "the first client's second call");
    let spoofed = [("x-forwarded-for", "192.0.2.3")];
    assert_eq!(call(&behind, "whoami", &spoofed).await.0, 200, "a third client");
    // The right-most untrusted address counts, not what the client wrote left of it.
    let grace_again = [("x-forwarded-for", "203.0.113.50, 192.0.2.2")];
    assert_eq!(call(&behind, "whoami", &grace_again).await.0, 429);
    // A header that does not parse: the proxy itself, one count for all such requests.
    assert_eq!(call(&behind, "whoami", &[("forwarded", "for=")]).await.0, 200);
    assert_eq!(call(&behind, "whoami", &[("x-forwarded-for", "garbage")]).await.0, 429);

    let direct = replica(limited("10.0.0.0/8")).await;
    assert_eq!(call(&direct, "whoami", &ada).await.0, 200);
    assert_eq!(call(&direct, "whoami", &grace).await.0, 429, "an untrusted peer's header is ignored");
}

/// A Redis that stops answering: calls go on, counted by each replica (the limit fails
/// open: nothing is refused for Redis's sake, nothing waits long), the outage is logged
/// once however many calls meet it, and its end once, when Redis is back.
#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_outage_fails_open_to_each_replicas_count_and_is_logged_once() {
    use local_redis::{redis_binary, redis_server, redis_server_on};
    let log = lifecycle_log();
    let Some((mut redis, url)) = redis_server().await else { return };
    let port: u16 = url.rsplit(':').next().and_then(|p| p.parse().ok()).expect("a port");
    let store = toolcall_mcp::RateLimitStore::redis(&url).unwrap();
    let uris = [replica(shared_at_2(&store)).await, replica(shared_at_2(&store)).await];
    // Shared: two calls in all, whichever replica.
    assert_eq!(call(&uris[0], "whoami", &[]).await.0, 200);
    assert_eq!(call(&uris[1], "whoami", &[]).await.0, 200);
    assert_eq!(call(&uris[0], "whoami", &[]).await.0, 429);

    redis.kill().await.expect("redis-server stops");
    let started = Instant::now();
    let statuses: Vec<u16> = futures_of(&uris, 6).await;
    let waited = started.elapsed();
    assert!(waited < Duration::from_secs(3), "no call waits on Redis for long: {waited:?}");
    // Each replica's own count: two each, then refused (never a 5xx).
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 4, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 2, "{statuses:?}");
    let outages = log.lines("the rate-limit store failed");
    assert_eq!(outages.len(), 2, "once per replica, however many calls: {outages:?}");
    assert!(
        outages[0].0 == log::Level::Warn && outages[0].1.contains("counted in this process"),
        "{outages:?}"
    );

    let binary = redis_binary().expect("installed");
    let _redis = redis_server_on(&binary, port).await;
    let mut recovered = false;
    for _ in 0..100 {
        call(&uris[0], "whoami", &[]).await;
        call(&uris[1], "whoami", &[]).await;
        if log.lines("the rate-limit store answers again").len() == 2 {
            recovered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(recovered, "{:?}", log.lines("rate-limit store"));
    assert_eq!(log.lines("the rate-limit store failed").len(), 2, "no outage logged again");
    assert!(
        redis_keys(&url).await.iter().any(|(key, _)| key == "toolcall:rate:{127.0.0.1}"),
        "counted in Redis again"
    );
}

/// A replica at 2 calls a second per caller, counted in `store`.
#[cfg(feature = "redis")]
fn shared_at_2(store: &toolcall_mcp::RateLimitStore) -> impl FnOnce(&mut HttpSettings) + use<> {
    let store = store.clone();
    move |http| {
        http.rate_limit = Some(RateLimit::per_second(2));
        http.rate_limit_store = store;
        http.rate_limit_store_timeout = STORE_TIMEOUT;
    }
}

/// The statuses of `each` calls through each of `uris`, all at once.
#[cfg(feature = "redis")]
async fn futures_of(uris: &[String], each: usize) -> Vec<u16> {
    let calls: Vec<_> = uris
        .iter()
        .flat_map(|uri| std::iter::repeat_n(uri.clone(), each / uris.len()))
        .map(|uri| tokio::spawn(async move { call(&uri, "whoami", &[]).await.0 }))
        .collect();
    let mut statuses = Vec::new();
    for call in calls {
        statuses.push(call.await.unwrap());
    }
    statuses
}

/// The records of toolcall-mcp's lifecycle target, kept by this test binary's logger.
#[derive(Default)]
struct LifecycleLog(std::sync::Mutex<Vec<(log::Level, String)>>);

impl LifecycleLog {
    /// The records whose text contains `part`.
    fn lines(&self, part: &str) -> Vec<(log::Level, String)> {
        let lines = self.0.lock().unwrap();
        lines.iter().filter(|(_, text)| text.contains(part)).cloned().collect()
    }
}

impl log::Log for LifecycleLog {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.target() == toolcall_mcp::telemetry::LIFECYCLE_TARGET
    }

    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            self.0.lock().unwrap().push((record.level(), record.args().to_string()));
        }
    }

    fn flush(&self) {}
}

/// This binary's logger of the lifecycle target, installed once.
fn lifecycle_log() -> &'static LifecycleLog {
    static LOG: std::sync::OnceLock<&'static LifecycleLog> = std::sync::OnceLock::new();
    LOG.get_or_init(|| {
        let log: &'static LifecycleLog = Box::leak(Box::default());
        log::set_logger(log).expect("the only logger of this binary");
        log::set_max_level(log::LevelFilter::Info);
        log
    })
}
