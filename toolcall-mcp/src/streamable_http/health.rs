//! Health and draining: what a load balancer and an orchestrator ask of a replica.
//!
//! `GET /healthz` answers 200 while the process serves (no authentication, no `Host`
//! check: probes come by address). `GET /readyz` answers 200 when the server takes calls:
//! not draining, and the readiness function ([`HttpSettings::readiness`]) says ready (a
//! database that answers); else 503 with the reason. Draining
//! ([`McpServer::serve_http_until`]) first says so on `/readyz` while it goes on serving
//! for [`HttpSettings::drain_delay`] (a balancer's health check sees it and sends new
//! requests elsewhere), then refuses new MCP requests with 503 and `Retry-After` (a
//! balancer that retries sends them to another replica), lets the requests in flight
//! finish within the grace period ([`HttpSettings::drain_grace`]), then returns.
//!
//! [`HttpSettings::readiness`]: crate::HttpSettings::readiness
//! [`HttpSettings::drain_grace`]: crate::HttpSettings::drain_grace
//! [`HttpSettings::drain_delay`]: crate::HttpSettings::drain_delay
//! [`McpServer::serve_http_until`]: crate::McpServer::serve_http_until

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::sync::Notify;

use super::body::{BodyGuard, Guarded};
use crate::plain::plain;

/// What a readiness function answers: ready, or why not.
pub type ReadyFuture = Pin<Box<dyn Future<Output = Result<(), String>> + Send>>;

/// A readiness function: asked at each `GET /readyz`.
pub type ReadyFn = dyn Fn() -> ReadyFuture + Send + Sync;

/// How long a client refused while the server drains is told to wait, in seconds.
const DRAIN_RETRY_AFTER: &str = "5";

/// A server's draining state and the MCP requests in flight, shared by its router and
/// the function serving it.
#[derive(Default)]
pub(crate) struct Health {
    /// Told to stop: `/readyz` says `draining` (requests are still served).
    announced: AtomicBool,
    draining: AtomicBool,
    in_flight: AtomicUsize,
    idle: Notify,
    ready: Option<Arc<ReadyFn>>,
    /// The shared session store, which readiness asks first.
    store: Option<Arc<super::store_guard::BoundedStore>>,
    /// How long readiness waits for the readiness function.
    ready_within: Duration,
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

    /// From now on `/readyz` says draining; MCP requests are still served.
    pub(crate) fn announce_draining(&self) {
        self.announced.store(true, Ordering::SeqCst);
    }

    /// From now on, MCP requests are refused and `/readyz` says draining.
    pub(crate) fn start_draining(&self) {
        self.announce_draining();
        self.draining.store(true, Ordering::SeqCst);
    }

    /// Waits until no MCP request is in flight, or `grace` passed; whether none is left.
    pub(crate) async fn drained(&self, grace: Duration) -> bool {
        let wait = async {
            loop {
                let idle = self.idle.notified();
                if self.in_flight.load(Ordering::SeqCst) == 0 {
                    return;
                }
                idle.await;
            }
        };
        tokio::time::timeout(grace, wait).await.is_ok()
    }

    /// How many MCP requests are in flight.
    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::SeqCst)
    }
}

/// One MCP request in flight, counted until its response body is over.
pub(crate) struct InFlight(Arc<Health>);

impl InFlight {
    /// `response`, counted in flight until its body is over.
    pub(crate) fn over_with(self, response: Response) -> Response {
        Guarded::wrap(response, self)
    }
}

impl BodyGuard for InFlight {}

impl Drop for InFlight {
    fn drop(&mut self) {
        if self.0.in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
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
    if health.announced.load(Ordering::SeqCst) {
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

/// The MCP route's outermost check: while draining, 503 with `Retry-After` (a `DELETE`
/// still ends a session); otherwise a POST is counted in flight until the guard given
/// back is dropped (its response body is over: [`InFlight::over_with`]).
// A refusal is rare, and answered at once: it is not worth a box.
#[allow(clippy::result_large_err)]
pub(crate) fn admit(health: &Arc<Health>, request: &Request) -> Result<Option<InFlight>, Response> {
    if health.draining.load(Ordering::SeqCst) && request.method() != Method::DELETE {
        let mut refused = plain(StatusCode::SERVICE_UNAVAILABLE, "the server is shutting down; try again");
        refused.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static(DRAIN_RETRY_AFTER));
        refused.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
        return Err(refused);
    }
    if request.method() != Method::POST {
        return Ok(None);
    }
    health.in_flight.fetch_add(1, Ordering::SeqCst);
    Ok(Some(InFlight(Arc::clone(health))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn draining_waits_for_requests_in_flight_up_to_the_grace() {
        let health = Arc::new(Health::default());
        assert!(health.drained(Duration::from_millis(1)).await, "nothing in flight");
        health.in_flight.fetch_add(1, Ordering::SeqCst);
        let guard = InFlight(Arc::clone(&health));
        assert!(!health.drained(Duration::from_millis(20)).await, "one in flight past the grace");
        let waiting = tokio::spawn({
            let health = Arc::clone(&health);
            async move { health.drained(Duration::from_secs(5)).await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(guard);
        assert!(waiting.await.unwrap_or(false), "done when the last one ends");
        assert_eq!(health.in_flight(), 0);
    }
}
