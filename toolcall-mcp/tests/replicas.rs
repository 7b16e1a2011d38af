//! Replicas behind a round-robin balancer that opens a new backend connection for every
//! connection it accepts, with clients that open one per request: consecutive requests
//! of one client land on alternating servers. Two servers with no shared state serve a
//! 2026-07-28 client completely; a legacy-session client needs a session store both
//! servers share (in memory here), or sessionless serving; without either its session is
//! unknown to the other server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::json;
use tokio::sync::RwLock;
use toolcall_mcp::{McpServer, SessionState, SessionStore, SessionStoreError};

mod common;
#[cfg(feature = "redis")]
#[path = "common/redis.rs"]
mod local_redis;

use common::WithHttp;
use common::gauge::{GAUGE, Gauge, Stats};
use common::net::{Client, Era, RoundRobin, call, serve};
#[cfg(feature = "redis")]
use local_redis::{durable_redis_server_on, redis_binary, redis_server, redis_server_on};

/// rmcp's session store, in memory, shared by the servers of one test.
#[derive(Default)]
struct MemoryStore {
    sessions: RwLock<HashMap<String, SessionState>>,
    loads: std::sync::atomic::AtomicUsize,
}

#[async_trait::async_trait]
impl SessionStore for MemoryStore {
    async fn load(&self, id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        self.loads.fetch_add(1, Ordering::SeqCst);
        Ok(self.sessions.read().await.get(id).cloned())
    }
    async fn store(&self, id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        self.sessions.write().await.insert(id.to_owned(), state.clone());
        Ok(())
    }
    async fn delete(&self, id: &str) -> Result<(), SessionStoreError> {
        self.sessions.write().await.remove(id);
        Ok(())
    }
}

/// Two servers, each with its own context counters, behind a balancer.
async fn replicas(configure: impl Fn(McpServer<Gauge>) -> McpServer<Gauge>) -> (RoundRobin, [Arc<Stats>; 2]) {
    let stats = [Arc::new(Stats::default()), Arc::new(Stats::default())];
    let a = serve(configure(McpServer::new(&GAUGE, Gauge::new("a", &stats[0])))).await;
    let b = serve(configure(McpServer::new(&GAUGE, Gauge::new("b", &stats[1])))).await;
    (RoundRobin::start(&[a, b]).await, stats)
}

fn alternating(uri: &str, era: Era) -> Client {
    Client { fresh_connections: true, reinit: false, ..Client::new(uri, era) }
}

/// 20 calls; the servers that answered them.
async fn twenty_calls(client: &rmcp::service::RunningService<rmcp::service::RoleClient, ()>) -> Vec<String> {
    let mut answers = Vec::new();
    for _ in 0..20 {
        answers.push(call(client, "work", json!({"ms": 0})).await.expect("answered"));
    }
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_client_is_served_by_both_replicas_in_turn() {
    let (balancer, stats) = replicas(|server| server).await;
    let client = alternating(&balancer.uri, Era::Stateless).connect().await.expect("discover");
    let answers = twenty_calls(&client).await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 2);
    let by_a = answers.iter().filter(|a| *a == "a").count();
    assert_eq!((by_a, answers.len() - by_a), (10, 10), "{answers:?}");
    assert_eq!(stats[0].calls.load(Ordering::SeqCst), 10);
    assert_eq!(stats[1].calls.load(Ordering::SeqCst), 10);
    let counts = balancer.counts();
    assert!(counts[0] >= 11 && counts[1] >= 11, "discover, 20 calls and the listing alternate: {counts:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_client_alternates_through_a_shared_session_store() {
    let store = Arc::new(MemoryStore::default());
    let shared: Arc<dyn SessionStore> = store.clone();
    let (balancer, stats) =
        replicas(|server| server.with_http(|http| http.session_store = Some(Arc::clone(&shared)))).await;
    let client = alternating(&balancer.uri, Era::Legacy).connect().await.expect("initialize");
    let answers = twenty_calls(&client).await;
    assert!(answers.contains(&"a".to_owned()) && answers.contains(&"b".to_owned()), "{answers:?}");
    assert_eq!(stats[0].calls.load(Ordering::SeqCst) + stats[1].calls.load(Ordering::SeqCst), 20);
    assert_eq!(store.sessions.read().await.len(), 1, "one session, stored once");
    assert!(store.loads.load(Ordering::SeqCst) >= 1, "the other replica restored it from the store");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_store_the_other_replica_does_not_know_the_session() {
    let (balancer, _) = replicas(|server| server).await;
    // `notifications/initialized` already reaches the replica that did not see
    // `initialize`: 404, and the client gives up (or, if it got through, a later call does).
    let failed = match alternating(&balancer.uri, Era::Legacy).connect().await {
        Err(_) => true,
        Ok(client) => {
            let mut failed = false;
            for _ in 0..4 {
                failed |= call(&client, "work", json!({"ms": 0})).await.is_err();
            }
            failed
        }
    };
    assert!(failed, "a replica without the session answers 404");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_legacy_sessions_a_legacy_client_alternates_too() {
    let (balancer, stats) = replicas(|server| server.with_http(|http| http.legacy_sessions = false)).await;
    let client = alternating(&balancer.uri, Era::Legacy).connect().await.expect("initialize");
    let answers = twenty_calls(&client).await;
    let by_a = answers.iter().filter(|a| *a == "a").count();
    assert!(by_a >= 5 && answers.len() - by_a >= 5, "{answers:?}");
    assert_eq!(stats[0].calls.load(Ordering::SeqCst) + stats[1].calls.load(Ordering::SeqCst), 20);
}

/// A session restored from a shared store is still its creator's: another identity naming
/// it on the other replica gets 404, and nothing is restored for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_session_is_restored_only_for_its_owner() {
    use common::net::{initialize_body, post};
    use toolcall_mcp::{Caller, Rejection, bearer_token};
    let store = Arc::new(MemoryStore::default());
    let shared: Arc<dyn SessionStore> = store.clone();
    let stats = Arc::new(Stats::default());
    let server = || {
        let counted = Arc::clone(&stats);
        McpServer::new(&GAUGE, Gauge::new("local", &stats))
            .with_http(|http| http.session_store = Some(Arc::clone(&shared)))
            .context_from_request(move |request| match bearer_token(request) {
                Some("ada-token") => Ok(Caller::new("ada", Gauge::new("ada", &counted))),
                Some("grace-token") => Ok(Caller::new("grace", Gauge::new("grace", &counted))),
                _ => Err(Rejection::unauthorized("no")),
            })
    };
    let (a, b) = (serve(server()).await, serve(server()).await);
    let (status, headers, _) = post(&a, initialize_body(), &[("authorization", "Bearer ada-token")]).await;
    assert_eq!(status, 200);
    let id = headers.get("mcp-session-id").unwrap().to_str().unwrap().to_owned();
    let headers = |token: &'static str| {
        [("authorization", token), ("mcp-session-id", id.as_str()), ("mcp-protocol-version", "2025-06-18")]
    };
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    assert_eq!(post(&a, initialized, &headers("Bearer ada-token")).await.0, 202);
    let whoami =
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "whoami"}}).to_string();
    let (status, _, text) = post(&b, whoami.clone(), &headers("Bearer grace-token")).await;
    assert_eq!((status, text.as_str()), (404, "Not Found: Session not found"));
    let (status, _, text) = post(&b, whoami, &headers("Bearer ada-token")).await;
    assert_eq!(status, 200, "{text}");
    assert!(text.contains(r#""text":"ada""#), "{text}");
    assert_eq!(stats.calls.load(Ordering::SeqCst), 1);
}

/// The session store on Redis (feature `redis`): a session begun on one replica is served
/// by the other, stored once under its key, and gone from Redis when the client ends it.
#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_client_alternates_through_a_redis_session_store() {
    let Some((_redis, url)) = redis_server().await else { return };
    let store = toolcall_mcp::RedisSessionStore::connect(&url).await.expect("connects");
    let shared: Arc<dyn SessionStore> = Arc::new(store.expiring_after(std::time::Duration::from_secs(60)));
    let (balancer, stats) =
        replicas(|server| server.with_http(|http| http.session_store = Some(Arc::clone(&shared)))).await;
    let client = alternating(&balancer.uri, Era::Legacy).connect().await.expect("initialize");
    let answers = twenty_calls(&client).await;
    assert!(answers.contains(&"a".to_owned()) && answers.contains(&"b".to_owned()), "{answers:?}");
    assert_eq!(stats[0].calls.load(Ordering::SeqCst) + stats[1].calls.load(Ordering::SeqCst), 20);
    // One key, with the owner the HTTP layer wrote beside the client's `initialize`.
    let redis = redis_keys(&url).await;
    assert_eq!(redis.len(), 1, "{redis:?}");
    assert!(redis[0].0.starts_with(toolcall_mcp::SESSION_KEY_PREFIX), "{redis:?}");
    assert!(redis[0].1.contains("toolcall/owner") && redis[0].2 > 0 && redis[0].2 <= 60, "{redis:?}");
    client.cancel().await.ok();
}

/// Every key in the Redis at `url`, with its value and its time to live.
#[cfg(feature = "redis")]
async fn redis_keys(url: &str) -> Vec<(String, String, i64)> {
    let client = redis::Client::open(url).unwrap();
    let mut connection = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS").arg("*").query_async(&mut connection).await.unwrap();
    let mut out = Vec::new();
    for key in keys {
        let value: String = redis::cmd("GET").arg(&key).query_async(&mut connection).await.unwrap();
        let ttl: i64 = redis::cmd("TTL").arg(&key).query_async(&mut connection).await.unwrap();
        out.push((key, value, ttl));
    }
    out
}

/// How many times Redis ran each command since it started (`INFO commandstats`), `INFO`
/// itself aside, asked on `connection` (opened before, so its own handshake is not
/// counted between two of these).
#[cfg(feature = "redis")]
async fn redis_commands(connection: &mut redis::aio::MultiplexedConnection) -> HashMap<String, u64> {
    let info: String = redis::cmd("INFO").arg("commandstats").query_async(connection).await.unwrap();
    info.lines()
        .filter_map(|line| {
            let (name, stats) = line.strip_prefix("cmdstat_")?.split_once(':')?;
            let calls = stats.split(',').find_map(|stat| stat.strip_prefix("calls="))?.parse().ok()?;
            Some((name.to_owned(), calls))
        })
        .filter(|(name, _)| name != "info")
        .collect()
}

/// The commands Redis ran between two [`redis_commands`], by name.
#[cfg(feature = "redis")]
fn ran_between(before: &HashMap<String, u64>, after: &HashMap<String, u64>) -> HashMap<String, u64> {
    after
        .iter()
        .map(|(name, calls)| (name.clone(), calls - before.get(name).copied().unwrap_or(0)))
        .filter(|(_, ran)| *ran > 0)
        .collect()
}

/// The headers of a request in legacy session `id`.
#[cfg(feature = "redis")]
fn in_session(id: &str) -> [(&str, &str); 2] {
    [("mcp-session-id", id), ("mcp-protocol-version", "2025-06-18")]
}

/// A `work` call, as JSON-RPC text.
#[cfg(feature = "redis")]
fn work_call(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "work", "arguments": {"ms": 0}}})
        .to_string()
}

/// A new session costs Redis one write (`SETEX`, its owner in it) and nothing else: no
/// read back, no second write. Its handshake's end and calls in it, on the replica that
/// holds it, cost none.
#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_session_is_one_redis_write_and_a_call_in_it_none() {
    let Some((_redis, url)) = redis_server().await else { return };
    let store = toolcall_mcp::RedisSessionStore::connect(&url).await.expect("connects");
    let shared: Arc<dyn SessionStore> = Arc::new(store);
    let stats = Arc::new(Stats::default());
    let uri = serve(
        McpServer::new(&GAUGE, Gauge::new("a", &stats)).with_http(|http| http.session_store = Some(shared)),
    )
    .await;
    let mut redis =
        redis::Client::open(url.as_str()).unwrap().get_multiplexed_async_connection().await.unwrap();

    let before = redis_commands(&mut redis).await;
    let (status, headers, body) = common::net::post(&uri, common::net::initialize_body(), &[]).await;
    assert_eq!(status, 200, "{body}");
    let initialize = ran_between(&before, &redis_commands(&mut redis).await);
    assert_eq!(initialize, HashMap::from([("setex".to_owned(), 1)]), "one write per initialize, no read");
    let keys = redis_keys(&url).await;
    assert!(
        keys.len() == 1 && keys[0].1.contains("toolcall/owner"),
        "the one write holds the owner: {keys:?}"
    );

    let id = headers["mcp-session-id"].to_str().unwrap().to_owned();
    let before = redis_commands(&mut redis).await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    assert_eq!(common::net::post(&uri, initialized, &in_session(&id)).await.0, 202);
    for n in 0..20 {
        let (status, _, body) = common::net::post(&uri, work_call(n + 2), &in_session(&id)).await;
        assert_eq!(status, 200, "{body}");
    }
    let calls = ran_between(&before, &redis_commands(&mut redis).await);
    assert_eq!(calls, HashMap::new(), "no Redis command on a held session's path");
    assert_eq!(stats.calls.load(Ordering::SeqCst), 20);
}

/// A session opened on one replica costs the other one read of Redis (`GETEX`) when its
/// client comes there, and nothing after: the replica checks the stored owner and rmcp
/// restores the session from that same read (it read the entry a second time before).
#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_restored_on_another_replica_is_one_redis_read() {
    let Some((_redis, url)) = redis_server().await else { return };
    let store = toolcall_mcp::RedisSessionStore::connect(&url).await.expect("connects");
    let shared: Arc<dyn SessionStore> = Arc::new(store);
    let stats = [Arc::new(Stats::default()), Arc::new(Stats::default())];
    let replica = |name: &str, stats: &Arc<Stats>| {
        let shared = Arc::clone(&shared);
        McpServer::new(&GAUGE, Gauge::new(name, stats))
            .with_http(move |http| http.session_store = Some(shared))
    };
    let (a, b) = (serve(replica("a", &stats[0])).await, serve(replica("b", &stats[1])).await);
    let mut redis =
        redis::Client::open(url.as_str()).unwrap().get_multiplexed_async_connection().await.unwrap();
    let (status, headers, body) = common::net::post(&a, common::net::initialize_body(), &[]).await;
    assert_eq!(status, 200, "{body}");
    let id = headers["mcp-session-id"].to_str().unwrap().to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    assert_eq!(common::net::post(&a, initialized, &in_session(&id)).await.0, 202);

    let before = redis_commands(&mut redis).await;
    let (status, _, body) = common::net::post(&b, work_call(2), &in_session(&id)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""text":"b""#), "{body}");
    let restore = ran_between(&before, &redis_commands(&mut redis).await);
    assert_eq!(restore, HashMap::from([("getex".to_owned(), 1)]), "one read restores the session");

    let before = redis_commands(&mut redis).await;
    for n in 0..10 {
        let (status, _, body) = common::net::post(&b, work_call(n + 3), &in_session(&id)).await;
        assert_eq!(status, 200, "{body}");
    }
    let calls = ran_between(&before, &redis_commands(&mut redis).await);
    assert_eq!(calls, HashMap::new(), "no Redis command once the replica holds the session");
    assert_eq!(stats[1].calls.load(Ordering::SeqCst), 11);
}

/// A session kept busy on one replica for longer than its entry's expiry (2 s) is still in
/// Redis: the replica reads it back in the background (about once per third of the session
/// idle time, never once per call), so the other replica serves it (200, not 404) when the
/// client comes to it, as after the first replica died.
#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_kept_busy_past_its_expiry_stays_in_redis_and_the_other_replica_serves_it() {
    let Some((_redis, url)) = redis_server().await else { return };
    let expiry = std::time::Duration::from_secs(2);
    let store = toolcall_mcp::RedisSessionStore::connect(&url).await.expect("connects");
    let shared: Arc<dyn SessionStore> = Arc::new(store.expiring_after(expiry));
    let stats = [Arc::new(Stats::default()), Arc::new(Stats::default())];
    let replica = |name: &str, stats: &Arc<Stats>| {
        let shared = Arc::clone(&shared);
        McpServer::new(&GAUGE, Gauge::new(name, stats)).with_http(move |http| {
            http.session_store = Some(shared);
            http.session_idle_timeout = expiry;
        })
    };
    let (a, b) = (serve(replica("a", &stats[0])).await, serve(replica("b", &stats[1])).await);
    let mut redis =
        redis::Client::open(url.as_str()).unwrap().get_multiplexed_async_connection().await.unwrap();
    let (status, headers, body) = common::net::post(&a, common::net::initialize_body(), &[]).await;
    assert_eq!(status, 200, "{body}");
    let id = headers["mcp-session-id"].to_str().unwrap().to_owned();

    // Calls on `a` for 2.5 times the expiry.
    let before = redis_commands(&mut redis).await;
    let started = std::time::Instant::now();
    let mut calls = 0u64;
    while started.elapsed() < expiry * 5 / 2 {
        let (status, _, body) = common::net::post(&a, work_call(calls + 2), &in_session(&id)).await;
        assert_eq!(status, 200, "call {calls} at {:?} on a: {body}", started.elapsed());
        calls += 1;
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let busy = started.elapsed();
    let ran = ran_between(&before, &redis_commands(&mut redis).await);
    let key = format!("{}{id}", toolcall_mcp::SESSION_KEY_PREFIX);
    let ttl: i64 = redis::cmd("TTL").arg(&key).query_async(&mut redis).await.unwrap();
    assert!(ttl > 0, "the session's key lives after {busy:?} of calls on a (TTL {ttl}): {ran:?}");
    // Read back once per refresh interval (a third of the idle time), whatever the calls.
    let reads = ran.get("getex").copied().unwrap_or(0);
    let most = (busy.as_millis() / (expiry / 3).as_millis()) as u64 + 2;
    assert!(
        reads >= 1 && reads <= most,
        "{reads} reads in {busy:?} (at most {most}), for {calls} calls: {ran:?}"
    );
    assert_eq!(ran.len(), 1, "nothing but those reads: {ran:?}");
    assert!(calls > 2 * most, "the calls outnumber the reads: {calls}");
    eprintln!(
        "busy session: {calls} calls on a in {busy:?}, {reads} background reads (GETEX), key TTL {ttl} s after"
    );

    // `a` is gone, as far as the client knows: `b` serves the session.
    let (status, _, body) = common::net::post(&b, work_call(calls + 2), &in_session(&id)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""text":"b""#), "{body}");
    assert_eq!(stats[1].calls.load(Ordering::SeqCst), 1);
}

/// A session store that stops answering (its `redis-server` killed): a new session is
/// refused at once with 503 and `Retry-After` (never kept by this replica alone), within
/// the store's deadline rather than a reconnection schedule, `/readyz` says the store does
/// not answer; once a server listens there again, sessions are made and stored again.
#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_store_outage_refuses_new_sessions_at_once_and_readiness_names_it() {
    let Some((mut redis, url)) = redis_server().await else { return };
    let port: u16 = url.rsplit(':').next().and_then(|p| p.parse().ok()).expect("a port");
    let store = toolcall_mcp::RedisSessionStore::connect(&url).await.expect("connects");
    let shared: Arc<dyn SessionStore> = Arc::new(store);
    let stats = Arc::new(Stats::default());
    let server =
        McpServer::new(&GAUGE, Gauge::new("a", &stats)).with_http(|http| http.session_store = Some(shared));
    let uri = serve(server).await;
    let readyz = uri.replace("/mcp", "/readyz");
    let ready = || async { reqwest::get(&readyz).await.map(|r| r.status().as_u16()).unwrap_or(0) };
    assert_eq!(ready().await, 200);
    assert_eq!(common::net::post(&uri, common::net::initialize_body(), &[]).await.0, 200);
    assert_eq!(redis_keys(&url).await.len(), 1, "the session is stored");

    redis.kill().await.expect("redis-server stops");
    let started = std::time::Instant::now();
    let (status, headers, body) = common::net::post(&uri, common::net::initialize_body(), &[]).await;
    let waited = started.elapsed();
    assert_eq!(status, 503, "{body}");
    assert!(headers.get("retry-after").is_some() && body.contains("session store"), "{headers:?} {body}");
    assert!(waited < std::time::Duration::from_secs(3), "refused within the store's deadline: {waited:?}");
    let readiness = reqwest::get(&readyz).await.expect("answers");
    assert_eq!(readiness.status().as_u16(), 503);
    let why = readiness.text().await.unwrap_or_default();
    assert!(why.contains("the session store does not answer"), "{why}");

    let binary = redis_binary().expect("installed");
    let _redis = redis_server_on(&binary, port).await;
    let mut made = false;
    for _ in 0..100 {
        if common::net::post(&uri, common::net::initialize_body(), &[]).await.0 == 200 {
            made = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(made, "a session is made once the store answers again");
    assert_eq!(ready().await, 200);
    assert_eq!(redis_keys(&url).await.len(), 1, "and stored (the new server holds only it)");
}

/// Redis killed and started again under a stream of new sessions through two replicas
/// (#65 item 3): each `initialize` is answered 200 (stored) or 503 with `Retry-After`
/// (refused while the store does not answer), and every session that got a 200, made
/// before, during or after the outage, is served by both replicas afterwards: none was
/// kept by one replica alone, none was lost by the reconnection.
#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_session_answered_200_through_a_store_restart_is_served_by_both_replicas() {
    let Some(binary) = redis_binary() else {
        assert!(std::env::var_os("CI").is_none(), "redis-server is not installed (.ci/run installs it)");
        return;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = std::env::temp_dir().join(format!("toolcall-redis-restart-{port}"));
    std::fs::create_dir_all(&dir).unwrap();
    let mut redis = durable_redis_server_on(&binary, port, &dir).await;
    let url = format!("redis://127.0.0.1:{port}");
    let replica = |name: &'static str| {
        let store = toolcall_mcp::RedisSessionStore::connect_lazy(&url).expect("a Redis URL");
        let shared: Arc<dyn SessionStore> = Arc::new(store);
        serve(
            McpServer::new(&GAUGE, Gauge::new(name, &Arc::new(Stats::default())))
                .with_http(move |http| http.session_store = Some(Arc::clone(&shared))),
        )
    };
    let uris = [replica("a").await, replica("b").await];
    // Four clients open sessions for 3 s, alternating replicas; Redis is down from 0.8 s
    // to 1.8 s.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(3);
    let mut clients = Vec::new();
    for client in 0..4usize {
        let uris = uris.clone();
        clients.push(tokio::spawn(async move {
            let (mut made, mut refused) = (Vec::new(), 0usize);
            let mut n = client;
            while std::time::Instant::now() < until {
                let (status, headers, body) =
                    common::net::post(&uris[n % 2], common::net::initialize_body(), &[]).await;
                n += 1;
                match status {
                    200 => made.push(headers["mcp-session-id"].to_str().unwrap().to_owned()),
                    503 => {
                        assert!(headers.get("retry-after").is_some(), "{body}");
                        refused += 1;
                    }
                    other => panic!("initialize answered {other}: {body}"),
                }
            }
            (made, refused)
        }));
    }
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    redis.kill().await.expect("redis-server stops");
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    let _redis = durable_redis_server_on(&binary, port, &dir).await;
    let (mut made, mut refused) = (Vec::new(), 0);
    for client in clients {
        let (sessions, refusals) = client.await.unwrap();
        made.extend(sessions);
        refused += refusals;
    }
    assert!(refused > 0, "the outage was seen");
    assert!(made.len() > 8, "sessions made before and after it: {}", made.len());
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string();
    let mut lost = Vec::new();
    for session in &made {
        for uri in &uris {
            let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-06-18")];
            let (status, _, body) = common::net::post(uri, list.clone(), &headers).await;
            if status != 200 || !body.contains("\"tools\"") {
                lost.push(format!("{session} on {uri}: {status} {body}"));
            }
        }
    }
    assert!(
        lost.is_empty(),
        "{} of {} sessions not served everywhere: {lost:#?}",
        lost.len() / 2,
        made.len()
    );
    eprintln!(
        "store restart: {} sessions made (all served by both replicas), {refused} refused with 503 during the outage",
        made.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Readiness answers within its own deadline whatever the readiness function does: one
/// that hangs is 503 naming the wait, within about a second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_answers_within_its_deadline_when_its_check_hangs() {
    let stats = Arc::new(Stats::default());
    let server = McpServer::new(&GAUGE, Gauge::new("a", &stats)).with_http(|http| {
        http.readiness_timeout = std::time::Duration::from_millis(300);
        http.ready_when(|| async {
            std::future::pending::<()>().await;
            Ok(())
        });
    });
    let uri = serve(server).await;
    let started = std::time::Instant::now();
    let answer = reqwest::get(uri.replace("/mcp", "/readyz")).await.expect("answers");
    assert!(started.elapsed() < std::time::Duration::from_secs(3), "{:?}", started.elapsed());
    assert_eq!(answer.status().as_u16(), 503);
    let why = answer.text().await.unwrap_or_default();
    assert_eq!(why, "not ready: the readiness check did not answer within 300 ms\n");
}
