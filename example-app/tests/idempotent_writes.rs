//! Idempotent writes across replicas (#65 item 7). An answer lost after replica A wrote:
//! the retry through replica B with the same `Idempotency-Key` finds A's note (without a
//! key it writes a second one). Then `kill -9` under load: clients write
//! notes through replica A, each write with its own `Idempotency-Key`; A is killed in the
//! middle of the load, and every write that failed there (whether or not A had committed
//! it) is sent again, with the same key, to replica B on the same Postgres. Afterwards
//! every key has exactly one note, every acknowledged note is there with its text, and no
//! write was lost.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod pg;
mod served;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use pg::{Cluster, say};
use serde_json::{Value, json};
use served::Served;
use sqlx::Connection as _;

/// Clients writing at once, and writes each.
const CLIENTS: usize = 4;
const WRITES: usize = 50;

/// Starts `--db DB serve --http 127.0.0.1:0` (tokenless: every request is user 1's).
async fn replica(db: &str) -> Served {
    served::serve(&["--db", db, "serve", "--http", "127.0.0.1:0"]).await
}

/// `add_note` with `text`, and with `key` as its `Idempotency-Key` when given, on the
/// server at `addr`: the note written, or why there is none (a connection lost, a status,
/// a tool error).
async fn post_add_note(
    http: &reqwest::Client,
    addr: &str,
    text: &str,
    key: Option<&str>,
) -> Result<Value, String> {
    let quoted = key.map(|key| format!("\"{key}\""));
    let headers: Vec<(&str, &str)> = quoted.iter().map(|key| ("idempotency-key", key.as_str())).collect();
    let result = served::call(http, addr, "add_note", json!({"text": text}), &headers).await?;
    if result["isError"] != false {
        return Err(format!("not written: {result}"));
    }
    serde_json::from_str(served::said(&result)).map_err(|e| format!("{e}: {result}"))
}

/// [`post_add_note`] with `key`.
async fn add_note(http: &reqwest::Client, addr: &str, text: &str, key: &str) -> Result<Value, String> {
    post_add_note(http, addr, text, Some(key)).await
}

/// [`post_add_note`] without a key, which must succeed: the note.
async fn add_note_unkeyed(http: &reqwest::Client, addr: &str, text: &str) -> Value {
    post_add_note(http, addr, text, None).await.unwrap()
}

/// How many notes the database holds with `key`.
async fn notes_with_key(db: &str, key: &str) -> i64 {
    let mut connection = sqlx::PgConnection::connect(db).await.unwrap();
    let count: (i64,) = sqlx::query_as("SELECT count(*) FROM notes WHERE idempotency_key = $1")
        .bind(key)
        .fetch_one(&mut connection)
        .await
        .unwrap();
    let _ = connection.close().await;
    count.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_retried_after_kill_9_are_written_once() {
    let cluster = match Cluster::start().await {
        Ok(cluster) => cluster,
        Err(why) => {
            say(&format!("idempotent_writes: skipped: {why}"));
            assert!(std::env::var_os("CI").is_none(), "CI installs Postgres: {why}");
            return;
        }
    };
    let db = cluster.database("idempotent").await;
    let (mut a, b) = (replica(&db).await, replica(&db).await);
    let (a_addr, b_addr) = (a.addr.clone(), b.addr.clone());
    // An answer lost after A wrote (what kill -9 does between commit and answer, rarely
    // hit by chance): the retry through B with the key finds A's note; without a key the
    // same retry writes the note twice.
    let http = reqwest::Client::new();
    let first = add_note(&http, &a_addr, "lost answer", "lost-1").await.unwrap();
    assert_eq!(add_note(&http, &b_addr, "lost answer", "lost-1").await.unwrap(), first);
    assert_eq!(notes_with_key(&db, "lost-1").await, 1);
    let unkeyed = add_note_unkeyed(&http, &b_addr, "lost answer").await;
    assert_ne!(unkeyed["id"], first["id"], "without a key a retry is a second note");
    let acknowledged = Arc::new(AtomicUsize::new(0));
    let (failed_on_a, committed_unacknowledged) =
        (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let mut clients = Vec::new();
    for client in 0..CLIENTS {
        let (a_addr, b_addr, db) = (a_addr.clone(), b_addr.clone(), db.clone());
        let (acknowledged, failed_on_a, committed) =
            (Arc::clone(&acknowledged), Arc::clone(&failed_on_a), Arc::clone(&committed_unacknowledged));
        clients.push(tokio::spawn(async move {
            let http = reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap();
            let mut written = Vec::new();
            let mut on_a = true;
            for n in 0..WRITES {
                let (text, key) = (format!("client {client} note {n}"), format!("c{client}-n{n}"));
                let mut note =
                    if on_a { add_note(&http, &a_addr, &text, &key).await } else { Err(String::new()) };
                if note.is_err() {
                    if on_a {
                        failed_on_a.fetch_add(1, Ordering::SeqCst);
                        on_a = false;
                        // Did A write it before it died? Then a retry without the key would
                        // write it twice.
                        if notes_with_key(&db, &key).await == 1 {
                            committed.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                    note = add_note(&http, &b_addr, &text, &key).await;
                }
                let note = note.unwrap_or_else(|why| panic!("{key} failed on B too: {why}"));
                assert_eq!(note["text"], text.as_str());
                acknowledged.fetch_add(1, Ordering::SeqCst);
                written.push((key, note));
            }
            written
        }));
    }
    // kill -9 once a third of the writes are acknowledged.
    while acknowledged.load(Ordering::SeqCst) < CLIENTS * WRITES / 3 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let pid = a.child.id().unwrap().to_string();
    assert!(tokio::process::Command::new("kill").args(["-KILL", &pid]).status().await.unwrap().success());
    let _ = a.child.wait().await;
    let mut written = Vec::new();
    for client in clients {
        written.extend(client.await.unwrap());
    }
    assert_eq!(written.len(), CLIENTS * WRITES);
    // One note per key, each as acknowledged.
    let mut connection = sqlx::PgConnection::connect(&db).await.unwrap();
    let rows: Vec<(i64, String, Option<String>)> =
        sqlx::query_as("SELECT id, text, idempotency_key FROM notes ORDER BY id")
            .fetch_all(&mut connection)
            .await
            .unwrap();
    let _ = connection.close().await;
    let keyed: Vec<_> =
        rows.iter().filter(|row| row.2.as_deref().is_some_and(|key| key.starts_with('c'))).collect();
    assert_eq!(keyed.len(), CLIENTS * WRITES, "no write lost, none written twice");
    for (key, note) in &written {
        let row = keyed.iter().find(|row| row.2.as_deref() == Some(key.as_str())).unwrap();
        assert_eq!((json!(row.0), json!(row.1)), (note["id"].clone(), note["text"].clone()), "{key}");
    }
    let (failed, committed) =
        (failed_on_a.load(Ordering::SeqCst), committed_unacknowledged.load(Ordering::SeqCst));
    assert!(failed >= 1, "every client was writing through A when it died");
    say(&format!(
        "idempotent_writes: {} writes, {failed} failed on A at kill -9 ({committed} of them committed by A before it died), all retried on B: {} notes, one per key",
        written.len(),
        keyed.len()
    ));
    tokio::task::spawn_blocking(move || drop(cluster)).await.unwrap();
}
