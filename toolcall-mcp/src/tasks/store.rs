//! Where tasks live: the [`TaskStore`] trait, its record ([`TaskRecord`]), and the store in
//! memory every server has by default ([`MemoryTaskStore`]). A store on Redis
#![cfg_attr(
    feature = "redis",
    doc = "([`RedisTaskStore`](crate::RedisTaskStore), feature `redis`) shares tasks between"
)]
#![cfg_attr(not(feature = "redis"), doc = "(`RedisTaskStore`, feature `redis`) shares tasks between")]
//! replicas.
//!
//! A task is written by one writer, the replica running it ([`TaskStore::save`]: its
//! status, status message, pending questions, result or error, and a lease the runner
//! renews). Other replicas only add to it on the side, under keys of their own, so no write
//! is lost to a concurrent one: the client's answers ([`TaskStore::answer`]) and its
//! cancellation ([`TaskStore::cancel`]), which the runner reads.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a store's operations return.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, TaskStoreError>> + Send + 'a>>;

/// A store that could not do what it was asked (the connection to Redis failed, a
/// record did not parse).
#[derive(Debug)]
pub struct TaskStoreError(pub String);

impl std::fmt::Display for TaskStoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "task store: {}", self.0)
    }
}

impl std::error::Error for TaskStoreError {}

/// Where a task stands (the extension's statuses).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    /// Running.
    Working,
    /// Waiting for the client to answer the questions in `input_requests`.
    InputRequired,
    /// Ended with a result (a tool error included).
    Completed,
    /// Ended with a protocol error (in `error`).
    Failed,
    /// Stopped at the client's request.
    Cancelled,
}

impl TaskState {
    /// Whether the task is over.
    pub fn is_terminal(self) -> bool {
        matches!(self, TaskState::Completed | TaskState::Failed | TaskState::Cancelled)
    }
}

/// One task as stored: everything `tasks/get` answers with, and who may see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// The task's id: 128 random bits, hex.
    pub id: String,
    /// A digest of the identity of the caller that started it: only that caller sees it.
    pub owner: String,
    /// The tool it runs.
    pub tool: String,
    /// Where it stands.
    pub state: TaskState,
    /// What the tool last reported (its progress message), if anything.
    pub status_message: Option<String>,
    /// When it was created and last changed, ISO 8601.
    pub created_at: String,
    /// See `created_at`.
    pub last_updated_at: String,
    /// How long it is kept after it was created, in milliseconds.
    pub ttl_ms: u64,
    /// How often a client should poll, in milliseconds.
    pub poll_interval_ms: u64,
    /// The questions waiting for an answer, by key: each an `InputRequest` as JSON.
    pub input_requests: BTreeMap<String, Value>,
    /// The tool's result (`CallToolResult` as JSON), once completed.
    pub result: Option<Value>,
    /// The JSON-RPC error (`{code, message, data}`), once failed.
    pub error: Option<Value>,
    /// The replica running it, for the logs.
    pub replica: String,
    /// Until when (milliseconds since the Unix epoch) the runner vouches for it: past it,
    /// a task that is not over is reported failed (its replica stopped).
    pub lease_until_ms: u64,
}

/// A place to keep tasks, shared by the replicas that serve them.
pub trait TaskStore: Send + Sync + 'static {
    /// Writes `record` (created or changed), kept `ttl_ms` after its creation.
    fn save<'a>(&'a self, record: &'a TaskRecord) -> StoreFuture<'a, ()>;

    /// The task `id`, unless there is none (never created, or expired).
    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>>;

    /// Adds the client's `answers` (by question key) to the task `id`.
    fn answer<'a>(&'a self, id: &'a str, answers: &'a BTreeMap<String, Value>) -> StoreFuture<'a, ()>;

    /// Every answer given to the task `id` so far, by question key.
    fn answers<'a>(&'a self, id: &'a str) -> StoreFuture<'a, BTreeMap<String, Value>>;

    /// Records that the client asked to cancel the task `id`.
    fn cancel<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()>;

    /// Whether the client asked to cancel the task `id`.
    fn is_cancelled<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool>;
}

/// Tasks in this process's memory: what a server keeps by default. Tasks are gone when
/// the process ends; a task's entry is dropped once its TTL has passed.
#[derive(Debug, Default)]
pub struct MemoryTaskStore {
    tasks: Mutex<HashMap<String, Stored>>,
}

/// One task in memory, with what was added to it.
#[derive(Debug)]
struct Stored {
    record: TaskRecord,
    answers: BTreeMap<String, Value>,
    cancelled: bool,
    expires: Instant,
}

impl MemoryTaskStore {
    /// An empty store.
    pub fn new() -> MemoryTaskStore {
        MemoryTaskStore::default()
    }

    /// How many tasks it holds (expired ones included until the next write).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether it holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Stored>> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` on the live entry `id`, if there is one.
    fn with<T>(&self, id: &str, f: impl FnOnce(&mut Stored) -> T) -> Option<T> {
        let mut tasks = self.lock();
        let now = Instant::now();
        tasks.get_mut(id).filter(|stored| stored.expires > now).map(f)
    }
}

/// A future already done.
fn ready<'a, T: Send + 'a>(value: T) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(Ok(value)))
}

impl TaskStore for MemoryTaskStore {
    fn save<'a>(&'a self, record: &'a TaskRecord) -> StoreFuture<'a, ()> {
        let mut tasks = self.lock();
        let now = Instant::now();
        tasks.retain(|_, stored| stored.expires > now);
        match tasks.get_mut(&record.id) {
            Some(stored) => stored.record = record.clone(),
            None => {
                let expires = now + Duration::from_millis(record.ttl_ms);
                let stored =
                    Stored { record: record.clone(), answers: BTreeMap::new(), cancelled: false, expires };
                tasks.insert(record.id.clone(), stored);
            }
        }
        ready(())
    }

    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        ready(self.with(id, |stored| stored.record.clone()))
    }

    fn answer<'a>(&'a self, id: &'a str, answers: &'a BTreeMap<String, Value>) -> StoreFuture<'a, ()> {
        self.with(id, |stored| stored.answers.extend(answers.iter().map(|(k, v)| (k.clone(), v.clone()))));
        ready(())
    }

    fn answers<'a>(&'a self, id: &'a str) -> StoreFuture<'a, BTreeMap<String, Value>> {
        ready(self.with(id, |stored| stored.answers.clone()).unwrap_or_default())
    }

    fn cancel<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        self.with(id, |stored| stored.cancelled = true);
        ready(())
    }

    fn is_cancelled<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        ready(self.with(id, |stored| stored.cancelled).unwrap_or(false))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A working task `id`, kept `ttl_ms`: what the stores' tests save.
    pub(crate) fn record(id: &str, ttl_ms: u64) -> TaskRecord {
        TaskRecord {
            id: id.to_owned(),
            owner: String::new(),
            tool: "slow".to_owned(),
            state: TaskState::Working,
            status_message: None,
            created_at: "2026-12-04T00:00:00Z".to_owned(),
            last_updated_at: "2026-12-04T00:00:00Z".to_owned(),
            ttl_ms,
            poll_interval_ms: 500,
            input_requests: BTreeMap::new(),
            result: None,
            error: None,
            replica: "r1".to_owned(),
            lease_until_ms: 0,
        }
    }

    fn now<T>(future: StoreFuture<'_, T>) -> T {
        let mut future = future;
        match future.as_mut().poll(&mut std::task::Context::from_waker(std::task::Waker::noop())) {
            std::task::Poll::Ready(Ok(value)) => value,
            _ => panic!("the memory store answers at once"),
        }
    }

    #[test]
    fn a_saved_task_is_loaded_with_its_answers_and_cancellation_kept_apart() {
        let store = MemoryTaskStore::new();
        let mut task = record("a", 60_000);
        now(store.save(&task));
        now(store.answer("a", &BTreeMap::from([("q0".to_owned(), serde_json::json!({"action": "accept"}))])));
        now(store.cancel("a"));
        task.state = TaskState::InputRequired;
        now(store.save(&task));
        assert_eq!(now(store.load("a")), Some(task));
        assert_eq!(now(store.answers("a")).len(), 1, "a save of the record keeps the answers");
        assert!(now(store.is_cancelled("a")), "and the cancellation");
        assert_eq!(now(store.load("b")), None);
        assert!(!now(store.is_cancelled("b")));
    }

    #[test]
    fn a_task_past_its_ttl_is_gone() {
        let store = MemoryTaskStore::new();
        now(store.save(&record("a", 0)));
        assert_eq!(now(store.load("a")), None);
        now(store.save(&record("b", 60_000)));
        assert_eq!(store.len(), 1, "a write drops the expired entries");
    }
}
