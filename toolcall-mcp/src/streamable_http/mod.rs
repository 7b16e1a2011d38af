//! Streamable HTTP. Takes a server's HTTP settings and its optional request function;
//! gives an axum router serving rmcp's `StreamableHttpService` at `/mcp`.
//!
//! rmcp does the transport's checks: `Host` against the allowed hosts (loopback by
//! default, against DNS rebinding), `Origin` against the allowed origins, sessions and
//! their store, and stateless serving of 2026-07-28 requests. In front of it, outermost
//! first, each a function that gives back the request or its refusal, run in turn by
//! [`front`] (no middleware layers: one future per request):
//!
//! 1. `check_head`: two `Host` (or `Mcp-Session-Id`) headers are 400; an error response
//!    (4xx, 5xx) never carries more than 1 KiB of text, whatever rmcp's message quotes.
//! 2. [`hosts`]: `Host` and `Origin` against the allowed lists (403), before
//!    anything reads who the caller is.
//! 3. `authenticate`, when the server builds its context per request: the user's function
//!    reads the request's head; a [`Rejection`](crate::Rejection) is the response (401 or 403) and the
//!    request goes no further, its body unread; a [`Caller`](crate::Caller) travels in the request's
//!    extensions (its context, which rmcp hands to the handler with the rest of the head,
//!    and its identity, which owns sessions).
//! 4. `read_body`: a declared `Content-Length` over the limit is 413 at once (before any
//!    `100 Continue`); the body is read within the body time limit (else 408) and the
//!    limit (else 413); a large body (over 64 KiB) is handed to rmcp, which parses it,
//!    in `block_in_place`, so its parsing never holds an async worker, and at most one
//!    per core at a time, so parses of many at once do not add up in memory; one holding
//!    more JSON values than the limit (100,000) is 413 before it is parsed.
//! 5. [`rate`], when calls are limited: a `tools/call` past its caller's rate, or its
//!    tool's, is 429 with `Retry-After`. A caller without identity is its client's
//!    address, which behind trusted proxies [`forwarded`] reads (before every check, so
//!    the request log names the client too).
//! 6. [`sessions`]: a session belongs to the identity that created it, is capped
//!    in number, and has at most one standalone GET stream at a time; its request
//!    streams are kept for a client that comes back with `Last-Event-ID` ([`resume`]).
//!
//! With `McpServer::oauth` (feature `oauth`, module `oauth`): between 2 and 3 the bearer
//! token is verified (401, 403 or 503, the body unread); between 4 and 5 a `tools/call`'s
//! tool scopes are checked (403 `insufficient_scope`); the protected-resource metadata is
//! served beside `/mcp`, like the health routes.
//!
//! Behind them all, the [`hot`] path answers `tools/call` and `tools/list` from the
//! request's bytes with the server's handler, where rmcp would do nothing but pass the
//! request to the handler and its answer back; rmcp's service answers the rest.
//!
//! Beside `/mcp`, [`health`]'s `/healthz` and `/readyz` answer probes (no authentication,
//! no `Host` check). A server drains in two steps ([`health`], [`conn`]): `/readyz` says
//! so while every request is still served and each response closes its connection; then
//! the listener closes (new connections are refused, which a balancer retries elsewhere)
//! and the requests in flight finish.

mod body;
pub(crate) mod conn;
mod events;
pub(crate) mod forwarded;
mod front;
pub(crate) mod health;
mod hosts;
mod hot;
pub(crate) mod names;
mod parked;
pub(crate) mod rate;
mod resume;
mod sessions;
mod store_guard;
#[cfg(test)]
mod test_store;

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::SessionStore as SessionStoreTrait;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use crate::error::ServeError;
use crate::server::{McpServer, Server, Serving};
use body::BodyLimits;
use front::Front;
use sessions::Sessions;

impl<C: Send + Sync + 'static> McpServer<C> {
    /// Serves streamable HTTP at `/mcp` on `addr` until the process ends. It binds what it
    /// is given; with the default allowed hosts, only requests to a loopback name are
    /// answered.
    pub async fn serve_http(self, addr: SocketAddr) -> Result<(), ServeError> {
        let listener =
            tokio::net::TcpListener::bind(addr).await.map_err(|source| ServeError::Bind { addr, source })?;
        self.serve_http_on(listener).await
    }

    /// Serves streamable HTTP at `/mcp` on a bound listener (bind port 0 and read
    /// `local_addr` to let the OS pick a port), with the connection limits
    /// ([`McpServer::header_timeout`], [`McpServer::idle_timeout`],
    /// [`McpServer::max_connections`]). Bound to a loopback address other than the
    /// default names (`127.0.0.2`), that address is allowed as a `Host`.
    pub async fn serve_http_on(self, listener: tokio::net::TcpListener) -> Result<(), ServeError> {
        self.server.serve_http_on(listener).await
    }

    /// [`McpServer::serve_http_on`] until `shutdown` resolves (a signal), then drains.
    /// First, for [`HttpSettings::drain_delay`](crate::HttpSettings::drain_delay),
    /// `/readyz` answers 503 `draining` (a balancer's health check sends new requests
    /// elsewhere) while every request is still served, each response with `Connection:
    /// close` (a balancer's kept-alive connections wind down, closed by the balancer, not
    /// under a request it is sending). Then the listener closes: a new connection is
    /// refused, which a balancer retries on another replica whatever the request (nothing
    /// was sent), and the port is free for a replacement; idle connections close, and the
    /// requests in flight finish within
    /// [`HttpSettings::drain_grace`](crate::HttpSettings::drain_grace). Then it returns
    /// `Ok` (a process exits 0). A call in flight when the signal comes gets its result,
    /// and no request that reached the server is refused.
    ///
    /// ```no_run
    /// # async fn run(server: toolcall_mcp::McpServer<()>) -> Result<(), toolcall_mcp::ServeError> {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await.map_err(toolcall_mcp::ServeError::Io)?;
    /// server.serve_http_until(listener, async { tokio::signal::ctrl_c().await.ok(); }).await
    /// # }
    /// ```
    pub async fn serve_http_until(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()>,
    ) -> Result<(), ServeError> {
        let (mut serving, draining) = self.server.serve_http_draining(listener)?;
        tokio::select! {
            served = &mut serving => return served,
            () = shutdown => {}
        }
        draining.drain(serving).await
    }

    /// The streamable-HTTP service at `/mcp` as an axum router, with every check of
    /// [`McpServer::serve_http`] that lives in a request (identity, sessions, body limit
    /// and time limit, caps on sessions and streams, bounded errors), to serve with other
    /// routes (a health check), behind TLS or on a listener of your own. The limits on
    /// connections (head and idle time limits, their number) belong to whatever serves
    /// the connections: set them there.
    pub fn router(self) -> Result<axum::Router, ServeError> {
        self.server.router()
    }
}

impl Server {
    /// [`McpServer::serve_http_on`], boxed here ([`Serving`]).
    fn serve_http_on(mut self, listener: tokio::net::TcpListener) -> Serving {
        Box::pin(async move {
            if let Ok(addr) = listener.local_addr() {
                self.http.allow_bound_loopback(addr.ip());
                if !addr.ip().is_loopback() && self.http.loopback_only() {
                    log::warn!(
                        "serving on {addr}, but only loopback Host names are allowed: \
                         requests to other names get 403 (set allowed_hosts)"
                    );
                }
            }
            let limits = conn::Limits::of(&self.http);
            let max_connections = self.http.max_connections;
            let (front, health) = self.front()?;
            conn::serve(listener, front, limits, max_connections, health).await
        })
    }

    /// The serving of [`McpServer::serve_http_until`] (boxed here, [`Serving`]) and what
    /// drains it once its signal came.
    fn serve_http_draining(
        mut self,
        listener: tokio::net::TcpListener,
    ) -> Result<(Serving, Draining), ServeError> {
        if let Ok(addr) = listener.local_addr() {
            self.http.allow_bound_loopback(addr.ip());
        }
        let limits = conn::Limits::of(&self.http);
        let (max_connections, grace, delay) =
            (self.http.max_connections, self.http.drain_grace, self.http.drain_delay);
        let (front, health) = self.front()?;
        let serving: Serving =
            Box::pin(conn::serve(listener, front, limits, max_connections, Arc::clone(&health)));
        Ok((serving, Draining { health, grace, delay }))
    }

    /// [`McpServer::router`].
    fn router(self) -> Result<axum::Router, ServeError> {
        Ok(self.front()?.0.into_router())
    }

    /// The server's HTTP front once its definitions are checked, and its health (which
    /// whoever drains the server shares).
    fn front(mut self) -> Result<(Front, Arc<health::Health>), ServeError> {
        self.check_definitions()?;
        // The shared session store, kept to its deadline everywhere it is used, and asked
        // by readiness.
        let store =
            self.http.session_store.take().map(|shared| {
                Arc::new(store_guard::BoundedStore::new(shared, self.http.session_store_timeout))
            });
        self.http.session_store = store.clone().map(|bounded| bounded as Arc<dyn SessionStoreTrait>);
        let health = Arc::new(
            health::Health::new(self.http.readiness.clone())
                .with_store(store)
                .within(self.http.readiness_timeout),
        );
        Ok((build_front(self, Arc::clone(&health)), health))
    }
}

/// What drains a server serving over HTTP once its shutdown signal came
/// ([`McpServer::serve_http_until`]).
struct Draining {
    health: Arc<health::Health>,
    grace: std::time::Duration,
    /// How long it serves on while `/readyz` says draining, before the listener closes.
    delay: std::time::Duration,
}

impl Draining {
    /// `serving` drained: `/readyz` answers 503 at once while requests are served for the
    /// delay, each response closing its connection; then the listener closes, and the
    /// connections still open answer the request they carry (GET streams aside) within the
    /// grace; boxed here.
    fn drain(self, mut serving: Serving) -> Serving {
        Box::pin(async move {
            let Draining { health, grace, delay } = self;
            health.announce_draining();
            log::info!(target: crate::telemetry::LIFECYCLE_TARGET, "draining: /readyz answers 503; serving on for {} ms, closing each connection after its response", delay.as_millis());
            tokio::select! {
                served = &mut serving => return served,
                () = tokio::time::sleep(delay) => {}
            }
            health.start_draining();
            // The accept loop takes the connections already waiting, closes the listener
            // and returns.
            serving.await?;
            log::info!(target: crate::telemetry::LIFECYCLE_TARGET, "draining: the listener is closed (new connections are refused); {} connections busy", health.busy());
            if health.drained(grace).await {
                log::info!(target: crate::telemetry::LIFECYCLE_TARGET, "drained: no request in flight; stopping");
            } else {
                log::warn!(target: crate::telemetry::LIFECYCLE_TARGET, "{} connections still busy after the drain grace; closing", health.busy());
            }
            Ok(())
        })
    }
}

/// The server's HTTP front: rmcp's service at `/mcp` behind the checks above, and the
/// health routes (and, with OAuth, the metadata) beside it.
fn build_front(server: Server, health: Arc<health::Health>) -> Front {
    let settings = server.http.clone();
    let mut config = settings.config();
    // rmcp restores a session it does not hold from here: the sessions the hot path opened
    // (parked from the start), and those its own idle end parked (`parked`).
    let parked = Arc::new(parked::Parked::new(settings.session_store.clone()));
    config.session_store =
        Some(Arc::clone(&parked) as Arc<dyn rmcp::transport::streamable_http_server::session::SessionStore>);
    let from_request = server.from_request.clone();
    #[cfg(feature = "oauth")] // oauth: the resource server, if any
    let oauth = server.oauth.clone();
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(settings.session_idle_timeout);
    let manager = Arc::new(manager);
    let per_identity = from_request.is_some().then_some(settings.max_sessions_per_identity);
    let sessions = settings.legacy_sessions.then(|| {
        Arc::new(Sessions::new(
            (settings.max_sessions, per_identity),
            Arc::clone(&manager),
            settings.session_store.clone(),
            (Arc::new(resume::Streams::new(config.sse_keep_alive)), parked),
            settings.session_idle_timeout,
        ))
    });
    let hot = Arc::new(hot::Hot::new(server.clone(), &settings));
    let rmcp = StreamableHttpService::new(move || Ok(server.for_session()), manager, config);
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
    let large = Arc::new(tokio::sync::Semaphore::new(cores.clamp(1, 8)));
    let limits = BodyLimits {
        limit: settings.body_limit,
        timeout: settings.body_timeout,
        max_values: settings.max_json_values,
        large,
    };
    let mcp = front::McpRoute {
        allowed: hosts::Allowed::new(&settings.allowed_hosts, &settings.allowed_origins),
        #[cfg(feature = "oauth")]
        oauth: oauth.clone(),
        from_request,
        limits,
        rate: rate::Limiters::new(
            settings.rate_limit,
            &settings.tool_rate_limits,
            &settings.rate_limit_store,
            settings.rate_limit_store_timeout,
        ),
        trusted_proxies: settings.trusted_proxies.clone(),
        sessions,
        hot,
        rmcp,
    };
    let beside = health::routes(health);
    #[cfg(feature = "oauth")] // oauth: the protected-resource metadata beside `/mcp`
    let beside = crate::oauth::metadata_routes(beside, oauth.as_ref());
    Front::new(mcp, beside)
}
