//! Rate limits over real HTTP (#65 item 5): the 429 names the limit a call met; behind a
//! trusted proxy, tokenless callers are the clients the proxy names, and an untrusted
//! peer's forwarding headers are ignored; a Redis outage fails open to each replica's
//! count and is logged once, its end once. (The floods through three replicas are in
//! `tests/rate_replicas.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use toolcall_mcp::{HttpSettings, RateLimit};

mod common;
#[cfg(feature = "redis")]
#[path = "common/redis.rs"]
mod local_redis;
#[path = "common/rate.rs"]
mod rate;

#[cfg(feature = "redis")]
use rate::redis_keys;
use rate::{Calls, STORE_TIMEOUT, replica};

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
    let calls = Calls::default();
    let uri = replica(move |http| {
        http.rate_limit = Some(RateLimit::per_second(3));
        http.tool_rate_limits = BTreeMap::from([("work".to_owned(), RateLimit::per_second(1))]);
        http.rate_limit_store = store;
        http.rate_limit_store_timeout = STORE_TIMEOUT;
    })
    .await;
    assert_eq!(calls.call(&uri, "work", &[]).await.0, 200);
    let (status, retry_after, text) = calls.call(&uri, "work", &[]).await;
    assert_eq!((status, retry_after.as_deref()), (429, Some("1")), "{text}");
    assert_eq!(
        text,
        "Too Many Requests: calls of work from this caller are over its rate of 1 per second; retry after 1 s"
    );
    // One of the caller's three went to `work`; the tool's refusal took none.
    assert_eq!(calls.call(&uri, "whoami", &[]).await.0, 200);
    assert_eq!(calls.call(&uri, "whoami", &[]).await.0, 200);
    let (status, retry_after, text) = calls.call(&uri, "whoami", &[]).await;
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
    let calls = Calls::default();
    let limited = |proxies: &'static str| {
        move |http: &mut HttpSettings| {
            http.rate_limit = Some(RateLimit::per_second(1));
            http.trusted_proxies = vec![proxies.parse().unwrap()];
        }
    };
    let ada = [("forwarded", r#"for="192.0.2.1:4711";proto=https"#)];
    let grace = [("x-forwarded-for", "198.51.100.99, 192.0.2.2")];
    let behind = replica(limited("127.0.0.0/8")).await;
    assert_eq!(calls.call(&behind, "whoami", &ada).await.0, 200);
    assert_eq!(calls.call(&behind, "whoami", &grace).await.0, 200, "another client, another count");
    assert_eq!(calls.call(&behind, "whoami", &ada).await.0, 429, "the first client's second call");
    let spoofed = [("x-forwarded-for", "192.0.2.3")];
    assert_eq!(calls.call(&behind, "whoami", &spoofed).await.0, 200, "a third client");
    // The right-most untrusted address counts, not what the client wrote left of it.
    let grace_again = [("x-forwarded-for", "203.0.113.50, 192.0.2.2")];
    assert_eq!(calls.call(&behind, "whoami", &grace_again).await.0, 429);
    // A header that does not parse: the proxy itself, one count for all such requests.
    assert_eq!(calls.call(&behind, "whoami", &[("forwarded", "for=")]).await.0, 200);
    assert_eq!(calls.call(&behind, "whoami", &[("x-forwarded-for", "garbage")]).await.0, 429);

    let direct = replica(limited("10.0.0.0/8")).await;
    assert_eq!(calls.call(&direct, "whoami", &ada).await.0, 200);
    assert_eq!(calls.call(&direct, "whoami", &grace).await.0, 429, "an untrusted peer's header is ignored");
}

/// A Redis that stops answering: calls go on, counted by each replica (the limit fails
/// open: nothing is refused for Redis's sake, nothing waits long), the outage is logged
/// once however many calls meet it, and its end once, when Redis is back.
#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_outage_fails_open_to_each_replicas_count_and_is_logged_once() {
    let calls = Calls::default();
    use local_redis::{redis_binary, redis_server, redis_server_on};
    let log = lifecycle_log();
    let Some((mut redis, url)) = redis_server().await else { return };
    let port: u16 = url.rsplit(':').next().and_then(|p| p.parse().ok()).expect("a port");
    let store = toolcall_mcp::RateLimitStore::redis(&url).unwrap();
    let uris = [replica(shared_at_2(&store)).await, replica(shared_at_2(&store)).await];
    // Shared: two calls in all, whichever replica.
    assert_eq!(calls.call(&uris[0], "whoami", &[]).await.0, 200);
    assert_eq!(calls.call(&uris[1], "whoami", &[]).await.0, 200);
    assert_eq!(calls.call(&uris[0], "whoami", &[]).await.0, 429);

    redis.kill().await.expect("redis-server stops");
    let started = Instant::now();
    let statuses: Vec<u16> = futures_of(&calls, &uris, 6).await;
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
        calls.call(&uris[0], "whoami", &[]).await;
        calls.call(&uris[1], "whoami", &[]).await;
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
async fn futures_of(calls: &Calls, uris: &[String], each: usize) -> Vec<u16> {
    let calls: Vec<_> = uris
        .iter()
        .flat_map(|uri| std::iter::repeat_n(uri.clone(), each / uris.len()))
        .map(|uri| {
            let calls = calls.clone();
            tokio::spawn(async move { calls.call(&uri, "whoami", &[]).await.0 })
        })
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
