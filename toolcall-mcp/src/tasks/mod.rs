//! Tasks (the MCP Tasks extension, `io.modelcontextprotocol/tasks`, SEP-2663): a call of a
//! tool declared `ToolMeta::task` (or `task_required`, `task_from_detach`), made by a
//! client that declared the extension, is answered at once with a task handle
//! (`resultType: "task"`) while the tool goes on; the client polls `tasks/get` for its
//! status and, once over, its result inlined; answers the tool's questions with
//! `tasks/update`; and may stop it with `tasks/cancel`.
//!
//! - [`store`]: where tasks live ([`TaskStore`]): in memory by default, in Redis with
#![cfg_attr(
    feature = "redis",
    doc = "  feature `redis` ([`crate::RedisTaskStore`]), so any replica answers for a task"
)]
#![cfg_attr(
    not(feature = "redis"),
    doc = "  feature `redis` (`RedisTaskStore`), so any replica answers for a task"
)]
//!   another started.
//! - [`run`]: a task's run on the replica that started it: the call, its reports and
//!   questions written to the task, cancellation read from the store, and a lease renewed
//!   while it runs; a task whose lease lapses (its replica stopped) is reported failed.
//! - [`methods`]: `tasks/get`, `tasks/update` and `tasks/cancel`, on any replica.
//!
//! Which clients get tasks: those whose `initialize` declared the extension, and any
//! request that declares it in its own `_meta` client capabilities (2026-07-28). Others
//! get a task tool's result as from any tool, or, for a `task_required` tool, error
//! -32021 naming the extension.

pub mod methods;
#[cfg(all(feature = "redis", feature = "tasks"))]
pub mod redis;
pub mod run;
pub mod start;
pub mod store;

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ErrorCode, ErrorData};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::json;

pub use store::{MemoryTaskStore, StoreFuture, TaskRecord, TaskState, TaskStore, TaskStoreError};

/// The extension's identifier, under `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The JSON-RPC error code of a request that needs a capability the client did not
/// declare (SEP-2575, "missing required client capability").
pub const MISSING_CAPABILITY: i32 = -32021;

/// How long a task is kept after it was created, unless told otherwise: one hour.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(3600);

/// How often a client is told to poll a task, unless told otherwise: half a second.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_millis(500);

/// How long a replica vouches for a task it runs before renewing, unless told otherwise:
/// ten seconds. A task whose replica stopped is reported failed within it.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(10);

/// Where a server keeps its tasks and how long ([`McpServer::tasks`](crate::McpServer::tasks)).
#[derive(Clone)]
pub struct TaskSettings {
    /// The store; in memory unless told otherwise.
    pub store: Arc<dyn TaskStore>,
    /// How long a task is kept after it was created ([`DEFAULT_TASK_TTL`]); it is also a
    /// task's time limit, unless its tool has its own (`ToolMeta::timeout_ms`).
    pub ttl: Duration,
    /// How often a client should poll ([`DEFAULT_POLL_INTERVAL`]); the running replica
    /// reads the client's answers and cancellation as often.
    pub poll_interval: Duration,
    /// How long a replica vouches for a running task between renewals ([`DEFAULT_LEASE`]).
    pub lease: Duration,
    /// This replica's name in the tasks it runs (for the logs); a random one by default.
    pub replica: String,
}

impl std::fmt::Debug for TaskSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskSettings")
            .field("ttl", &self.ttl)
            .field("poll_interval", &self.poll_interval)
            .field("lease", &self.lease)
            .field("replica", &self.replica)
            .finish_non_exhaustive()
    }
}

impl Default for TaskSettings {
    fn default() -> Self {
        TaskSettings::in_store(Arc::new(MemoryTaskStore::new()))
    }
}

impl TaskSettings {
    /// Tasks kept in `store`, with the default times.
    pub fn in_store(store: Arc<dyn TaskStore>) -> TaskSettings {
        let replica = crate::ask::fresh_id().map_or_else(|_| "replica".to_owned(), |id| id[..8].to_owned());
        TaskSettings {
            store,
            ttl: DEFAULT_TASK_TTL,
            poll_interval: DEFAULT_POLL_INTERVAL,
            lease: DEFAULT_LEASE,
            replica,
        }
    }
}

/// Whether the client of `context` takes tasks: the request's own `_meta` client
/// capabilities declare the extension, or else its session's `initialize` did.
pub(crate) fn client_takes_tasks(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .and_then(|capabilities| capabilities.extensions)
        .is_some_and(|extensions| extensions.contains_key(TASKS_EXTENSION))
}

/// Error -32021 for a request that needs the Tasks extension from a client that did not
/// declare it: `what` says which request.
pub(crate) fn missing_extension(what: &str) -> ErrorData {
    ErrorData::new(
        ErrorCode(MISSING_CAPABILITY),
        format!(
            "{what} needs the client capability extensions[\"{TASKS_EXTENSION}\"], which this client did not declare"
        ),
        Some(json!({"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}})),
    )
}

/// Who owns a task started by the caller of `context`: a digest of its identity (over HTTP
/// the request function's, else empty: one client).
pub(crate) fn owner_of(context: &RequestContext<RoleServer>) -> String {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(crate::request::identity(context).as_bytes());
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn epoch_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| u64::try_from(since.as_millis()).unwrap_or(u64::MAX))
}

/// A duration in whole milliseconds, at least one.
pub(crate) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX).max(1)
}
