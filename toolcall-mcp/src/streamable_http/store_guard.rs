//! The shared session store, kept to a deadline: every operation on it
//! ([`HttpSettings::session_store`]) that does not answer within
//! [`HttpSettings::session_store_timeout`] fails, so a store that is down costs a request
//! a bounded wait, not a client library's reconnection schedule. The guard remembers
//! whether the store answered last: its outage and its recovery are each logged once (on
//! target [`LIFECYCLE_TARGET`]), and `/readyz` asks it ([`BoundedStore::check`]).
//!
//! [`HttpSettings::session_store`]: crate::HttpSettings::session_store
//! [`HttpSettings::session_store_timeout`]: crate::HttpSettings::session_store_timeout
//! [`LIFECYCLE_TARGET`]: crate::telemetry::LIFECYCLE_TARGET

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::{SessionState, SessionStore, SessionStoreError};

use crate::telemetry::LIFECYCLE_TARGET;

/// The future of one store operation (what `async_trait` would box).
type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, SessionStoreError>> + Send + 'a>>;

/// The id readiness reads: no session has it (session ids are random UUIDs).
const PROBE: &str = "toolcall-readiness-probe";

/// A session store whose operations end within a deadline, and whose outages are logged
/// once each.
pub(crate) struct BoundedStore {
    inner: Arc<dyn SessionStore>,
    timeout: Duration,
    /// Whether the last operation failed.
    down: AtomicBool,
}

impl BoundedStore {
    /// `inner`, each operation of it bounded by `timeout`.
    pub(crate) fn new(inner: Arc<dyn SessionStore>, timeout: Duration) -> BoundedStore {
        BoundedStore { inner, timeout, down: AtomicBool::new(false) }
    }

    /// Runs `operation` (`what` it does, for the log) within the deadline, and notes
    /// whether the store answered.
    async fn bounded<T>(
        &self,
        what: &str,
        operation: impl Future<Output = Result<T, SessionStoreError>>,
    ) -> Result<T, SessionStoreError> {
        let result = match tokio::time::timeout(self.timeout, operation).await {
            Ok(result) => result,
            Err(_) => Err(format!("no answer within {} ms", self.timeout.as_millis()).into()),
        };
        match &result {
            Ok(_) => {
                if self.down.swap(false, Ordering::SeqCst) {
                    log::info!(target: LIFECYCLE_TARGET, "the session store answers again");
                }
            }
            Err(error) => {
                if !self.down.swap(true, Ordering::SeqCst) {
                    log::warn!(
                        target: LIFECYCLE_TARGET,
                        "the session store failed ({what}): {error}; new sessions are refused with 503 until it answers"
                    );
                }
            }
        }
        result
    }

    /// Whether the store answers now (a read of a session no one has); why not.
    pub(crate) async fn check(&self) -> Result<(), String> {
        self.bounded("a readiness check", self.inner.load(PROBE))
            .await
            .map(|_| ())
            .map_err(|error| format!("the session store does not answer: {error}"))
    }
}

impl SessionStore for BoundedStore {
    fn load<'a, 'b, 'c>(&'a self, session_id: &'b str) -> StoreFuture<'c, Option<SessionState>>
    where
        'a: 'c,
        'b: 'c,
        Self: 'c,
    {
        Box::pin(self.bounded("reading a session", self.inner.load(session_id)))
    }

    fn store<'a, 'b, 'd, 'c>(&'a self, session_id: &'b str, state: &'d SessionState) -> StoreFuture<'c, ()>
    where
        'a: 'c,
        'b: 'c,
        'd: 'c,
        Self: 'c,
    {
        Box::pin(self.bounded("writing a session", self.inner.store(session_id, state)))
    }

    fn delete<'a, 'b, 'c>(&'a self, session_id: &'b str) -> StoreFuture<'c, ()>
    where
        'a: 'c,
        'b: 'c,
        Self: 'c,
    {
        Box::pin(self.bounded("deleting a session", self.inner.delete(session_id)))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::super::test_store::{Answer, TestStore};
    use super::*;

    #[tokio::test]
    async fn a_store_that_hangs_fails_within_the_deadline_and_readiness_says_so() {
        let store = BoundedStore::new(
            Arc::new(TestStore::answering(Answer::Hangs, Answer::Fails)),
            Duration::from_millis(50),
        );
        let started = std::time::Instant::now();
        let checked = store.check().await;
        assert!(started.elapsed() < Duration::from_secs(2), "bounded: {:?}", started.elapsed());
        assert_eq!(checked, Err("the session store does not answer: no answer within 50 ms".to_owned()));
        assert!(store.down.load(Ordering::SeqCst));
        // A delete that answers marks it up again.
        store.delete("x").await.unwrap();
        assert!(!store.down.load(Ordering::SeqCst));
    }

    #[tokio::test]
    async fn a_failing_store_says_why() {
        let store = BoundedStore::new(
            Arc::new(TestStore::answering(Answer::Fails, Answer::Fails)),
            Duration::from_secs(1),
        );
        let error = store.load("x").await.err().map(|e| e.to_string());
        assert_eq!(error.as_deref(), Some("connection refused"));
    }
}
