//! Parked legacy sessions: a session that needs nothing of rmcp's session machinery holds
//! none of it.
//!
//! rmcp serves a session with a worker task, the handler's task and their channels: some
//! 60-80 KiB that an idle session keeps for as long as it lives. Most of a session's
//! requests never need them: the hot path ([`super::hot`]) answers `initialize`,
//! `notifications/initialized`, `tools/call` and `tools/list` without rmcp. So a session
//! starts parked: an entry in the session table and its client's `initialize` params, a
//! few hundred bytes. The first request that needs rmcp (a standalone GET stream, a
//! subscription, `logging/setLevel`, a call whose client can be asked or wants progress)
//! finds rmcp without the session, and rmcp restores it from this store, as it restores a
//! session another replica created: it replays the `initialize` and `initialized` the
//! client sent, then serves the request; the session's other requests to rmcp wait their
//! turn meanwhile ([`super::sessions::RestoreGate`]: rmcp's worker ends if anything but the
//! replayed `initialize` reaches it first). rmcp's worker ends an idle session after the
//! session idle time; the session then parks again, until the session table's own idle
//! time ends it ([`super::sessions`]).
//!
//! With a shared session store ([`HttpSettings::session_store`]), a session this replica
//! does not know is read from there. What is kept here is written there once per new
//! session, its owner beside the params, by the session guard ([`super::sessions`]):
//! neither `keep` (the hot path's sessions) nor `store` (those rmcp opens itself) writes
//! to it.
//!
//! [`HttpSettings::session_store`]: crate::HttpSettings::session_store

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::body::Bytes;
use rmcp::model::InitializeRequestParams;
use rmcp::transport::streamable_http_server::session::{SessionState, SessionStore, SessionStoreError};

/// What rmcp restores sessions from: each parked (or live) session's `initialize` params
/// as the client sent them, and the shared store behind them, if any.
pub(crate) struct Parked {
    params: Mutex<HashMap<Arc<str>, Bytes>>,
    shared: Option<Arc<dyn SessionStore>>,
}

/// The future of one store operation (what `async_trait` would box).
type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, SessionStoreError>> + Send + 'a>>;

impl Parked {
    /// No session yet; sessions are also written to and read from `shared`.
    pub(crate) fn new(shared: Option<Arc<dyn SessionStore>>) -> Self {
        Parked { params: Mutex::new(HashMap::new()), shared }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<Arc<str>, Bytes>> {
        // Every change is one insert or remove: a poisoned lock is consistent.
        self.params.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Keeps session `id`'s `initialize` params (their JSON text), here only: the session
    /// guard writes them to the shared store.
    pub(crate) fn keep(&self, id: &Arc<str>, params: Bytes) {
        self.lock().insert(Arc::clone(id), params);
    }

    /// The state kept for session `id`: what the session guard writes to the shared store.
    pub(crate) fn kept(&self, id: &str) -> Option<SessionState> {
        let params = self.lock().get(id).cloned()?;
        state_of(&params)
    }

    /// Forgets session `id` here (the shared store is the session table's to clean).
    pub(crate) fn forget(&self, id: &str) {
        self.lock().remove(id);
    }

    /// How many sessions are kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }
}

/// A session's state from its `initialize` params' JSON text.
fn state_of(params: &[u8]) -> Option<SessionState> {
    let params: InitializeRequestParams = serde_json::from_slice(params).ok()?;
    Some(SessionState::new(params))
}

/// rmcp's store trait, written out as `async_trait` would write it. rmcp stores a session
/// only when it opened it (an `initialize` the hot path left to rmcp); that is kept here,
/// and the session guard writes it to the shared store with its owner.
impl SessionStore for Parked {
    fn load<'a, 'b, 'c>(&'a self, session_id: &'b str) -> StoreFuture<'c, Option<SessionState>>
    where
        'a: 'c,
        'b: 'c,
        Self: 'c,
    {
        Box::pin(async move {
            let kept = self.lock().get(session_id).cloned();
            if let Some(state) = kept.as_deref().and_then(state_of) {
                return Ok(Some(state));
            }
            match &self.shared {
                Some(shared) => shared.load(session_id).await,
                None => Ok(None),
            }
        })
    }

    fn store<'a, 'b, 'd, 'c>(&'a self, session_id: &'b str, state: &'d SessionState) -> StoreFuture<'c, ()>
    where
        'a: 'c,
        'b: 'c,
        'd: 'c,
        Self: 'c,
    {
        Box::pin(async move {
            let text = serde_json::to_vec(&state.initialize_params)?;
            self.lock().insert(Arc::from(session_id), Bytes::from(text));
            Ok(())
        })
    }

    fn delete<'a, 'b, 'c>(&'a self, session_id: &'b str) -> StoreFuture<'c, ()>
    where
        'a: 'c,
        'b: 'c,
        Self: 'c,
    {
        Box::pin(async move {
            self.forget(session_id);
            match &self.shared {
                Some(shared) => shared.delete(session_id).await,
                None => Ok(()),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[tokio::test]
    async fn a_kept_session_is_loaded_back_and_forgotten_on_delete() {
        let parked = Parked::new(None);
        let id: Arc<str> = Arc::from("s-1");
        let params =
            br#"{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#;
        parked.keep(&id, Bytes::from_static(params));
        assert_eq!(parked.kept("s-1").unwrap().initialize_params.client_info.name, "c");
        let state = parked.load("s-1").await.unwrap().unwrap();
        assert_eq!(state.initialize_params.protocol_version.as_str(), "2025-06-18");
        assert_eq!(state.initialize_params.client_info.name, "c");
        assert!(parked.load("s-2").await.unwrap().is_none());
        parked.delete("s-1").await.unwrap();
        assert!(parked.load("s-1").await.unwrap().is_none());
        assert_eq!(parked.len(), 0);
    }

    /// What the hot path keeps and what rmcp stores stay here: the session guard writes a
    /// new session to the shared store, once, with its owner.
    #[tokio::test]
    async fn nothing_kept_or_stored_here_is_written_to_the_shared_store() {
        let shared = Arc::new(super::super::test_store::TestStore::default());
        let parked = Parked::new(Some(Arc::clone(&shared) as Arc<dyn SessionStore>));
        let params =
            br#"{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#;
        parked.keep(&Arc::from("s-1"), Bytes::from_static(params));
        let state = state_of(params).unwrap();
        parked.store("s-2", &state).await.unwrap();
        assert_eq!(shared.writes.load(std::sync::atomic::Ordering::SeqCst), 0);
        assert_eq!(parked.kept("s-2").unwrap().initialize_params.client_info.name, "c");
        assert_eq!(parked.len(), 2);
    }
}
