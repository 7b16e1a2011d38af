//! Streamable HTTP. Takes a server's HTTP settings and its optional request function;
//! gives an axum router serving rmcp's `StreamableHttpService` at `/mcp`.
//!
//! rmcp does the transport's checks: `Host` against the allowed hosts (loopback by
//! default, against DNS rebinding), `Origin` against the allowed origins, sessions and
//! their store, and stateless serving of 2026-07-28 requests. In front of it, outermost
//! first:
//!
//! 1. `check_head`: two `Host` (or `Mcp-Session-Id`) headers are 400; an error response
//!    (4xx, 5xx) never carries more than 1 KiB of text, whatever rmcp's message quotes.
//! 2. [`crate::rebinding`]: `Host` and `Origin` against the allowed lists (403), before
//!    anything reads who the caller is.
//! 3. `authenticate`, when the server builds its context per request: the user's function
//!    reads the request's head; a [`Rejection`] is the response (401 or 403) and the
//!    request goes no further, its body unread; a [`Caller`] travels in the request's
//!    extensions (its context, which rmcp hands to the handler with the rest of the head,
//!    and its identity, which owns sessions).
//! 4. `read_body`: a declared `Content-Length` over the limit is 413 at once (before any
//!    `100 Continue`); the body is read within the body time limit (else 408) and the
//!    limit (else 413); a large body (over 64 KiB) is handed to rmcp, which parses it,
//!    in `block_in_place`, so its parsing never holds an async worker, and at most one
//!    per core at a time, so parses of many at once do not add up in memory; one holding
//!    more JSON values than the limit (100,000) is 413 before it is parsed.
//! 5. [`crate::sessions`]: a session belongs to the identity that created it, is capped
//!    in number, and has at most one standalone GET stream at a time.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::SessionStore;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::McpServer;
use crate::rebinding;
use crate::sessions::{self, Sessions};

/// The default limit of one request body: 4 MiB (rmcp's).
pub const DEFAULT_BODY_LIMIT: usize = 4 * 1024 * 1024;
/// The default time a client has to send a request head: from its connection, or from the
/// first byte after an idle keep-alive pause.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// The default time a client has to send a request body, from the end of its head.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// The default time a keep-alive connection may sit idle between requests (and a response
/// may wait on a client that does not read it).
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// The default number of connections open at once; past it a new connection is answered
/// 503 and closed.
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;
/// The default number of live sessions (legacy-protocol clients).
pub const DEFAULT_MAX_SESSIONS: usize = 1000;
/// The default number of live sessions one identity may hold, when requests carry
/// identities ([`McpServer::context_from_request`](crate::McpServer::context_from_request)).
pub const DEFAULT_MAX_SESSIONS_PER_IDENTITY: usize = 100;
/// The default time a session lives without a request (rmcp's).
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// The default number of JSON values one request body may hold.
pub const DEFAULT_MAX_JSON_VALUES: usize = 100_000;

/// Bodies larger than this are parsed by rmcp inside `block_in_place`.
const LARGE_BODY: usize = 64 * 1024;
/// At most this much of an error response's text is sent.
const MAX_ERROR_BODY: usize = 1024;

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

/// A user function building the caller (identity and tools' context) from one HTTP
/// request's head.
pub type RequestFn<C> = dyn Fn(&Parts) -> Result<Caller<C>, Rejection> + Send + Sync;

/// Who sent a request, as the request function decided: an identity and the tools'
/// context for it.
///
/// The identity owns sessions: a session created by one identity is, to every other,
/// a session that does not exist (404). Give the same identity to every request of one
/// principal (a user id, an account, a client id) and different ones to different
/// principals; not the token itself, unless one principal has one token.
///
/// ```
/// let caller = toolcall_mcp::Caller::new("user-7", 7u64);
/// assert_eq!((caller.identity(), *caller.context()), ("user-7", 7));
/// ```
///
/// The README's example: a user table the request function owns (`move`), a token looked
/// up to a user, the user's id as the identity.
///
/// ```no_run
/// # use std::collections::HashMap;
/// # #[derive(Clone)] struct User { id: u64 }
/// # struct Users(HashMap<String, User>);
/// # impl Users { fn sign_in(&self, token: &str) -> Option<User> { self.0.get(token).cloned() } }
/// # struct App { user: Option<User> }
/// # impl App { fn local() -> Self { App { user: None } } fn for_user(user: User) -> Self { App { user: Some(user) } } }
/// # mod toolset { pub static ALL: toolcall_runtime::Toolset<super::App> = toolcall_runtime::Toolset::new(&[], &E, |_, _, _| None); static E: toolcall_runtime::Emitted = toolcall_runtime::Emitted::new(); }
/// # async fn run(users: Users, addr: std::net::SocketAddr) -> Result<(), Box<dyn std::error::Error>> {
/// use toolcall_mcp::{Caller, McpServer, Rejection, bearer_token};
///
/// McpServer::new(&toolset::ALL, App::local())
///     .context_from_request(move |req| {
///         let token = bearer_token(req).ok_or_else(|| Rejection::unauthorized("no token"))?;
///         let user = users.sign_in(token).ok_or_else(|| Rejection::unauthorized("unknown token"))?;
///         Ok(Caller::new(user.id.to_string(), App::for_user(user)))
///     })
///     .serve_http(addr)
///     .await?;
/// # Ok(()) }
/// # fn main() {}
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller<C> {
    identity: String,
    context: C,
}

impl<C> Caller<C> {
    /// `context` for the principal named `identity`.
    pub fn new(identity: impl Into<String>, context: C) -> Self {
        Caller { identity: identity.into(), context }
    }

    /// The principal's identity.
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// The tools' context.
    pub fn context(&self) -> &C {
        &self.context
    }

    /// The tools' context, consuming the caller.
    pub fn into_context(self) -> C {
        self.context
    }
}

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
    pub(crate) header_timeout: Duration,
    pub(crate) body_timeout: Duration,
    pub(crate) idle_timeout: Duration,
    pub(crate) max_connections: usize,
    pub(crate) max_sessions: usize,
    pub(crate) max_sessions_per_identity: usize,
    pub(crate) session_idle_timeout: Duration,
    pub(crate) max_json_values: usize,
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            hosts: StreamableHttpServerConfig::default().allowed_hosts,
            origins: LOOPBACK_ORIGINS.iter().map(|o| (*o).to_owned()).collect(),
            body_limit: DEFAULT_BODY_LIMIT,
            session_store: None,
            legacy_sessions: true,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_sessions_per_identity: DEFAULT_MAX_SESSIONS_PER_IDENTITY,
            session_idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
            max_json_values: DEFAULT_MAX_JSON_VALUES,
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
        let listed = self.hosts.iter().any(|host| {
            let host = host.trim_start_matches('[').trim_end_matches(']');
            host.parse::<std::net::IpAddr>().is_ok_and(|listed| listed == ip)
        });
        if !listed {
            self.hosts.push(name);
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

/// The context the request function built for one request, in its extensions.
pub(crate) struct CallerContext<C>(pub(crate) Arc<C>);

impl<C> Clone for CallerContext<C> {
    fn clone(&self) -> Self {
        CallerContext(Arc::clone(&self.0))
    }
}

/// The identity of one request's caller, in its extensions: the request function's, or
/// the one anonymous identity when the server has none.
#[derive(Clone, Debug, Default)]
pub(crate) struct Identity(pub(crate) Arc<str>);

/// When a request arrived (its head was read), in its extensions: a call's time limit
/// counts from it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Arrived(pub(crate) Instant);

/// The router: rmcp's service at `/mcp`, behind the checks above.
pub(crate) fn router<C: Send + Sync + 'static>(server: McpServer<C>) -> axum::Router {
    let settings = server.http.clone();
    let config = settings.config();
    let from_request = server.from_request.clone();
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(settings.session_idle_timeout);
    let manager = Arc::new(manager);
    let per_identity = from_request.is_some().then_some(settings.max_sessions_per_identity);
    let sessions = Arc::new(Sessions::new(
        settings.max_sessions,
        per_identity,
        Arc::clone(&manager),
        settings.session_store.clone(),
    ));
    let service = StreamableHttpService::new(move || Ok(server.for_session()), manager, config);
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
    let large = Arc::new(tokio::sync::Semaphore::new(cores.clamp(1, 8)));
    let limits = BodyLimits {
        limit: settings.body_limit,
        timeout: settings.body_timeout,
        max_values: settings.max_json_values,
        large,
    };
    let router = axum::Router::new().nest_service("/mcp", service);
    // Without legacy sessions rmcp serves every request on its own and ignores
    // `Mcp-Session-Id`: there is nothing to guard.
    let router = if settings.legacy_sessions {
        router.layer(axum::middleware::from_fn_with_state(sessions, sessions::guard))
    } else {
        router
    };
    let router = router.layer(axum::middleware::from_fn_with_state(limits, read_body));
    let router = match from_request {
        Some(function) => router.layer(axum::middleware::from_fn_with_state(function, authenticate::<C>)),
        None => router,
    };
    let allowed = Arc::new(rebinding::Allowed::new(&settings.hosts, &settings.origins));
    router
        .layer(axum::middleware::from_fn_with_state(allowed, rebinding::check))
        .layer(axum::middleware::from_fn(check_head))
}

/// Two `Host` or `Mcp-Session-Id` headers are a bad request (RFC 9112: one `Host`); the
/// request's arrival is noted when the connection layer has not; an error response's
/// text is cut to 1 KiB.
async fn check_head(mut request: Request, next: Next) -> Response {
    if request.extensions().get::<Arrived>().is_none() {
        request.extensions_mut().insert(Arrived(Instant::now()));
    }
    for (name, what) in [(header::HOST.as_str(), "Host"), (sessions::SESSION_ID, "Mcp-Session-Id")] {
        if request.headers().get_all(name).iter().nth(1).is_some() {
            return plain(StatusCode::BAD_REQUEST, format!("Bad Request: more than one {what} header"));
        }
    }
    let response = next.run(request).await;
    if response.status().is_client_error() || response.status().is_server_error() {
        return cut_error_body(response).await;
    }
    response
}

/// An error response with at most [`MAX_ERROR_BODY`] bytes of its text (rmcp's 415 quotes
/// serde's message, which may quote the request).
async fn cut_error_body(response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    let text = match axum::body::to_bytes(body, 16 * DEFAULT_BODY_LIMIT).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(_) => String::new(),
    };
    if text.len() <= MAX_ERROR_BODY {
        parts.headers.remove(header::CONTENT_LENGTH);
        return Response::from_parts(parts, Body::from(text));
    }
    let mut end = MAX_ERROR_BODY;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(format!("{}…", &text[..end])))
}

/// A plain-text response.
pub(crate) fn plain(status: StatusCode, text: impl Into<String>) -> Response {
    (status, text.into()).into_response()
}

/// A plain-text response after which the connection is closed (its body was not read).
fn closing(status: StatusCode, text: impl Into<String>) -> Response {
    let mut response = plain(status, text);
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Calls the request function: its rejection is the response; its caller's context and
/// identity go on with the request.
async fn authenticate<C: Send + Sync + 'static>(
    State(function): State<Arc<RequestFn<C>>>,
    request: Request,
    next: Next,
) -> Response {
    let (mut parts, body) = request.into_parts();
    match function(&parts) {
        Ok(Caller { identity, context }) => {
            parts.extensions.insert(CallerContext(Arc::new(context)));
            parts.extensions.insert(Identity(Arc::from(identity)));
            next.run(Request::from_parts(parts, body)).await
        }
        Err(rejection) => {
            log::info!("{} {}: refused ({rejection})", parts.method, parts.uri);
            let mut response = rejection.into_response();
            // The body was not read: the connection cannot carry another request.
            response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
            response
        }
    }
}

/// The body's limit and time limit, and the turns for parsing large bodies.
#[derive(Clone, Debug)]
struct BodyLimits {
    limit: usize,
    timeout: Duration,
    max_values: usize,
    large: Arc<tokio::sync::Semaphore>,
}

/// Reads the body within its limits; hands a large one to rmcp off the async workers.
async fn read_body(State(limits): State<BodyLimits>, request: Request, next: Next) -> Response {
    let too_large = || format!("Payload Too Large: request body exceeds {} bytes", limits.limit);
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|text| text.parse::<u64>().ok());
    if let Some(length) = declared.filter(|length| *length > limits.limit as u64) {
        let expects = request.headers().contains_key(header::EXPECT);
        if expects || length > 2 * limits.limit as u64 {
            // Before the body is polled, so no `100 Continue` was sent.
            return closing(StatusCode::PAYLOAD_TOO_LARGE, too_large());
        }
        // A client already sending a body up to twice the limit gets it read and dropped,
        // so it sees the 413 rather than a reset connection.
        let drained =
            http_body_util::BodyExt::collect(http_body_util::Limited::new(Drain(request.into_body()), 0));
        return match tokio::time::timeout(limits.timeout, drained).await {
            Ok(Ok(_)) => plain(StatusCode::PAYLOAD_TOO_LARGE, too_large()),
            _ => closing(StatusCode::PAYLOAD_TOO_LARGE, too_large()),
        };
    }
    let (parts, body) = request.into_parts();
    let read = http_body_util::BodyExt::collect(http_body_util::Limited::new(body, limits.limit));
    let bytes = match tokio::time::timeout(limits.timeout, read).await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(error)) if error.is::<http_body_util::LengthLimitError>() => {
            return closing(StatusCode::PAYLOAD_TOO_LARGE, too_large());
        }
        Ok(Err(error)) => {
            return closing(StatusCode::BAD_REQUEST, format!("Bad Request: cannot read the body: {error}"));
        }
        Err(_) => {
            log::info!("{} {}: body not received within {:?}", parts.method, parts.uri, limits.timeout);
            return closing(
                StatusCode::REQUEST_TIMEOUT,
                format!("Request Timeout: the body did not arrive within {} ms", limits.timeout.as_millis()),
            );
        }
    };
    if bytes.len() <= LARGE_BODY {
        return next.run(Request::from_parts(parts, Body::from(bytes))).await;
    }
    // rmcp's parse of a 4 MiB body of small members peaks near 100 MiB; at most one per
    // core at a time (more would not finish sooner), so eight at once do not take 800.
    let _turn = limits.large.acquire().await;
    let values = OffWorker(Box::pin(async { json_values(&bytes) })).await;
    if values > limits.max_values {
        log::info!("a body of {values} JSON values or more refused (the limit is {})", limits.max_values);
        return plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "Payload Too Large: the body holds {values} JSON values or more; the limit is {}",
                limits.max_values
            ),
        );
    }
    OffWorker(Box::pin(next.run(Request::from_parts(parts, Body::from(bytes))))).await
}

/// How many JSON values a text holds, counted without parsing it: one, plus one per
/// comma and per opening bracket outside strings (a malformed text is counted the same
/// way, and left to the parser to refuse). Parsing costs memory per value (rmcp's parse
/// of 300,000 one-digit members peaks near 100 MiB); this costs none.
pub(crate) fn json_values(text: &[u8]) -> usize {
    let mut count = 1usize;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in text {
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b',' | b'[' | b'{' => count += 1,
            _ => {}
        }
    }
    count
}

/// A body whose data is read and thrown away: it yields no frame until its end.
struct Drain(Body);

impl http_body::Body for Drain {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        loop {
            match Pin::new(&mut self.0).poll_frame(cx) {
                Poll::Ready(Some(Ok(_))) => continue,
                other => return other,
            }
        }
    }
}

/// A future each of whose polls runs in `block_in_place` on a multi-thread runtime: the
/// worker hands its other tasks to another thread first, so parsing a 4 MiB body stalls
/// nothing else. Elsewhere (a current-thread runtime) it is polled as it is.
struct OffWorker<F>(Pin<Box<F>>);

impl<F: Future> Future for OffWorker<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let multi_thread = tokio::runtime::Handle::try_current()
            .is_ok_and(|handle| handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        if multi_thread {
            tokio::task::block_in_place(|| self.0.as_mut().poll(cx))
        } else {
            self.0.as_mut().poll(cx)
        }
    }
}

/// A response body that holds `guard` until it is finished or dropped.
pub(crate) struct Guarded<G> {
    inner: Body,
    _guard: G,
}

impl<G: Send + Unpin + 'static> Guarded<G> {
    /// `response` with `guard` held by its body.
    pub(crate) fn wrap(response: Response, guard: G) -> Response {
        response.map(|inner| Body::new(Guarded { inner, _guard: guard }))
    }
}

impl<G: Unpin> http_body::Body for Guarded<G> {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
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
    fn the_bound_loopback_address_is_allowed() {
        let mut settings = HttpSettings::default();
        let before = settings.hosts.clone();
        settings.allow_bound_loopback("127.0.0.1".parse().unwrap());
        settings.allow_bound_loopback("::1".parse().unwrap());
        assert_eq!(settings.hosts, before, "already listed");
        settings.allow_bound_loopback("127.0.0.2".parse().unwrap());
        assert_eq!(settings.hosts.last().map(String::as_str), Some("127.0.0.2"));
        settings.allow_bound_loopback("0.0.0.0".parse().unwrap());
        assert_eq!(settings.hosts.len(), before.len() + 1, "not loopback: nothing added");
        let mut named = HttpSettings { hosts: vec!["mcp.example".into()], ..HttpSettings::default() };
        named.allow_bound_loopback("127.0.0.2".parse().unwrap());
        assert_eq!(named.hosts, ["mcp.example"], "a configured list is left alone");
    }

    #[test]
    fn json_values_are_counted_outside_strings() {
        assert_eq!(json_values(b"1"), 1);
        assert_eq!(json_values(br#"{"a":1,"b":[1,2,{"c":null}]}"#), 7);
        assert_eq!(json_values(br#"{"a":"x,y[{\",\\","b":2}"#), 3);
        assert_eq!(json_values(br#"["]",1]"#), 3);
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
