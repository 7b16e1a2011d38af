//! A session store on Redis (feature `redis`): sessions of clients before protocol
//! 2026-07-28 shared by replicas, so a session begun on one is served by any other
//! ([`HttpSettings::session_store`]).
//!
//! What is stored is what rmcp restores a session from (the client's `initialize`), as
//! JSON under `toolcall:session:{id}`, with the owner the HTTP layer adds: written once,
//! at the session's `initialize` (one `SETEX`). Each entry expires after the store's
//! expiry ([`RedisSessionStore::expiring_after`], the session's idle time) without a
//! read, so a store never fills with sessions no one ends: every read (`GETEX`) starts
//! the expiry again. No request in a session the replica holds waits for Redis; instead
//! each replica reads back the sessions in use there, in the background, each at most
//! about once per third of the session idle time (the session guard's refresh), so an
//! entry whose expiry is the idle time lives as long as its session does while Redis
//! answers, however busy the session.
//!
//! The connection is redis-rs's connection manager, which reconnects after a restart of
//! the server. Every connection toolcall-mcp opens to Redis (this store's, the task
//! store's, the rate-limit store's) has `TCP_NODELAY` on, so a command written while an
//! earlier one is unacknowledged goes at once instead of waiting out a delayed ACK (40 ms
//! on Linux).
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
//! use std::sync::Arc;
//! use toolcall_mcp::{HttpSettings, RedisSessionStore};
//!
//! let store = RedisSessionStore::connect("redis://127.0.0.1:6379").await?;
//! let mut http = HttpSettings::default();
//! http.session_store = Some(Arc::new(store.expiring_after(http.session_idle_timeout)));
//! # Ok(()) }
//! ```
//!
//! [`HttpSettings::session_store`]: crate::HttpSettings::session_store

use std::time::Duration;

use redis::AsyncCommands as _;
use redis::aio::ConnectionManager;
use rmcp::transport::streamable_http_server::session::{SessionState, SessionStore, SessionStoreError};

/// The key prefix of every session in the store.
pub const SESSION_KEY_PREFIX: &str = "toolcall:session:";

/// How long a stored session lives without use, unless told otherwise: rmcp's idle time
/// of a session.
const DEFAULT_EXPIRY: Duration = Duration::from_secs(300);

/// Sessions in Redis, shared by every replica connected to it.
#[derive(Clone)]
pub struct RedisSessionStore {
    connection: ConnectionManager,
    expiry: Duration,
}

impl std::fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessionStore").field("expiry", &self.expiry).finish_non_exhaustive()
    }
}

impl RedisSessionStore {
    /// Connects to the Redis server at `url` (`redis://host:port/db`, `rediss://` for
    /// TLS where redis-rs has it); entries expire after 5 minutes without use.
    ///
    /// # Errors
    ///
    /// When the URL does not parse or the server does not answer.
    pub async fn connect(url: &str) -> Result<RedisSessionStore, SessionStoreError> {
        let connection = ConnectionManager::new(client(url)?).await?;
        Ok(RedisSessionStore { connection, expiry: DEFAULT_EXPIRY })
    }

    /// A store for the Redis server at `url` that connects at its first use, not now: a
    /// replica started while Redis is down starts (its `/readyz` says the store does not
    /// answer until it does) and uses it once it answers. Each connection attempt and each
    /// answer has half a second (one retry), so an outage fails requests quickly. Call it
    /// inside a tokio runtime.
    ///
    /// # Errors
    ///
    /// When the URL does not parse.
    pub fn connect_lazy(url: &str) -> Result<RedisSessionStore, SessionStoreError> {
        Ok(RedisSessionStore { connection: lazy_connection(url)?, expiry: DEFAULT_EXPIRY })
    }

    /// The same store, its entries expiring after `expiry` without a read: a session's idle
    /// time, [`HttpSettings::session_idle_timeout`](crate::HttpSettings::session_idle_timeout).
    /// A session in use is read back once per third of that; reads may be two thirds apart,
    /// so an expiry shorter than that loses sessions in use.
    #[must_use]
    pub fn expiring_after(mut self, expiry: Duration) -> RedisSessionStore {
        self.expiry = expiry.max(Duration::from_secs(1));
        self
    }

    fn key(session_id: &str) -> String {
        format!("{SESSION_KEY_PREFIX}{session_id}")
    }
}

/// A client of the Redis server at `url` whose connections have `TCP_NODELAY` on
/// (redis-rs leaves it off): a command is sent when written, never held back by Nagle's
/// algorithm until the server acknowledges the previous one.
///
/// # Errors
///
/// When the URL does not parse.
pub(crate) fn client(url: &str) -> Result<redis::Client, redis::RedisError> {
    redis::Client::open(without_nagle(url)?)
}

/// The connection info `url` names, with `TCP_NODELAY` on.
fn without_nagle(url: &str) -> Result<redis::ConnectionInfo, redis::RedisError> {
    let info = redis::IntoConnectionInfo::into_connection_info(url)?;
    let tcp = info.tcp_settings().clone().set_nodelay(true);
    Ok(info.set_tcp_settings(tcp))
}

/// A connection manager for the Redis server at `url` that connects at its first use, and
/// whose attempts and answers each have half a second (one retry): what a replica that
/// must start and stay up while Redis is down uses.
///
/// # Errors
///
/// When the URL does not parse.
pub(crate) fn lazy_connection(url: &str) -> Result<ConnectionManager, redis::RedisError> {
    let client = client(url)?;
    let half_a_second = Some(Duration::from_millis(500));
    let config = redis::aio::ConnectionManagerConfig::new()
        .set_connection_timeout(half_a_second)
        .set_response_timeout(half_a_second)
        .set_number_of_retries(1);
    ConnectionManager::new_lazy_with_config(client, config)
}

#[async_trait::async_trait]
impl SessionStore for RedisSessionStore {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let mut connection = self.connection.clone();
        let key = Self::key(session_id);
        // Reading a session is using it: its expiry starts again (the session guard's
        // refresh of a session in use is this read).
        let text: Option<String> = connection.get_ex(&key, redis::Expiry::EX(self.expiry.as_secs())).await?;
        match text {
            Some(text) => Ok(Some(serde_json::from_str(&text)?)),
            None => Ok(None),
        }
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let mut connection = self.connection.clone();
        let text = serde_json::to_string(state)?;
        let () = connection.set_ex(Self::key(session_id), text, self.expiry.as_secs()).await?;
        Ok(())
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        let mut connection = self.connection.clone();
        let _: usize = connection.del(Self::key(session_id)).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn every_connection_has_nagle_off_and_keeps_what_the_url_says() {
        let info = without_nagle("redis://127.0.0.1:6390/3").unwrap();
        assert!(info.tcp_settings().nodelay(), "TCP_NODELAY is on");
        assert_eq!(info.addr().to_string(), "127.0.0.1:6390");
        assert_eq!(info.redis_settings().db(), 3);
        let error = client("http://127.0.0.1").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("URL"), "{error}");
    }
}
