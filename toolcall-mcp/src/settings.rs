//! The HTTP transport's settings: the allowed hosts and origins, the limits on bodies,
//! time, connections and sessions, and the session store.

use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::session::SessionStore;

use crate::{Cidr, RateLimit, RateLimitStore};

/// The `Origin`s a browser page may call from by default: pages served from the loopback
/// interface, on any port. Any other browser origin is refused with 403.
pub const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// How long a server told to stop goes on serving while `/readyz` says `draining`
/// ([`HttpSettings::drain_delay`]): 5 s.
pub const DEFAULT_DRAIN_DELAY: Duration = Duration::from_secs(5);

/// How long one operation of the session store may take ([`HttpSettings::session_store_timeout`]):
/// 500 ms.
pub const DEFAULT_SESSION_STORE_TIMEOUT: Duration = Duration::from_millis(500);

/// How long one count in a shared rate-limit store may take
/// ([`HttpSettings::rate_limit_store_timeout`]): 200 ms.
pub const DEFAULT_RATE_LIMIT_STORE_TIMEOUT: Duration = Duration::from_millis(200);

/// How long `/readyz` waits for the readiness function ([`HttpSettings::readiness_timeout`]):
/// 1 s.
pub const DEFAULT_READINESS_TIMEOUT: Duration = Duration::from_secs(1);

/// How the streamable-HTTP transport guards itself: which `Host` and `Origin` it
/// answers, how large and how slow a request may be, how many connections and sessions
/// it keeps, and where sessions live. Each field's documentation says its default.
///
/// Start from the defaults and change what you need, then hand it to
/// [`McpServer::http`](crate::McpServer::http):
///
/// ```
/// use std::time::Duration;
/// use toolcall_mcp::{HttpSettings, McpServer};
/// # let toolset: &'static toolcall_runtime::Toolset = Box::leak(Box::new(toolcall_runtime::Toolset::new(&[], Box::leak(Box::default()), |_, _, _| None)));
///
/// let mut http = HttpSettings::default();
/// http.allowed_hosts = vec!["mcp.example.com".into()];
/// http.body_limit = 1024 * 1024;
/// http.idle_timeout = Duration::from_secs(30);
/// let server = McpServer::new(toolset, ()).http(http);
/// assert_eq!(server.http_settings().body_limit, 1024 * 1024);
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpSettings {
    /// The `Host` header values accepted, as names or `name:port`. Any other `Host` is
    /// refused with 403: this is what stops DNS rebinding. A server reached by other names
    /// lists them; an empty list accepts any `Host` (put authentication in front).
    /// Default: the loopback names `localhost`, `127.0.0.1` and `::1`, on any port (and,
    /// with [`McpServer::serve_http_on`](crate::McpServer::serve_http_on), the loopback
    /// address the server is bound to).
    pub allowed_hosts: Vec<String>,
    /// The browser origins whose pages may call the server, as `scheme://host:port` (`:*`
    /// for any port). A request with any other `Origin` is refused with 403; an empty list
    /// refuses every request with an `Origin`. Requests without one (not from a browser)
    /// are not affected. Default: [`LOOPBACK_ORIGINS`].
    pub allowed_origins: Vec<String>,
    /// The largest request body accepted, in bytes; a larger one is refused with 413
    /// (a declared `Content-Length` over it at once, before any `100 Continue`).
    /// Default: 4 MiB (rmcp's).
    pub body_limit: usize,
    /// The most JSON values (scalars, arrays, objects) one request body may hold; a body
    /// over 64 KiB holding more is refused with 413 before it is parsed (parsing costs
    /// memory per value: rmcp's parse of a 4 MiB body of 300,000 one-digit members peaks
    /// near 100 MiB). Default: 100,000 (0 is taken as 1).
    pub max_json_values: usize,
    /// The time a client has to send a request head: from the connection's opening, or
    /// from the first byte of the next request on a kept-alive connection; past it the
    /// connection is closed, before any authentication. Only with
    /// [`McpServer::serve_http`](crate::McpServer::serve_http) and `serve_http_on`, which
    /// own the connections. Default: 10 s.
    pub header_timeout: Duration,
    /// The time a client has to send a request body, from the end of its head; past it
    /// the answer is 408 and the connection is closed. Default: 30 s.
    pub body_timeout: Duration,
    /// How long a kept-alive connection may wait for its next request, and a response may
    /// wait on a client that does not read it; past it the connection is closed. Only with
    /// `serve_http` and `serve_http_on`. Default: 60 s.
    pub idle_timeout: Duration,
    /// The most connections open at once (keep it under the process's file-descriptor
    /// limit); a connection past it is answered 503 and closed. Only with `serve_http` and
    /// `serve_http_on`. Default: 512 (0 is taken as 1).
    pub max_connections: usize,
    /// Whether clients on protocol versions before 2026-07-28 get an HTTP session. With
    /// `false`, each of their requests is served on its own, like every 2026-07-28
    /// request, so any replica can answer it; the server can then send nothing outside a
    /// request's own response. Default: `true`.
    pub legacy_sessions: bool,
    /// The most legacy-protocol sessions live at once. A new session past it closes the
    /// least recently used one with no request in progress (its client gets 404 and
    /// initializes again, as after expiry); when every session is busy, the new one is
    /// refused with 503 and `Retry-After`. Default: 1,000 (0 is taken as 1).
    pub max_sessions: usize,
    /// The most live sessions per identity, when requests carry identities
    /// ([`McpServer::context_from_request`](crate::McpServer::context_from_request)),
    /// never more than `max_sessions`. A new session past it closes that identity's least
    /// recently used idle session, so one caller's flood never closes another's sessions;
    /// when all of its sessions are busy, the new one is refused with 429 and
    /// `Retry-After`. Default: 100 (0 is taken as 1).
    pub max_sessions_per_identity: usize,
    /// How long a legacy-protocol session lives without a request. Default: 5 min
    /// (rmcp's).
    pub session_idle_timeout: Duration,
    /// A store of sessions shared by replicas: a session begun on one replica is restored
    /// on another when a request for it arrives there (rmcp replays the client's
    /// `initialize`). Only clients on protocol versions before 2026-07-28 have sessions.
    /// A new session is written to it once; a call reads nothing from it. The sessions in
    /// use are read back in the background (`load`), each about once per third of
    /// `session_idle_timeout`, so a store whose reads start an entry's expiry again (as
    /// `RedisSessionStore`'s do, feature `redis`) keeps them while they are
    /// used: give its entries an expiry of at least two thirds of the idle time (the idle
    /// time itself, as `RedisSessionStore::expiring_after(session_idle_timeout)` does).
    /// Default: none (each replica keeps its own).
    pub session_store: Option<Arc<dyn SessionStore>>,
    /// How long one operation of the session store may take: past it, it fails (a new
    /// session is refused with 503 and `Retry-After` rather than kept by this replica
    /// alone; `/readyz` says the store does not answer). Default: 500 ms.
    pub session_store_timeout: Duration,
    /// Asked at each `GET /readyz`: `Ok(())` when the server can take calls (its database
    /// answers), else why not; `/readyz` then answers 503 with the reason, and a balancer
    /// sends calls elsewhere. Default: none (ready while serving and not draining).
    pub readiness: Option<Arc<crate::ReadyFn>>,
    /// How long `/readyz` waits for the readiness function: past it, it answers 503 `not
    /// ready: the readiness check did not answer within ..` whatever the dependency does
    /// (a probe has its own timeout, often a second or two). Default: 1 s.
    pub readiness_timeout: Duration,
    /// How long [`McpServer::serve_http_until`](crate::McpServer::serve_http_until) lets
    /// the requests in flight finish once it is told to stop; past it, it returns anyway
    /// (their connections close). Default: 30 s.
    pub drain_grace: Duration,
    /// How long, once told to stop, the server goes on serving while `/readyz` answers 503
    /// `draining`, each response with `Connection: close`, so a balancer's health check
    /// sees the drain and its kept-alive connections wind down; then the listener closes (a
    /// new connection is refused, which a balancer retries on another replica) and the
    /// connections still open have [`HttpSettings::drain_grace`] to finish the request they
    /// carry. Default: 5 s (two failed checks of a balancer checking every 2 s, and a
    /// margin); keep it above a balancer's idle timeout for upstream connections (1 s in
    /// `deploy/nginx.conf`).
    pub drain_delay: Duration,
    /// The most tool calls one caller (its identity, else its client's address: see
    /// [`HttpSettings::trusted_proxies`]) may make: past it, a `tools/call` is answered 429
    /// with `Retry-After` and `calls from this caller are over the rate of N per second`.
    /// Counted where [`HttpSettings::rate_limit_store`] says. Default: none.
    pub rate_limit: Option<RateLimit>,
    /// Limits of single tools, by name, per caller, on top of `rate_limit` (an export that
    /// costs a thousand reads); past one, 429 with `calls of TOOL from this caller are
    /// over its rate of N per second`. Default: none.
    pub tool_rate_limits: std::collections::BTreeMap<String, RateLimit>,
    /// Where the rate limits are counted: in this process, each replica its own (a caller
    /// spread over N replicas gets up to N times its rate), or with feature `redis` in
    #[cfg_attr(
        feature = "redis",
        doc = "Redis, shared by every replica ([`RateLimitStore::redis`]). Default: in this"
    )]
    #[cfg_attr(
        not(feature = "redis"),
        doc = "Redis, shared by every replica (`RateLimitStore::redis`). Default: in this"
    )]
    /// process.
    pub rate_limit_store: RateLimitStore,
    /// How long one count in a shared rate-limit store may take: past it (or when the
    /// store fails), the call is counted in this process instead, as without a store, and
    /// the outage is logged once (failing open: a store outage never refuses a call).
    /// Default: 200 ms.
    pub rate_limit_store_timeout: Duration,
    /// The proxies (a balancer, a CDN) whose word on the client is taken: when a
    /// request's TCP peer is in one of these blocks, its client is read from `Forwarded`
    /// (RFC 7239 `for=`), else `X-Forwarded-For`: the right-most address that is not
    /// itself a trusted proxy (what is left of it, the client could have written). The
    /// client's address is what a caller without identity is rate-limited as, and what
    /// the request log and spans name (`client.address`). A peer outside these blocks, a
    /// header that does not parse, or a hop hidden (`unknown`, `_obfuscated`): the peer.
    /// Default: none (the peer is the client; forwarding headers are ignored).
    pub trusted_proxies: Vec<Cidr>,
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            allowed_hosts: StreamableHttpServerConfig::default().allowed_hosts,
            allowed_origins: LOOPBACK_ORIGINS.iter().map(|o| (*o).to_owned()).collect(),
            body_limit: 4 * 1024 * 1024,
            max_json_values: 100_000,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            max_connections: 512,
            legacy_sessions: true,
            max_sessions: 1000,
            max_sessions_per_identity: 100,
            session_idle_timeout: Duration::from_secs(300),
            session_store: None,
            session_store_timeout: DEFAULT_SESSION_STORE_TIMEOUT,
            readiness_timeout: DEFAULT_READINESS_TIMEOUT,
            readiness: None,
            drain_grace: Duration::from_secs(30),
            drain_delay: DEFAULT_DRAIN_DELAY,
            rate_limit: None,
            tool_rate_limits: std::collections::BTreeMap::new(),
            rate_limit_store: RateLimitStore::default(),
            rate_limit_store_timeout: DEFAULT_RATE_LIMIT_STORE_TIMEOUT,
            trusted_proxies: Vec::new(),
        }
    }
}

impl std::fmt::Debug for HttpSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpSettings")
            .field("allowed_hosts", &self.allowed_hosts)
            .field("allowed_origins", &self.allowed_origins)
            .field("body_limit", &self.body_limit)
            .field("max_json_values", &self.max_json_values)
            .field("header_timeout", &self.header_timeout)
            .field("body_timeout", &self.body_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_connections", &self.max_connections)
            .field("legacy_sessions", &self.legacy_sessions)
            .field("max_sessions", &self.max_sessions)
            .field("max_sessions_per_identity", &self.max_sessions_per_identity)
            .field("session_idle_timeout", &self.session_idle_timeout)
            .field("session_store", &self.session_store.as_ref().map(|_| "<store>"))
            .field("readiness", &self.readiness.as_ref().map(|_| "<function>"))
            .field("drain_grace", &self.drain_grace)
            .field("drain_delay", &self.drain_delay)
            .field("rate_limit", &self.rate_limit)
            .field("tool_rate_limits", &self.tool_rate_limits)
            .field("rate_limit_store", &self.rate_limit_store)
            .field("rate_limit_store_timeout", &self.rate_limit_store_timeout)
            .field("trusted_proxies", &self.trusted_proxies)
            .finish()
    }
}

impl HttpSettings {
    /// Sets [`HttpSettings::readiness`] from an async function.
    ///
    /// ```
    /// let mut http = toolcall_mcp::HttpSettings::default();
    /// http.ready_when(|| async { Err::<(), String>("the database does not answer".into()) });
    /// assert!(http.readiness.is_some());
    /// ```
    pub fn ready_when<F, Fut>(&mut self, ready: F)
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<(), String>> + Send + 'static,
    {
        self.readiness = Some(Arc::new(move || Box::pin(ready())));
    }

    /// The settings with the counts that must be at least 1 raised to 1.
    pub(crate) fn at_least_one(mut self) -> Self {
        for count in [
            &mut self.max_json_values,
            &mut self.max_connections,
            &mut self.max_sessions,
            &mut self.max_sessions_per_identity,
        ] {
            *count = (*count).max(1);
        }
        self
    }

    /// rmcp's configuration: its defaults, with these hosts, origins (always enforced:
    /// an empty list refuses every `Origin`), body limit, session mode and store.
    pub(crate) fn config(&self) -> StreamableHttpServerConfig {
        let mut config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(self.allowed_hosts.clone())
            .with_allowed_origins(self.allowed_origins.clone())
            .enforce_origin_validation()
            .with_max_request_body_bytes(self.body_limit)
            .with_legacy_session_mode(self.legacy_sessions);
        config.session_store = self.session_store.clone();
        config
    }

    /// Whether every allowed `Host` names the loopback interface.
    pub(crate) fn loopback_only(&self) -> bool {
        !self.allowed_hosts.is_empty() && self.allowed_hosts.iter().all(|host| is_loopback_host(host))
    }

    /// Allows `Host: IP` (any port) for the loopback address the server is bound to, when
    /// only loopback names are allowed and it is not one of them (`127.0.0.2`): a server
    /// bound there is reached by that name.
    pub(crate) fn allow_bound_loopback(&mut self, ip: std::net::IpAddr) {
        if !ip.is_loopback() || !self.loopback_only() {
            return;
        }
        let name = match ip {
            std::net::IpAddr::V4(v4) => v4.to_string(),
            std::net::IpAddr::V6(v6) => format!("[{v6}]"),
        };
        let listed = self.allowed_hosts.iter().any(|host| {
            let host = host.trim_start_matches('[').trim_end_matches(']');
            host.parse::<std::net::IpAddr>().is_ok_and(|listed| listed == ip)
        });
        if !listed {
            self.allowed_hosts.push(name);
        }
    }
}

fn is_loopback_host(host: &str) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) && !name.ends_with(':') => name,
        _ => host,
    };
    let name = name.trim_start_matches('[').trim_end_matches(']');
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

// The defaults as constants, from before `HttpSettings` was public: kept for a release
// (a test holds them equal to `HttpSettings::default()`).

/// The default limit of one request body: 4 MiB (rmcp's).
#[deprecated(note = "read it from `HttpSettings::default()`; set it on `HttpSettings`")]
pub const DEFAULT_BODY_LIMIT: usize = 4 * 1024 * 1024;
/// The default time a client has to send a request head: from its connection, or from the
/// first byte after an idle keep-alive pause.
#[deprecated(note = "read it from `HttpSettings::default()`; set it on `HttpSettings`")]
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// The default time a client has to send a request body, from the end of its head.
#[deprecated(note = "read it from `HttpSettings::default()`; set it on `HttpSettings`")]
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// The default time a keep-alive connection may sit idle between requests (and a response
/// may wait on a client that does not read it).
#[deprecated(note = "read it from `HttpSettings::default()`; set it on `HttpSettings`")]
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// The default number of connections open at once; past it a new connection is answered
/// 503 and closed.
#[deprecated(note = "read it from `HttpSettings::default()`; set it on `HttpSettings`")]
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;
/// The default number of live sessions (legacy-protocol clients).
#[deprecated(note = "read it from `HttpSettings::default()`; set it on `HttpSettings`")]
pub const DEFAULT_MAX_SESSIONS: usize = 1000;
/// The default number of live sessions one identity may hold, when requests carry
/// identities ([`McpServer::context_from_request`](crate::McpServer::context_from_request)).
#[deprecated(note = "read it from `HttpSettings::default()`; set it on `HttpSettings`")]
pub const DEFAULT_MAX_SESSIONS_PER_IDENTITY: usize = 100;
/// The default time a session lives without a request (rmcp's).
#[deprecated(note = "read it from `HttpSettings::default()`; set it on `HttpSettings`")]
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// The default number of JSON values one request body may hold.
#[deprecated(note = "read it from `HttpSettings::default()`; set it on `HttpSettings`")]
pub const DEFAULT_MAX_JSON_VALUES: usize = 100_000;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    #[allow(deprecated)]
    fn the_deprecated_constants_are_the_defaults() {
        let d = HttpSettings::default();
        assert_eq!(
            (d.body_limit, d.max_json_values, d.max_connections, d.max_sessions, d.max_sessions_per_identity),
            (
                DEFAULT_BODY_LIMIT,
                DEFAULT_MAX_JSON_VALUES,
                DEFAULT_MAX_CONNECTIONS,
                DEFAULT_MAX_SESSIONS,
                DEFAULT_MAX_SESSIONS_PER_IDENTITY
            )
        );
        assert_eq!(
            (d.header_timeout, d.body_timeout, d.idle_timeout, d.session_idle_timeout),
            (
                DEFAULT_HEADER_TIMEOUT,
                DEFAULT_BODY_TIMEOUT,
                DEFAULT_IDLE_TIMEOUT,
                DEFAULT_SESSION_IDLE_TIMEOUT
            )
        );
    }

    #[test]
    fn loopback_hosts() {
        for host in ["localhost", "127.0.0.1", "::1", "[::1]", "[::1]:8080", "localhost:80", "127.0.0.2"] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in ["example.com", "0.0.0.0", "10.0.0.1:80", "::", "localhost.evil.com"] {
            assert!(!is_loopback_host(host), "{host}");
        }
        assert!(HttpSettings::default().loopback_only());
        let open = HttpSettings { allowed_hosts: Vec::new(), ..HttpSettings::default() };
        assert!(!open.loopback_only());
    }

    #[test]
    fn the_bound_loopback_address_is_allowed() {
        let mut settings = HttpSettings::default();
        let before = settings.allowed_hosts.clone();
        settings.allow_bound_loopback("127.0.0.1".parse().unwrap());
        settings.allow_bound_loopback("::1".parse().unwrap());
        assert_eq!(settings.allowed_hosts, before, "already listed");
        settings.allow_bound_loopback("127.0.0.2".parse().unwrap());
        assert_eq!(settings.allowed_hosts.last().map(String::as_str), Some("127.0.0.2"));
        settings.allow_bound_loopback("0.0.0.0".parse().unwrap());
        assert_eq!(settings.allowed_hosts.len(), before.len() + 1, "not loopback: nothing added");
        let mut named = HttpSettings { allowed_hosts: vec!["mcp.example".into()], ..HttpSettings::default() };
        named.allow_bound_loopback("127.0.0.2".parse().unwrap());
        assert_eq!(named.allowed_hosts, ["mcp.example"], "a configured list is left alone");
    }
}
