//! Streamable HTTP. Takes a server's HTTP settings and its optional request function;
//! gives an axum router serving rmcp's `StreamableHttpService` at `/mcp`.
//!
//! rmcp does the transport's checks: `Host` against the allowed hosts (loopback by
//! default, against DNS rebinding), `Origin` against the allowed origins, the body limit
//! (413), sessions and their store, and stateless serving of 2026-07-28 requests. In
//! front of it, when the server builds its context per request, one middleware calls the
//! user's function with the request's head: a [`Rejection`] is the response (401 or 403)
//! and the request goes no further; a context travels in the request's extensions, which
//! rmcp hands to the handler with the rest of the request's head.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::SessionStore;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::McpServer;

/// The default limit of one request body: 4 MiB (rmcp's).
pub const DEFAULT_BODY_LIMIT: usize = 4 * 1024 * 1024;

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

/// A user function building the tools' context from one HTTP request's head.
pub type RequestFn<C> = dyn Fn(&Parts) -> Result<C, Rejection> + Send + Sync;

/// Why the request function refused a request: the HTTP status (401 or 403) and a
/// message, sent as the response. The request never reaches a tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    status: StatusCode,
    message: String,
}

impl Rejection {
    /// 401 Unauthorized, with `WWW-Authenticate: Bearer`: no credentials, or ones that
    /// do not identify anybody.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Rejection { status: StatusCode::UNAUTHORIZED, message: message.into() }
    }

    /// 403 Forbidden: the caller is known and may not use this server.
    pub fn forbidden(message: impl Into<String>) -> Self {
        Rejection { status: StatusCode::FORBIDDEN, message: message.into() }
    }

    /// The HTTP status code (401 or 403).
    pub fn status(&self) -> u16 {
        self.status.as_u16()
    }

    /// The message sent as the response body.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status, self.message)
    }
}

impl std::error::Error for Rejection {}

impl IntoResponse for Rejection {
    fn into_response(self) -> Response {
        let mut response = (self.status, self.message).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// The token of an `Authorization: Bearer TOKEN` header (the scheme in any case), if the
/// request has one.
///
/// ```
/// let request = toolcall_mcp::http::Request::get("/mcp").header("authorization", "Bearer s3cret").body(()).unwrap();
/// let (parts, ()) = request.into_parts();
/// assert_eq!(toolcall_mcp::bearer_token(&parts), Some("s3cret"));
/// ```
pub fn bearer_token(parts: &Parts) -> Option<&str> {
    let value = parts.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The transport settings of a server, turned into rmcp's configuration at start.
#[derive(Clone)]
pub(crate) struct HttpSettings {
    pub(crate) hosts: Vec<String>,
    pub(crate) origins: Vec<String>,
    pub(crate) body_limit: usize,
    pub(crate) session_store: Option<Arc<dyn SessionStore>>,
    pub(crate) legacy_sessions: bool,
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            hosts: StreamableHttpServerConfig::default().allowed_hosts,
            origins: LOOPBACK_ORIGINS.iter().map(|o| (*o).to_owned()).collect(),
            body_limit: DEFAULT_BODY_LIMIT,
            session_store: None,
            legacy_sessions: true,
        }
    }
}

impl HttpSettings {
    /// rmcp's configuration: its defaults, with these hosts, origins (always enforced:
    /// an empty list refuses every `Origin`), body limit, session mode and store.
    fn config(&self) -> StreamableHttpServerConfig {
        let mut config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(self.hosts.clone())
            .with_allowed_origins(self.origins.clone())
            .enforce_origin_validation()
            .with_max_request_body_bytes(self.body_limit)
            .with_legacy_session_mode(self.legacy_sessions);
        config.session_store = self.session_store.clone();
        config
    }

    /// Whether every allowed `Host` names the loopback interface.
    pub(crate) fn loopback_only(&self) -> bool {
        !self.hosts.is_empty() && self.hosts.iter().all(|host| is_loopback_host(host))
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

/// The context the request function built for one request, in its extensions.
pub(crate) struct Caller<C>(pub(crate) Arc<C>);

impl<C> Clone for Caller<C> {
    fn clone(&self) -> Self {
        Caller(Arc::clone(&self.0))
    }
}

/// The router: rmcp's service at `/mcp`, behind the request function when there is one.
pub(crate) fn router<C: Send + Sync + 'static>(server: McpServer<C>) -> axum::Router {
    let config = server.http.config();
    let from_request = server.from_request.clone();
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    match from_request {
        Some(function) => router.layer(axum::middleware::from_fn_with_state(function, authenticate::<C>)),
        None => router,
    }
}

/// Calls the request function: its rejection is the response; its context goes on with
/// the request.
async fn authenticate<C: Send + Sync + 'static>(
    State(function): State<Arc<RequestFn<C>>>,
    request: Request,
    next: Next,
) -> Response {
    let (mut parts, body) = request.into_parts();
    match function(&parts) {
        Ok(context) => {
            parts.extensions.insert(Caller(Arc::new(context)));
            next.run(Request::from_parts(parts, body)).await
        }
        Err(rejection) => {
            log::info!("{} {}: refused ({rejection})", parts.method, parts.uri);
            rejection.into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn parts(authorization: Option<&str>) -> Parts {
        let mut request = axum::http::Request::get("/mcp");
        if let Some(value) = authorization {
            request = request.header(header::AUTHORIZATION, value);
        }
        request.body(()).unwrap().into_parts().0
    }

    #[test]
    fn bearer_tokens() {
        assert_eq!(bearer_token(&parts(Some("Bearer abc"))), Some("abc"));
        assert_eq!(bearer_token(&parts(Some("bearer  abc "))), Some("abc"));
        assert_eq!(bearer_token(&parts(Some("Basic abc"))), None);
        assert_eq!(bearer_token(&parts(Some("Bearer "))), None);
        assert_eq!(bearer_token(&parts(Some("Bearer"))), None);
        assert_eq!(bearer_token(&parts(None)), None);
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
        let open = HttpSettings { hosts: Vec::new(), ..HttpSettings::default() };
        assert!(!open.loopback_only());
    }

    #[test]
    fn a_401_asks_for_a_bearer_token() {
        let response = Rejection::unauthorized("no token").into_response();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(response.headers().get(header::WWW_AUTHENTICATE).unwrap(), "Bearer");
        let response = Rejection::forbidden("not you").into_response();
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        assert!(response.headers().get(header::WWW_AUTHENTICATE).is_none());
    }
}
