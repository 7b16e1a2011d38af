//! `--db` on the binary (#34 items 1, 3, 5): a note written by one process is read by the
//! next, `serve` and `agent` use the same database as `call`, and a database that cannot
//! be opened is one line on stderr and exit status 1 for every command that runs tools.
//! On Postgres too when `initdb` and `postgres` are installed: versioned migrations that
//! replicas run at once (#45 item 7), and a replica that starts while its database is
//! down, not ready until it is back.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../toolcall-agent/tests/common/mod.rs"]
mod common;
mod pg;
mod served;

use std::process::{Output, Stdio};

use common::{Server, answer, tool_calls};
use pg::{Cluster, TempDir, say};
use serde_json::{Value, json};
use served::{Served, said};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const BIN: &str = env!("CARGO_BIN_EXE_example-app");

/// Runs `example-app ARGS..` to completion.
async fn run(args: &[&str]) -> Output {
    tokio::process::Command::new(BIN)
        .args(args)
        .env_remove("TOOLCALL_MCP_TOKEN")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .output()
        .await
        .expect("example-app runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `call NAME JSON` on `db`, which must succeed: its JSON result.
async fn call(db: &str, name: &str, args: &str) -> Value {
    let out = run(&["--db", db, "call", name, args]).await;
    assert!(out.status.success(), "{name} {args}: {}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn texts(notes: &Value) -> Vec<&str> {
    notes.as_array().unwrap().iter().map(|note| note["text"].as_str().unwrap()).collect()
}

/// Three processes, one database: add, list (`--db` after the command), remove, list.
async fn a_note_outlives_its_process(db: &str) {
    let added = call(db, "add_note", r#"{"text":"written by the first process"}"#).await;
    assert_eq!(added["owner"], 1);
    let out = run(&["call", "--db", db, "list_notes", "{}"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed, json!([added]));
    let id = added["id"].to_string();
    assert_eq!(call(db, "remove_note", &format!(r#"{{"id":{id}}}"#)).await, added);
    assert_eq!(call(db, "list_notes", "{}").await, json!([]));
    let gone = run(&["--db", db, "call", "remove_note", &format!(r#"{{"id":{id}}}"#)]).await;
    assert_eq!(gone.status.code(), Some(1));
    assert_eq!(text(&gone.stderr).trim(), format!("error: tool failed: you have no note {id}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_note_added_by_one_process_is_listed_by_the_next() {
    let dir = TempDir::new("db-cli");
    let db = dir.path("notes.db");
    a_note_outlives_its_process(db.to_str().unwrap()).await;
    // Without --db, each process has its own built-in database: nothing carries over.
    let out = run(&["call", "add_note", r#"{"text":"gone with the process"}"#]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(&["call", "list_notes", "{}"]).await;
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(texts(&listed), ["call the plumber about the boiler", "buy oat milk"]);
}

/// `serve --db F` over stdio: one `tools/call`, answered.
async fn serve_call(db: &str, name: &str, arguments: Value) -> Value {
    let mut child = tokio::process::Command::new(BIN)
        .args(["--db", db, "serve"])
        .env_remove("TOOLCALL_MCP_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = async |message: Value| stdin.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})).await;
    let reply: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(reply["id"], 1, "{reply}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": arguments}})).await;
    let reply: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(reply["id"], 2, "{reply}");
    assert_ne!(reply["result"]["isError"], true, "{reply}");
    drop(stdin);
    assert!(child.wait().await.unwrap().success());
    serde_json::from_str(reply["result"]["content"][0]["text"].as_str().unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_and_agent_use_the_same_database_as_call() {
    let dir = TempDir::new("db-cli");
    let db = dir.path("shared.db");
    let db = db.to_str().unwrap();
    call(db, "add_note", r#"{"text":"from call"}"#).await;

    // The MCP server lists it, and what it adds, call lists.
    let listed = serve_call(db, "list_notes", json!({})).await;
    assert_eq!(texts(&listed), ["from call"]);
    serve_call(db, "add_note", json!({"text": "from serve"})).await;
    assert_eq!(texts(&call(db, "list_notes", "{}").await), ["from serve", "from call"]);

    // The agent's tool calls run on it too (one turn each: the calls of a turn run
    // concurrently).
    let add = [("call_1", "add_note", r#"{"text":"from the agent"}"#)];
    let list = [("call_2", "list_notes", "{}")];
    let server = Server::start(vec![tool_calls(&add), tool_calls(&list), answer("done")]).await;
    let out = run(&["--db", db, "agent", "note it", "--base-url", &server.base_url]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let sent = server.requests()[2].body["messages"][4]["content"].as_str().unwrap().to_owned();
    let seen: Value = serde_json::from_str(&sent).unwrap();
    assert_eq!(texts(&seen), ["from the agent", "from serve", "from call"]);
    assert_eq!(texts(&call(db, "list_notes", "{}").await), ["from the agent", "from serve", "from call"]);
}

/// Every command that runs tools, on a database that cannot be used: one line on stderr
/// naming it (without its password), nothing on stdout, exit status 1.
async fn refused_by_every_command(db: &str, reason: &str) {
    let commands: [&[&str]; 5] = [
        &["call", "list_notes", "{}"],
        &["demo"],
        &[],
        &["serve"],
        &["agent", "hi", "--base-url", "http://127.0.0.1:1/v1"],
    ];
    for command in commands {
        let args: Vec<&str> = ["--db", db].into_iter().chain(command.iter().copied()).collect();
        let out = run(&args).await;
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: cannot open the database "), "{args:?}: {stderr}");
        assert!(stderr.contains(reason), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked") && !stderr.contains("s3cret"), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_db_is_one_line_and_exit_1() {
    let dir = TempDir::new("db-cli");
    let not_a_database = dir.path("notes.txt");
    std::fs::write(&not_a_database, "my notes, in plain text\n".repeat(50)).unwrap();
    let missing = dir.path("missing/notes.db");
    let cases = [
        (dir.0.to_str().unwrap(), "cannot create or open the file"),
        (missing.to_str().unwrap(), "cannot create or open the file"),
        (not_a_database.to_str().unwrap(), "it is not a SQLite database"),
        ("postgres://ada:s3cret@127.0.0.1:1/notes", "Connection refused"),
    ];
    for (db, reason) in cases {
        refused_by_every_command(db, reason).await;
    }
    assert!(!missing.parent().unwrap().exists(), "no folder is created");
    let usage = run(&["--db", "mysql://localhost/notes", "call", "list_notes", "{}"]).await;
    assert_eq!(usage.status.code(), Some(2), "a scheme that is not supported is a usage error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_when_available() {
    let cluster = match Cluster::start().await {
        Ok(cluster) => cluster,
        Err(why) => {
            say(&format!("db_cli: Postgres tests skipped: {why}"));
            assert!(why.contains("initdb"), "{why}");
            return;
        }
    };
    let db = cluster.database("cli").await;
    a_note_outlives_its_process(&db).await;
    let listed = serve_call(&db, "add_note", json!({"text": "served from Postgres"})).await;
    assert_eq!(listed["text"], "served from Postgres");
    assert_eq!(texts(&call(&db, "list_notes", "{}").await), ["served from Postgres"]);
    let missing = cluster.url("no_such_database");
    refused_by_every_command(&missing, "database \"no_such_database\" does not exist").await;
    say(&format!("db_cli: Postgres tests ran on a throwaway cluster at 127.0.0.1:{}", cluster.port));
    tokio::task::spawn_blocking(move || drop(cluster)).await.unwrap();
}

/// A GET of `path` on the server at `addr`: the status and the body.
async fn get(addr: &str, path: &str) -> (u16, String) {
    match reqwest::Client::new().get(format!("http://{addr}{path}")).send().await {
        Ok(response) => (response.status().as_u16(), response.text().await.unwrap_or_default()),
        Err(error) => (0, error.to_string()),
    }
}

/// Starts `--db DB serve --http 127.0.0.1:0 ARGS`.
async fn serve_http(db: &str, args: &[&str]) -> Served {
    let mut all = vec!["--db", db, "serve", "--http", "127.0.0.1:0"];
    all.extend_from_slice(args);
    served::serve(&all).await
}

/// A stateless `tools/call` of `name` on the server at `addr` (tokenless: user 1), which
/// must be answered: the tool's result.
async fn http_call(addr: &str, name: &str, arguments: Value) -> Value {
    served::call(&reqwest::Client::new(), addr, name, arguments, &[]).await.unwrap()
}

/// Postgres stopped under a serving replica (#65 item 4): once a call has found it
/// unreachable, every call fails at once with a retry hint (not after the pool's wait
/// each), readiness names the database, the outage and the recovery are one log line
/// each, and calls are served again once Postgres is back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_during_a_database_outage_fail_fast_and_recover() {
    let mut cluster = match Cluster::start().await {
        Ok(cluster) => cluster,
        Err(why) => {
            say(&format!("db_cli: Postgres outage test skipped: {why}"));
            assert!(std::env::var_os("CI").is_none(), "CI installs Postgres: {why}");
            return;
        }
    };
    let url = cluster.database("outage").await;
    let replica = serve_http(&url, &["--db-acquire-timeout", "3"]).await;
    let addr = replica.addr.clone();
    let added = http_call(&addr, "add_note", json!({"text": "before the outage"})).await;
    assert_eq!(added["isError"], false, "{added}");
    let stopper = tokio::task::spawn_blocking(move || {
        cluster.stop();
        cluster
    });
    let mut cluster = stopper.await.unwrap();
    // The first call finds it down (within the pool's wait, 3 s here).
    let started = std::time::Instant::now();
    let first = http_call(&addr, "add_note", json!({"text": "during the outage"})).await;
    assert_eq!(first["isError"], true, "{first}");
    let found = started.elapsed();
    assert!(found < std::time::Duration::from_secs(5), "{found:?}");
    // Every call after it fails at once, and says when to try again.
    let mut slowest = std::time::Duration::ZERO;
    for _ in 0..5 {
        let started = std::time::Instant::now();
        let refused = http_call(&addr, "list_notes", json!({})).await;
        let elapsed = started.elapsed();
        assert_eq!(refused["isError"], true, "{refused}");
        assert_eq!(
            said(&refused),
            "tool failed: could not list your notes: the notes database is unavailable; try again in 1 s"
        );
        assert!(
            elapsed < std::time::Duration::from_secs(1),
            "refused at once, not after the pool's wait: {elapsed:?}"
        );
        slowest = slowest.max(elapsed);
    }
    let restarted = std::time::Instant::now();
    let (status, body) = get(&addr, "/readyz").await;
    assert_eq!(status, 503, "{body}");
    assert!(body.starts_with("not ready: database: could not list your notes: "), "{body}");
    // Back: the probe finds it within a second or two, and calls are served.
    cluster.restart().await;
    let mut served = Value::Null;
    for _ in 0..50 {
        served = http_call(&addr, "list_notes", json!({})).await;
        if served["isError"] == false {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(served["isError"], false, "served again once Postgres is back: {served}");
    say(&format!(
        "db_cli: outage found by the first call in {found:.2?}; then refused in at most {slowest:.2?}; served {:.2?} after Postgres was back",
        restarted.elapsed()
    ));
    assert!(said(&served).contains("before the outage"), "{served}");
    assert_eq!(get(&addr, "/readyz").await, (200, "ready\n".to_owned()));
    // One line for the outage and one for its end, however many calls were refused.
    let lines = replica.lines();
    let outage: Vec<&String> = lines.iter().filter(|l| l.contains("example_app::database")).collect();
    assert_eq!(outage.len(), 2, "{lines:#?}");
    assert!(outage[0].starts_with("WARN example_app::database: database unreachable ("), "{outage:?}");
    assert!(
        outage[1].starts_with("INFO example_app::database: database answering again after "),
        "{outage:?}"
    );
    let port = format!(":{}", cluster.port);
    assert!(
        !lines.iter().any(|l| l.contains(&port) || l.contains("postgres://")),
        "nothing of the database's address: {lines:#?}"
    );
    tokio::task::spawn_blocking(move || drop(cluster)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_migrate_at_once_and_start_before_their_database() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("postgres://notes@127.0.0.1:{port}/postgres");
    // The database is down: a replica starts anyway, and says it is not ready.
    let replica = serve_http(&url, &["--db-pool", "2"]).await;
    let (addr, before) = (replica.addr.clone(), &replica.before);
    assert!(before.iter().any(|l| l.contains("not ready until the database answers")), "{before:?}");
    let (status, body) = get(&addr, "/readyz").await;
    assert_eq!(status, 503, "{body}");
    // The reason names the dependency, and nothing of its address.
    assert!(body.starts_with("not ready: database: could not open the notes database"), "{body}");
    assert!(!body.contains("127.0.0.1") && !body.contains(&port.to_string()), "{body}");
    assert_eq!(get(&addr, "/healthz").await.0, 200, "alive all the same");
    let cluster = match Cluster::start_on(port).await {
        Ok(cluster) => cluster,
        Err(why) => {
            say(&format!("db_cli: Postgres replica tests skipped: {why}"));
            assert!(std::env::var_os("CI").is_none(), "CI installs Postgres: {why}");
            return;
        }
    };
    // Back: the replica opens and migrates it, and says so.
    let mut ready = (0, String::new());
    for _ in 0..100 {
        ready = get(&addr, "/readyz").await;
        if ready.0 == 200 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(ready, (200, "ready\n".to_owned()));
    // Three replicas migrate a new database at once: each exits 0, each version is applied once.
    let fresh = cluster.database("replicas").await;
    let migrate = ["--db", fresh.as_str(), "migrate"];
    let runs = tokio::join!(run(&migrate), run(&migrate), run(&migrate));
    for out in [&runs.0, &runs.1, &runs.2] {
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains("is at schema version 2"), "{}", text(&out.stderr));
    }
    use sqlx::Connection as _;
    let mut admin = sqlx::PgConnection::connect(&fresh).await.unwrap();
    let versions: Vec<(i64, bool)> =
        sqlx::query_as("SELECT version, success FROM _sqlx_migrations ORDER BY version")
            .fetch_all(&mut admin)
            .await
            .unwrap();
    assert_eq!(versions, [(1, true), (2, true)]);
    let _ = admin.close().await;
    let missing = run(&["migrate"]).await;
    assert_eq!(missing.status.code(), Some(2), "migrate needs --db");
    tokio::task::spawn_blocking(move || drop(cluster)).await.unwrap();
}
