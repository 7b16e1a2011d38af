//! A rolling restart under write load through the shipped proxies (#65 items 1 and 2).
//!
//! Three `example-app serve --http` replicas share one Postgres database (a throwaway
//! cluster, `--db postgres://..`) and keep legacy sessions in one `redis-server`
//! (`--session-store redis://..`), behind `deploy/nginx.conf` and then
//! `deploy/haproxy.cfg`, run by the real proxies with their addresses filled in and
//! nothing else changed. Clients of both lifecycles (legacy sessions and 2026-07-28) call
//! `add_note` without pause while each replica in turn gets SIGTERM, drains, exits 0 and is
//! replaced by a new process on the same port (so the proxy's configuration stays valid),
//! the next one stopped as soon as the replacement's `/readyz` answers 200. Every call is
//! answered with a successful result, writes go on during each restart, and the database
//! holds exactly the notes that were acknowledged, each once (a retried POST that had run
//! would show twice).
//!
//! The replicas drain with `--drain-delay 2` to keep the test short; the proxies'
//! configurations are the shipped ones. Under `CI` a missing Postgres, Redis, nginx or
//! HAProxy is a failure; elsewhere what is missing is skipped and said.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use sqlx::{Connection as _, Row as _};

mod deploy;
#[path = "../../toolcall-mcp/tests/common/redis.rs"]
mod local_redis;
// rmcp's client in either lifecycle, and a tool call's text or error.
#[path = "../../toolcall-mcp/tests/common/net.rs"]
#[allow(dead_code)]
mod net;
mod pg;
mod served;

use net::{Client, Era};

/// How long a replica serves on after SIGTERM while `/readyz` says draining.
const DRAIN_DELAY_SECS: &str = "2";
/// Clients of each lifecycle calling `add_note` at once.
const CLIENTS_PER_ERA: usize = 2;

/// One replica: its process, and the port its slot keeps across restarts.
struct Replica {
    child: tokio::process::Child,
    port: u16,
    /// Its stderr, line by line (the operator's log): shown when something fails.
    log: Arc<Mutex<Vec<String>>>,
}

impl Replica {
    /// `http://127.0.0.1:PORT/mcp`.
    fn uri(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

/// What the replicas are started with.
struct Setup {
    db: String,
    redis: String,
}

/// Starts a replica on `port` and waits until it listens and `/readyz` answers 200.
async fn start_replica(setup: &Setup, port: u16) -> Replica {
    let addr = format!("127.0.0.1:{port}");
    let args = ["--db", &setup.db, "serve", "--http", &addr, "--token", "s3cret"];
    let served = served::serve(
        &[&args[..], &["--session-store", &setup.redis, "--drain-delay", DRAIN_DELAY_SECS]].concat(),
    )
    .await;
    // What it said before listening, then the rest as it comes.
    served.log.lock().unwrap().splice(0..0, served.before);
    let (child, log) = (served.child, served.log);
    let replica = Replica { child, port, log };
    let readyz = format!("http://{addr}/readyz");
    let started = Instant::now();
    while !reqwest::get(&readyz).await.is_ok_and(|r| r.status() == 200) {
        assert!(started.elapsed() < Duration::from_secs(20), "{addr} not ready: {:#?}", replica.log);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    replica
}

/// A port nothing listens on now, for a replica's slot.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// How one replica's restart went.
struct Restart {
    /// SIGTERM to the process's exit (the drain).
    drained: Duration,
    /// The exit to the replacement's first 200 from `/readyz`.
    replaced: Duration,
    /// Notes acknowledged between the SIGTERM and the replacement's readiness.
    writes: usize,
}

/// SIGTERM to `replica`, its exit (status 0) awaited, and a replacement on its port,
/// ready; what it took.
async fn restart(replica: &mut Replica, setup: &Setup, acked: &AtomicUsize) -> Restart {
    let (acked_before, signalled) = (acked.load(Ordering::SeqCst), Instant::now());
    let pid = replica.child.id().expect("running").to_string();
    let killed = tokio::process::Command::new("kill").args(["-TERM", &pid]).status().await.unwrap();
    assert!(killed.success());
    let status = tokio::time::timeout(Duration::from_secs(30), replica.child.wait())
        .await
        .unwrap_or_else(|_| panic!("no exit within 30 s: {:#?}", replica.log))
        .unwrap();
    assert_eq!(status.code(), Some(0), "drained, then exited 0: {:#?}", replica.log);
    let drained = signalled.elapsed();
    *replica = start_replica(setup, replica.port).await;
    let replaced = signalled.elapsed() - drained;
    Restart { drained, replaced, writes: acked.load(Ordering::SeqCst) - acked_before }
}

/// What one client saw: the texts of the notes acknowledged, and every error.
#[derive(Default)]
struct Seen {
    acked: Vec<String>,
    errors: Vec<String>,
}

/// A client of `era` through `uri`, calling `add_note` with texts `PREFIX-N` one after
/// another until `stop`.
async fn writer(
    uri: String,
    era: Era,
    prefix: String,
    stop: Arc<AtomicBool>,
    acked: Arc<AtomicUsize>,
) -> Seen {
    let mut client = Client::new(&uri, era).token("s3cret");
    // A session the replicas forgot would be a failure here, not a silent new session.
    client.reinit = false;
    let service = client.connect().await.expect("connects through the proxy");
    let mut seen = Seen::default();
    let mut n = 0usize;
    while !stop.load(Ordering::SeqCst) {
        let text = format!("{prefix}-{n}");
        n += 1;
        match net::call(&service, "add_note", json!({ "text": text })).await {
            Ok(_) => {
                seen.acked.push(text);
                acked.fetch_add(1, Ordering::SeqCst);
            }
            Err(error) => seen.errors.push(format!("{text}: {error}")),
        }
    }
    let _ = service.cancel().await;
    seen
}

/// The texts of user 1's notes in the database at `db`.
async fn stored_texts(db: &str) -> Vec<String> {
    let mut connection = sqlx::PgConnection::connect(db).await.unwrap();
    let rows =
        sqlx::query("SELECT text FROM notes WHERE owner = 1").fetch_all(&mut connection).await.unwrap();
    let _ = connection.close().await;
    rows.iter().map(|row| row.get::<String, _>("text")).collect()
}

/// Three replicas behind `deploy/NAME`, written to by clients of both lifecycles while
/// each replica is restarted in turn; every call succeeds, and every acknowledged note
/// is stored once. `false` when the proxy is not installed (and `CI` is not set).
async fn rolling_restart_behind(name: &str, setup: &Setup) -> bool {
    let mut replicas = Vec::new();
    for _ in 0..3 {
        replicas.push(start_replica(setup, free_port()).await);
    }
    let uris: Vec<String> = replicas.iter().map(Replica::uri).collect();
    let Some(proxy) = deploy::proxy(name, [&uris[0], &uris[1], &uris[2]]).await else { return false };
    let (stop, acked) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicUsize::new(0)));
    let mut writers = Vec::new();
    for era in [Era::Legacy, Era::Stateless] {
        for i in 0..CLIENTS_PER_ERA {
            let prefix = format!("{}-{era:?}-{i}", proxy.program);
            let task = writer(proxy.uri.clone(), era, prefix, Arc::clone(&stop), Arc::clone(&acked));
            writers.push((era, tokio::spawn(task)));
        }
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(acked.load(Ordering::SeqCst) > 0, "writes go through {} before any restart", proxy.program);
    let started = Instant::now();
    let mut restarts = Vec::new();
    for replica in &mut replicas {
        restarts.push(restart(replica, setup, &acked).await);
    }
    let rolled = started.elapsed();
    tokio::time::sleep(Duration::from_secs(1)).await;
    stop.store(true, Ordering::SeqCst);
    let mut by_era: BTreeMap<String, usize> = BTreeMap::new();
    let (mut acknowledged, mut errors) = (Vec::new(), Vec::new());
    for (era, task) in writers {
        let seen = task.await.unwrap();
        assert!(!seen.acked.is_empty(), "a {era:?} client wrote nothing");
        *by_era.entry(format!("{era:?}")).or_default() += seen.acked.len();
        acknowledged.extend(seen.acked);
        errors.extend(seen.errors);
    }
    let restarts_said: Vec<String> = restarts
        .iter()
        .map(|r| {
            format!(
                "drain {:.2} s + replacement ready {:.2} s, {} writes meanwhile",
                r.drained.as_secs_f64(),
                r.replaced.as_secs_f64(),
                r.writes
            )
        })
        .collect();
    // nginx logs each attempt it retried elsewhere (HAProxy's configuration logs nothing).
    let retried = match proxy.program {
        "nginx" => format!(
            ", {} refused connections retried",
            proxy.log().matches("(111: Connection refused)").count()
        ),
        _ => String::new(),
    };
    pg::say(&format!(
        "rolling restart behind {}: {} writes ({by_era:?}), {} errors{retried}; 3 restarts in {:.2} s: {}",
        proxy.program,
        acknowledged.len(),
        errors.len(),
        rolled.as_secs_f64(),
        restarts_said.join("; ")
    ));
    let first = &errors[..errors.len().min(10)];
    let log = proxy.log();
    assert!(
        errors.is_empty(),
        "{} errors through {}, the first: {first:#?}\n{log}",
        errors.len(),
        proxy.program
    );
    for (i, restart) in restarts.iter().enumerate() {
        assert!(restart.writes > 0, "no write went through while replica {i} restarted");
    }
    // Every acknowledged note is stored, once; none is stored that was not acknowledged.
    let prefix = format!("{}-", proxy.program);
    let stored: Vec<String> =
        stored_texts(&setup.db).await.into_iter().filter(|t| t.starts_with(&prefix)).collect();
    let unique: BTreeSet<&String> = stored.iter().collect();
    assert_eq!(unique.len(), stored.len(), "a note stored twice through {}", proxy.program);
    let acknowledged: BTreeSet<&String> = acknowledged.iter().collect();
    let lost: Vec<&&String> = acknowledged.difference(&unique).take(10).collect();
    assert!(lost.is_empty(), "acknowledged but not stored: {lost:?}");
    assert_eq!(unique, acknowledged, "stored but never acknowledged");
    true
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_restart_under_writes_loses_nothing_through_either_proxy() {
    let cluster = match pg::Cluster::start().await {
        Ok(cluster) => cluster,
        Err(why) => {
            assert!(std::env::var_os("CI").is_none(), "rolling restart: Postgres is needed in CI: {why}");
            pg::say(&format!("SKIPPED: rolling restart: {why}"));
            return;
        }
    };
    let Some((_redis, redis)) = local_redis::redis_server().await else { return };
    let mut ran = 0;
    for (name, database) in [("nginx.conf", "behind_nginx"), ("haproxy.cfg", "behind_haproxy")] {
        let setup = Setup { db: cluster.database(database).await, redis: redis.clone() };
        if rolling_restart_behind(name, &setup).await {
            ran += 1;
        }
    }
    pg::say(&format!("rolling restart: ran behind {ran} of 2 proxies"));
    tokio::task::spawn_blocking(move || drop(cluster)).await.unwrap();
}
