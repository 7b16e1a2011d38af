//! Health and draining: what a load balancer and an orchestrator ask of a replica.
//!
//! `GET /healthz` answers 200 while the process serves (no authentication, no `Host`
//! check: probes come by address). `GET /readyz` answers 200 when the server takes calls:
//! not draining, and the readiness function ([`HttpSettings::readiness`]) says ready (a
//! database that answers); else 503 with the reason.
//!
//! Draining ([`McpServer::serve_http_until`]) has two steps, each a [`Phase`]:
//!
//! 1. **Announced**, for [`HttpSettings::drain_delay`]: `/readyz` answers 503 `draining`
//!    (a balancer's health check sees it and sends new requests elsewhere) while every
//!    request is still served, each response with `Connection: close`, so the keep-alive
//!    connections of a balancer without health checks (nginx) wind down: it closes each
//!    one itself, never sending on one the server is closing.
//! 2. **Stopping**: the listener takes the connections the kernel already accepted and
//!    closes, so a new connection is refused, which a balancer retries on another replica
//!    (safe for any request: nothing was sent); idle connections close, and the requests
//!    in flight (and one a connection already open is sending) finish within
//!    [`HttpSettings::drain_grace`]; then the server returns.
//!
//! No request is refused with a status: a 503 after a POST was sent is one nginx does not
//! retry (its `non_idempotent` rule), so the client would see it.
//!
//! [`HttpSettings::readiness`]: crate::HttpSettings::readiness
//! [`HttpSettings::drain_grace`]: crate::HttpSettings::drain_grace
//! [`HttpSettings::drain_delay`]: crate::HttpSettings::drain_delay
//! [`McpServer::serve_http_until`]: crate::McpServer::serve_http_until

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use tokio::sync::{Notify, watch};

/// What a readiness function answers: ready, or why not.
pub type ReadyFuture = Pin<Box<dyn Future<Output = Result<(), String>> + Send>>;

/// A readiness function: asked at each `GET /readyz`.
pub type ReadyFn = dyn Fn() -> ReadyFuture + Send + Sync;

/// Where a server is in its life, as its connections and `/readyz` see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Phase {
    /// Serving, ready as far as draining goes.
    Serving,
    /// Told to stop: `/readyz` says `draining`, requests are still served, each response
    /// with `Connection: close`.
    Announced,
    /// The listener is closed (new connections are refused); open connections finish
    /// the request they carry and close.
    Stopping,
}

/// A server's draining state and the MCP requests in flight, shared by its router, its
/// connections and the function serving it.
pub(crate) struct Health {
    /// The phase, which the accept loop and every connection watch.
    phase: watch::Sender<Phase>,
    /// Connections that hold a drain: open, and not answering a GET (a stream, which
    /// may last for hours: its client comes back elsewhere).
    busy: AtomicUsize,
    /// Told when `busy` comes to zero.
    idle: Notify,
    ready: Option<Arc<ReadyFn>>,
    /// The shared session store, which readiness asks first.
    store: Option<Arc<super::store_guard::BoundedStore>>,
    /// How long readiness waits for the readiness function.
    ready_within: Duration,
}

impl Default for Health {
    fn default() -> Self {
        Health {
            phase: watch::Sender::new(Phase::Serving),
            busy: AtomicUsize::new(0),
            idle: Notify::new(),
            ready: None,
            store: None,
            ready_within: Duration::ZERO,
        }
    }
}

impl Health {
    /// The state of a server whose readiness `ready` tells (always ready when `None`).
    pub(crate) fn new(ready: Option<Arc<ReadyFn>>) -> Self {
        Health { ready, ..Health::default() }
    }

    /// The same, whose readiness function has `within` to answer.
    pub(crate) fn within(mut self, within: Duration) -> Self {
        self.ready_within = within;
        self
    }

    /// The same, whose readiness also asks the session store `store`.
    pub(crate) fn with_store(mut self, store: Option<Arc<super::store_guard::BoundedStore>>) -> Self {
        self.store = store;
        self
    }

    /// From now on `/readyz` says draining and responses close their connections;
    /// requests are still served ([`Phase::Announced`]).
    pub(crate) fn announce_draining(&self) {
        self.advance(Phase::Announced);
    }

    /// From now on the listener takes no new connection, and open ones close once the
    /// request they carry is answered ([`Phase::Stopping`]).
    pub(crate) fn start_draining(&self) {
        self.advance(Phase::Stopping);
    }

    /// Moves to `phase`, never back.
    fn advance(&self, phase: Phase) {
        self.phase.send_if_modified(|now| {
            let later = phase > *now;
            if later {
                *now = phase;
            }
            later
        });
    }

    /// The phase now.
    pub(crate) fn phase(&self) -> Phase {
        *self.phase.borrow()
    }

    /// Resolves once the server is [`Phase::Stopping`]; never, for a server that is not
    /// drained.
    pub(crate) fn stopping(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut phase = self.phase.subscribe();
        async move {
            if phase.wait_for(|now| *now == Phase::Stopping).await.is_err() {
                // The server is gone without draining: nothing to wait for.
                std::future::pending::<()>().await;
            }
        }
    }

    /// Waits until no connection is busy ([`Hold`]), or `grace` passed; whether none is.
    pub(crate) async fn drained(&self, grace: Duration) -> bool {
        let wait = async {
            loop {
                let idle = self.idle.notified();
                if self.busy.load(Ordering::SeqCst) == 0 {
                    return;
                }
                idle.await;
            }
        };
        tokio::time::timeout(grace, wait).await.is_ok()
    }

    /// How many connections are busy: open, and not answering a GET.
    pub(crate) fn busy(&self) -> usize {
        self.busy.load(Ordering::SeqCst)
    }

    /// One busy connection, from its accept (so that one accepted just before the
    /// listener closes is waited for before its request has even arrived) until it
    /// closes.
    pub(crate) fn hold(self: &Arc<Self>) -> Hold {
        self.busy.fetch_add(1, Ordering::SeqCst);
        Hold(Arc::clone(self))
    }

    /// A held connection answering a GET: not busy until the answer is over.
    pub(crate) fn release(self: &Arc<Self>) -> Released {
        self.not_busy();
        Released(Arc::clone(self))
    }

    fn not_busy(&self) {
        if self.busy.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.idle.notify_waiters();
        }
    }
}

/// A busy connection, counted until dropped ([`Health::hold`]).
pub(crate) struct Hold(Arc<Health>);

impl Drop for Hold {
    fn drop(&mut self) {
        self.0.not_busy();
    }
}

/// A held connection answering a GET, not counted busy until dropped
/// ([`Health::release`]).
pub(crate) struct Released(Arc<Health>);

impl Drop for Released {
    fn drop(&mut self) {
        self.0.busy.fetch_add(1, Ordering::SeqCst);
    }
}

/// The `/healthz` and `/readyz` routes.
pub(crate) fn routes(health: Arc<Health>) -> axum::Router {
    axum::Router::new()
        .route("/healthz", axum::routing::get(|| async { (StatusCode::OK, "ok\n") }))
        .route("/readyz", axum::routing::get(ready).with_state(health))
}

/// `GET /readyz`: 200 when taking calls, else 503 with the reason.
async fn ready(State(health): State<Arc<Health>>) -> Response {
    if health.phase() != Phase::Serving {
        return (StatusCode::SERVICE_UNAVAILABLE, "draining\n").into_response();
    }
    if let Some(store) = &health.store
        && let Err(why) = store.check().await
    {
        return (StatusCode::SERVICE_UNAVAILABLE, format!("not ready: {why}\n")).into_response();
    }
    let Some(ready) = &health.ready else { return (StatusCode::OK, "ready\n").into_response() };
    let answer = match tokio::time::timeout(health.ready_within, ready()).await {
        Ok(answer) => answer,
        Err(_) => {
            Err(format!("the readiness check did not answer within {} ms", health.ready_within.as_millis()))
        }
    };
    match answer {
        Ok(()) => (StatusCode::OK, "ready\n").into_response(),
        Err(why) => {
            let why = crate::error::cut(&why, 200);
            (StatusCode::SERVICE_UNAVAILABLE, format!("not ready: {why}\n")).into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn draining_waits_for_busy_connections_up_to_the_grace() {
        let health = Arc::new(Health::default());
        assert!(health.drained(Duration::from_millis(1)).await, "no connection");
        let hold = health.hold();
        assert!(!health.drained(Duration::from_millis(20)).await, "one busy past the grace");
        // A connection answering a GET (a stream) does not hold the drain, until its answer
        // is over.
        let stream = health.release();
        assert!(health.drained(Duration::from_millis(1)).await, "a stream is not waited for");
        drop(stream);
        assert_eq!(health.busy(), 1);
        let waiting = tokio::spawn({
            let health = Arc::clone(&health);
            async move { health.drained(Duration::from_secs(5)).await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(hold);
        assert!(waiting.await.unwrap_or(false), "done when the last one closes");
        assert_eq!(health.busy(), 0);
    }

    #[tokio::test]
    async fn the_phase_only_moves_forward_and_stopping_resolves_once_there() {
        let health = Health::default();
        assert_eq!(health.phase(), Phase::Serving);
        let stopping = tokio::spawn(health.stopping());
        health.start_draining();
        health.announce_draining();
        assert_eq!(health.phase(), Phase::Stopping, "announcing after stopping does not go back");
        let resolved = tokio::time::timeout(Duration::from_secs(5), stopping).await;
        assert!(resolved.is_ok_and(|joined| joined.is_ok()), "stopping resolved");
        let serving = Health::default();
        let never = tokio::time::timeout(Duration::from_millis(50), serving.stopping()).await;
        assert!(never.is_err(), "a server not told to stop never stops");
    }
}
