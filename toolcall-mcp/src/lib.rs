#![doc = include_str!("../README.md")]
// A request's path (the HTTP front, the session guard, the hot path, a call) is written as
// functions returning `async move` blocks rather than as `async fn`s on purpose: an async
// fn's future keeps each argument twice (as given, then moved into a local), and every
// future is moved whole into the one awaiting it, so each such level cost a copy of its
// arguments per request (#66: 51 KB copied per call, 39 KB after).
#![allow(clippy::manual_async_fn)]

/// What [`server!`] expands to: the stand-ins for what a crate did not generate.
#[doc(hidden)]
#[path = "generated.rs"]
pub mod __generated;
mod arguments;
#[cfg(feature = "ask")]
mod ask;
mod boxed;
mod call;
#[cfg(any(feature = "resources", feature = "prompts"))]
mod completion;
mod context;
mod error;
mod handler;
#[cfg(feature = "http")]
mod idempotency;
mod inline;
mod limit;
// Its readers are the HTTP hot path's and a call's rounds, beside the progress token and
// log level every transport reads.
mod list;
mod listen;
#[cfg_attr(not(all(feature = "http", feature = "ask")), allow(dead_code))]
mod meta;
#[cfg(feature = "oauth")]
pub mod oauth;
#[cfg(feature = "http")]
mod plain;
#[cfg(feature = "prompts")]
pub mod prompts;
mod request;
#[cfg(feature = "resources")]
pub mod resources;
mod revision;
pub mod search;
mod server;
#[cfg(feature = "redis")]
mod session_store;
#[cfg(feature = "http")]
mod settings;
mod stdio;
#[cfg(feature = "http")]
mod streamable_http;
#[cfg(any(feature = "resources", feature = "prompts"))]
mod string_arguments;
mod talk;
#[cfg(feature = "tasks")]
pub mod tasks;
pub mod telemetry;

pub use error::{ERROR_META_KEY, MAX_ERROR_RESULT, ServeError, error_json};
/// The `http` crate, whose request head ([`http::request::Parts`]) the request function
/// reads.
pub use http;
#[cfg(feature = "http")]
pub use idempotency::{IDEMPOTENCY_KEY, InvalidIdempotencyKey, MAX_IDEMPOTENCY_KEY, idempotency_key};
pub use inline::DEFAULT_INLINE_BUDGET;
pub use listen::Notifier;
#[cfg(feature = "prompts")]
pub use prompts::Prompts;
#[cfg(feature = "http")]
pub use request::{Caller, Rejection, RequestFn, bearer_token};
#[cfg(feature = "resources")]
#[allow(deprecated)]
pub use resources::{ResourceNotifier, Resources};
/// The MCP SDK this crate serves with, for the model types resources and prompts use.
pub use rmcp;
#[cfg(feature = "http")]
pub use rmcp::transport::streamable_http_server::session::{SessionState, SessionStore, SessionStoreError};
pub use search::ToolSearch;
#[cfg(feature = "ask")]
pub use server::DEFAULT_REQUEST_STATE_TTL;
pub use server::{
    DEFAULT_LIST_TTL, DEFAULT_LOG_LEVEL, DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_LINE,
    DEFAULT_MAX_QUEUED_CALLS, DEFAULT_PAGE_SIZE, DEFAULT_TIMEOUT, MAX_QUEUED_REPORTS, McpServer, ToolFilter,
};
#[cfg(feature = "redis")]
pub use session_store::{RedisSessionStore, SESSION_KEY_PREFIX};
#[cfg(feature = "http")]
#[allow(deprecated)]
pub use settings::{
    DEFAULT_BODY_LIMIT, DEFAULT_BODY_TIMEOUT, DEFAULT_DRAIN_DELAY, DEFAULT_HEADER_TIMEOUT,
    DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_JSON_VALUES, DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_SESSIONS_PER_IDENTITY, DEFAULT_RATE_LIMIT_STORE_TIMEOUT, DEFAULT_READINESS_TIMEOUT,
    DEFAULT_SESSION_IDLE_TIMEOUT, DEFAULT_SESSION_STORE_TIMEOUT,
};
#[cfg(feature = "http")]
pub use settings::{HttpSettings, LOOPBACK_ORIGINS};
#[cfg(feature = "http")]
pub use streamable_http::forwarded::{Cidr, CidrError};
#[cfg(feature = "http")]
pub use streamable_http::health::{ReadyFn, ReadyFuture};
#[cfg(feature = "redis")]
pub use streamable_http::rate::RATE_KEY_PREFIX;
#[cfg(feature = "http")]
pub use streamable_http::rate::{RateLimit, RateLimitStore};
#[cfg(all(feature = "redis", feature = "tasks"))]
pub use tasks::redis::RedisTaskStore;
#[cfg(feature = "tasks")]
pub use tasks::{MemoryTaskStore, TaskSettings, TaskStore};
