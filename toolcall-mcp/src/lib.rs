#![doc = include_str!("../README.md")]

#[cfg(any(feature = "resources", feature = "prompts"))]
mod arguments;
#[cfg(feature = "ask")]
mod ask;
mod call;
#[cfg(any(feature = "resources", feature = "prompts"))]
mod completion;
mod context;
mod error;
mod handler;
mod inline;
mod limit;
mod list;
#[cfg(feature = "oauth")]
pub mod oauth;
mod plain;
#[cfg(feature = "prompts")]
pub mod prompts;
mod request;
#[cfg(feature = "resources")]
pub mod resources;
mod revision;
mod server;
#[cfg(feature = "redis")]
mod session_store;
mod settings;
mod stdio;
mod streamable_http;
mod talk;
pub mod telemetry;

/// The `http` crate, whose request head ([`http::request::Parts`]) the request function
/// reads.
pub use axum::http;
pub use error::{ERROR_META_KEY, MAX_ERROR_RESULT, ServeError, error_json};
pub use inline::DEFAULT_INLINE_BUDGET;
#[cfg(feature = "prompts")]
pub use prompts::Prompts;
pub use request::{Caller, Rejection, RequestFn, bearer_token};
#[cfg(feature = "resources")]
pub use resources::{ResourceNotifier, Resources};
/// The MCP SDK this crate serves with, for the model types resources and prompts use.
pub use rmcp;
pub use rmcp::transport::streamable_http_server::session::{SessionState, SessionStore, SessionStoreError};
#[cfg(feature = "ask")]
pub use server::DEFAULT_REQUEST_STATE_TTL;
pub use server::{
    DEFAULT_LIST_TTL, DEFAULT_LOG_LEVEL, DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_LINE,
    DEFAULT_MAX_QUEUED_CALLS, DEFAULT_PAGE_SIZE, DEFAULT_TIMEOUT, MAX_QUEUED_REPORTS, McpServer, ToolFilter,
};
#[cfg(feature = "redis")]
pub use session_store::{RedisSessionStore, SESSION_KEY_PREFIX};
#[allow(deprecated)]
pub use settings::{
    DEFAULT_BODY_LIMIT, DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_JSON_VALUES, DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_SESSIONS_PER_IDENTITY, DEFAULT_SESSION_IDLE_TIMEOUT,
};
pub use settings::{HttpSettings, LOOPBACK_ORIGINS};
pub use streamable_http::health::{ReadyFn, ReadyFuture};
pub use streamable_http::rate::RateLimit;
