//! Tasks in Redis (features `redis` and `tasks`): [`RedisTaskStore`], shared by every
//! replica connected to one Redis, so a task started on one replica is read, answered,
//! cancelled and, if that replica stops, reported failed by any other
//! ([`TaskSettings::in_store`](super::TaskSettings::in_store)).
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
//! use std::sync::Arc;
//! use toolcall_mcp::{RedisTaskStore, TaskSettings};
//!
//! let store = RedisTaskStore::connect("redis://127.0.0.1:6379").await?;
//! let tasks = TaskSettings::in_store(Arc::new(store));
//! // McpServer::new(..).tasks(tasks)
//! # Ok(()) }
//! ```
//!
//! # What is stored
//!
//! Three keys per task, each named by [`TASK_KEY_PREFIX`] and the task's id in braces: a
//! Redis Cluster hash tag, so the keys of one task are in one slot and one script may
//! touch two of them.
//!
//! | Key | Type | Written by | Holds |
//! |---|---|---|---|
//! | `toolcall:task:{ID}` | string | the replica running the task ([`TaskStore::save`]), or one that finds its lease lapsed | the [`TaskRecord`] as JSON |
//! | `toolcall:task:{ID}:answers` | hash | any replica, for `tasks/update` ([`TaskStore::answer`]) | the client's answers, by question key, each as JSON |
//! | `toolcall:task:{ID}:cancel` | string `1` | any replica, for `tasks/cancel` ([`TaskStore::cancel`]) | that the client asked to cancel |
//!
//! Every key expires when its task does: at its creation (`created_at`) plus its TTL
//! (`ttl_ms`). The record is written with `SET .. PXAT` that time, every rewrite the same
//! time, so a rewrite keeps the remaining TTL rather than starting it again; a side key is
//! given the record's remaining time when it is written, and is not written at all for a
//! task that is gone. Nothing outlives its task and nothing needs sweeping. (A record whose
//! `created_at` is not RFC 3339, which this crate never writes, is kept `ttl_ms` from its
//! latest write.)
//!
//! # What it costs
//!
//! Each operation is one round trip: `SET` ([`TaskStore::save`]), `GET`
//! ([`TaskStore::load`]), `HGETALL` ([`TaskStore::answers`]), `EXISTS`
//! ([`TaskStore::is_cancelled`]), and one `EVAL` of a short script for
//! [`TaskStore::answer`] and [`TaskStore::cancel`] (it reads the record's remaining time
//! and writes the side key with it, atomically). A running task is written at each change
//! and at least three times a lease (every 3.3 s with the default lease), and its replica
//! asks whether it was cancelled five times a second (at most every poll interval or
//! 200 ms) and, while a question waits, for the answers ten times a second. `tasks/get` is
//! a `GET` and an `HGETALL`.
//!
//! In Redis 7.0 (`MEMORY USAGE`), a task's record takes its JSON plus about 165 bytes:
//! about 620 bytes for a small completed task (a short text result), 1.6 KiB for one with
//! a 1 KiB text result. Its answers hash takes about 170 bytes with one short answer, and
//! its cancel flag about 100 bytes; a task never answered nor cancelled has neither. So a
//! million small tasks within their TTL take about 600 MiB. Needs Redis 6.2 or later
//! (`SET .. PXAT`).

use std::collections::BTreeMap;

use redis::FromRedisValue;
use redis::aio::ConnectionManager;
use serde_json::Value;

use super::epoch_ms;
use super::store::{StoreFuture, TaskRecord, TaskStore, TaskStoreError};

/// The key prefix of every task in the store: a task's record is
/// `toolcall:task:{ID}`, its answers `toolcall:task:{ID}:answers`, its cancellation
/// `toolcall:task:{ID}:cancel`.
pub const TASK_KEY_PREFIX: &str = "toolcall:task:";

/// The longest task id looked up: longer ones were never made by a server (its ids are
/// 32 hex digits), so a client's is unknown without asking Redis.
const MAX_ID_LEN: usize = 256;

/// The latest expiry written (the end of the year 9999, in milliseconds since the Unix
/// epoch): a longer TTL is cut to it, as Redis refuses times past `i64`.
const LATEST_EXPIRY_MS: u64 = 253_402_300_799_999;

/// `KEYS[1]` the record, `KEYS[2]` the answers; `ARGV` question keys and answers in turn.
/// Adds the answers with the record's remaining time, unless the task is gone.
const ANSWER: &str = r"
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 or ttl == 0 then return 0 end
for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
";

/// `KEYS[1]` the record, `KEYS[2]` the cancel flag: sets the flag with the record's
/// remaining time, unless the task is gone.
const CANCEL: &str = r"
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 or ttl == 0 then return 0 end
if ttl > 0 then redis.call('SET', KEYS[2], '1', 'PX', ttl) else redis.call('SET', KEYS[2], '1') end
return 1
";

/// Tasks in Redis, shared by every replica connected to it (see the [module](self)).
#[derive(Clone)]
pub struct RedisTaskStore {
    connection: ConnectionManager,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore").finish_non_exhaustive()
    }
}

impl RedisTaskStore {
    /// Connects to the Redis server at `url` (`redis://host:port/db`, `rediss://` for TLS
    /// where redis-rs has it). The connection is redis-rs's connection manager, which
    /// reconnects after a restart of the server.
    ///
    /// # Errors
    ///
    /// When the URL does not parse or the server does not answer.
    pub async fn connect(url: &str) -> Result<RedisTaskStore, redis::RedisError> {
        let client = crate::session_store::client(url)?;
        Ok(RedisTaskStore::from_connection(ConnectionManager::new(client).await?))
    }

    /// A store for the Redis server at `url` that connects at its first use, as
    /// [`RedisSessionStore::connect_lazy`](crate::RedisSessionStore::connect_lazy) does: a
    /// replica started while Redis is down starts, and a task request during an outage
    /// fails within about a second. Call it inside a tokio runtime.
    ///
    /// # Errors
    ///
    /// When the URL does not parse.
    pub fn connect_lazy(url: &str) -> Result<RedisTaskStore, redis::RedisError> {
        Ok(RedisTaskStore::from_connection(crate::session_store::lazy_connection(url)?))
    }

    /// A store on a connection made elsewhere (one a
    /// [`RedisSessionStore`](crate::RedisSessionStore) or the application also uses:
    /// clones of a connection manager share it).
    pub fn from_connection(connection: ConnectionManager) -> RedisTaskStore {
        RedisTaskStore { connection }
    }

    /// The key of task `id`'s record; its side keys add `:answers` and `:cancel`.
    fn key(id: &str) -> String {
        format!("{TASK_KEY_PREFIX}{{{id}}}")
    }

    /// Sends `command`; its answer read as `T`.
    async fn query<T: FromRedisValue>(&self, command: &redis::Cmd) -> Result<T, TaskStoreError> {
        let mut connection = self.connection.clone();
        command.query_async(&mut connection).await.map_err(|error| TaskStoreError(format!("redis: {error}")))
    }

    /// Runs `script` on the record of task `id` and its side key `suffix`, with `args`.
    async fn eval(
        &self,
        script: &str,
        id: &str,
        suffix: &str,
        args: &[String],
    ) -> Result<(), TaskStoreError> {
        let key = Self::key(id);
        let mut eval = redis::cmd("EVAL");
        eval.arg(script).arg(2).arg(&key).arg(format!("{key}{suffix}")).arg(args);
        self.query::<i64>(&eval).await.map(drop)
    }
}

/// When `record`'s keys expire, in milliseconds since the Unix epoch: its creation plus its
/// TTL (its latest write plus its TTL when its creation time does not parse).
fn expires_at_ms(record: &TaskRecord) -> u64 {
    chrono::DateTime::parse_from_rfc3339(&record.created_at)
        .ok()
        .and_then(|created| u64::try_from(created.timestamp_millis()).ok())
        .unwrap_or_else(epoch_ms)
        .saturating_add(record.ttl_ms)
        .min(LATEST_EXPIRY_MS)
}

/// The error of a record or answer of task `id` that is not the JSON it should be.
fn unreadable(id: &str, what: &str, error: serde_json::Error) -> TaskStoreError {
    TaskStoreError(format!("task {id}: {what} is not the JSON it should be: {error}"))
}

impl TaskStore for RedisTaskStore {
    fn save<'a>(&'a self, record: &'a TaskRecord) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let text = serde_json::to_string(record).map_err(|e| unreadable(&record.id, "the record", e))?;
            let mut set = redis::cmd("SET");
            set.arg(Self::key(&record.id)).arg(text).arg("PXAT").arg(expires_at_ms(record));
            self.query::<()>(&set).await
        })
    }

    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            if id.len() > MAX_ID_LEN {
                return Ok(None);
            }
            let text: Option<String> = self.query(redis::cmd("GET").arg(Self::key(id))).await?;
            text.map(|text| serde_json::from_str(&text).map_err(|e| unreadable(id, "its record", e)))
                .transpose()
        })
    }

    fn answer<'a>(&'a self, id: &'a str, answers: &'a BTreeMap<String, Value>) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if answers.is_empty() {
                return Ok(());
            }
            let mut args = Vec::with_capacity(answers.len() * 2);
            for (key, answer) in answers {
                args.push(key.clone());
                args.push(serde_json::to_string(answer).map_err(|e| unreadable(id, "an answer", e))?);
            }
            self.eval(ANSWER, id, ":answers", &args).await
        })
    }

    fn answers<'a>(&'a self, id: &'a str) -> StoreFuture<'a, BTreeMap<String, Value>> {
        Box::pin(async move {
            let key = format!("{}:answers", Self::key(id));
            let stored: BTreeMap<String, String> = self.query(redis::cmd("HGETALL").arg(key)).await?;
            stored
                .into_iter()
                .map(|(key, text)| {
                    let answer = serde_json::from_str(&text).map_err(|e| unreadable(id, "an answer", e))?;
                    Ok((key, answer))
                })
                .collect()
        })
    }

    fn cancel<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move { self.eval(CANCEL, id, ":cancel", &[]).await })
    }

    fn is_cancelled<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(
            async move { self.query(redis::cmd("EXISTS").arg(format!("{}:cancel", Self::key(id)))).await },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A working task created at `created_at`, kept `ttl_ms`.
    fn record(created_at: &str, ttl_ms: u64) -> TaskRecord {
        let mut record = crate::tasks::store::tests::record("a", ttl_ms);
        record.created_at = created_at.to_owned();
        record.last_updated_at = created_at.to_owned();
        record
    }

    #[test]
    fn a_task_expires_its_ttl_after_its_creation() {
        // As rmcp writes it (chrono's `to_rfc3339`), and with a zone.
        assert_eq!(expires_at_ms(&record("2026-01-01T00:00:00.250+00:00", 1_000)), 1_767_225_601_250);
        assert_eq!(expires_at_ms(&record("2026-01-01T01:00:00Z", 0)), 1_767_229_200_000);
        assert_eq!(expires_at_ms(&record("2026-01-01T01:00:00+01:00", 0)), 1_767_225_600_000);
        assert_eq!(expires_at_ms(&record("2026-01-01T00:00:00Z", u64::MAX)), LATEST_EXPIRY_MS);
        let unparsed = expires_at_ms(&record("yesterday", 60_000));
        let from_now = epoch_ms() + 60_000;
        assert!(unparsed.abs_diff(from_now) < 5_000, "{unparsed} vs {from_now}");
        assert_eq!(RedisTaskStore::key("0f"), "toolcall:task:{0f}");
    }
}
