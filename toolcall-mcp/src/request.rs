//! What an HTTP request carries to the handler: its caller, as the user's request
//! function built it from the head ([`Caller`], or a [`Rejection`] sent as the
//! response), and when it arrived. Plain types; the middlewares that fill them are in
//! [`crate::streamable_http`].
//!
//! The types a request's head carries are read whether or not feature `http` is on: without
//! it nothing puts them there, and each read finds none.
#![cfg_attr(not(feature = "http"), allow(dead_code))]

use std::sync::Arc;
use std::time::Instant;

#[cfg(feature = "http")]
use axum::response::{IntoResponse, Response};
#[cfg(feature = "http")]
use http::request::Parts;
#[cfg(feature = "http")]
use http::{HeaderValue, StatusCode, header};

use crate::context::ErasedContext;

/// A user function building the caller (identity and tools' context) from one HTTP
/// request's head.
#[cfg(feature = "http")]
pub type RequestFn<C> = dyn Fn(&Parts) -> Result<Caller<C>, Rejection> + Send + Sync;

/// A [`RequestFn`], its context's type erased ([`crate::context`]).
#[cfg(feature = "http")]
pub(crate) type CallerFn = dyn Fn(&Parts) -> Result<Caller<ErasedContext>, Rejection> + Send + Sync;

/// Who sent a request, as the request function decided: an identity and the tools'
/// context for it.
///
/// The identity owns sessions: a session created by one identity is, to every other,
/// a session that does not exist (404). Give the same identity to every request of one
/// principal (a user id, an account, a client id) and different ones to different
/// principals; not the token itself, unless one principal has one token. The empty
/// identity is anonymous, as a server without a request function: its sessions are any
/// anonymous caller's, and rate limits count each client address apart.
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
#[cfg(feature = "http")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller<C> {
    pub(crate) identity: String,
    pub(crate) context: C,
}

#[cfg(feature = "http")]
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
#[cfg(feature = "http")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    status: StatusCode,
    message: String,
}

#[cfg(feature = "http")]
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

#[cfg(feature = "http")]
impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status, self.message)
    }
}

#[cfg(feature = "http")]
impl std::error::Error for Rejection {}

#[cfg(feature = "http")]
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
#[cfg(feature = "http")]
pub fn bearer_token(parts: &Parts) -> Option<&str> {
    let value = parts.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The context the request function built for one request, in its extensions.
#[derive(Clone)]
pub(crate) struct CallerContext(pub(crate) ErasedContext);

/// The identity of one request's caller, in its extensions: the request function's, or
/// the one anonymous identity when the server has none.
#[derive(Clone, Debug, Default)]
pub(crate) struct Identity(pub(crate) Arc<str>);

/// The client a request comes from when its peer is a trusted proxy and the proxies said
/// who (`Forwarded`, `X-Forwarded-For`), in its extensions; without it, the client is the
/// peer ([`Arrived::peer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ClientAddr(pub(crate) std::net::IpAddr);

/// The address of the client of a request with `extensions`: the one its trusted proxies
/// named, else its peer's; `None` when the connection's peer is not known (a router
/// served by the application).
pub(crate) fn client_ip(extensions: &http::Extensions) -> Option<std::net::IpAddr> {
    match extensions.get::<ClientAddr>() {
        Some(ClientAddr(client)) => Some(*client),
        None => extensions.get::<Arrived>()?.peer.map(|peer| peer.ip().to_canonical()),
    }
}

/// A request's arrival, in its extensions: when (a call's time limit counts from `at`),
/// from where, and the fuse its client's departure lights. One extension for the three:
/// a request's extensions are a small map that grows (a reallocation) past its third
/// entry.
#[derive(Clone, Debug)]
pub(crate) struct Arrived {
    /// When its head was read.
    pub(crate) at: Instant,
    /// The address its connection comes from (its TCP peer); `None` where the server
    /// does not hold the connection (a router the application serves).
    pub(crate) peer: Option<std::net::SocketAddr>,
    /// Fires when the client goes away before the end of the response (a POST's: a GET
    /// stream or a DELETE carries no call to cancel).
    pub(crate) disconnect: Option<Disconnect>,
    /// Its `MCP-Protocol-Version` header, read once by the front for the checks and the
    /// routes after it.
    pub(crate) version: VersionHeader,
}

impl Arrived {
    /// A request that arrived `at`, from `peer`; its header not yet read.
    pub(crate) fn new(at: Instant, peer: Option<std::net::SocketAddr>) -> Self {
        Arrived { at, peer, disconnect: None, version: VersionHeader::Unread }
    }
}

/// A request's `MCP-Protocol-Version` header (its first one, as `HeaderMap::get` finds),
/// as the front read it: a known revision is kept; anything else is read again where it
/// matters (rare: the route then goes to rmcp, which refuses or negotiates).
#[derive(Clone, Debug)]
pub(crate) enum VersionHeader {
    /// Not read yet (a request the front did not see).
    Unread,
    /// No such header.
    Absent,
    /// A known revision's name.
    Known(rmcp::model::ProtocolVersion),
    /// Any other value: an unknown name, or not text.
    Other,
}

#[cfg(feature = "http")]
impl VersionHeader {
    /// The header of a request with `headers`.
    pub(crate) fn of(headers: &http::HeaderMap) -> Self {
        match headers.get(crate::streamable_http::names::PROTOCOL_VERSION) {
            None => VersionHeader::Absent,
            Some(value) => match value.to_str().ok().and_then(crate::revision::known) {
                Some(known) => VersionHeader::Known(known),
                None => VersionHeader::Other,
            },
        }
    }

    /// The header's text, `Err` when it is not text; with `headers`, the request's own,
    /// for a value this does not keep.
    pub(crate) fn text<'a>(&'a self, headers: &'a http::HeaderMap) -> Result<Option<&'a str>, ()> {
        match self {
            VersionHeader::Absent => Ok(None),
            VersionHeader::Known(known) => Ok(Some(known.as_str())),
            VersionHeader::Unread | VersionHeader::Other => {
                match headers.get(crate::streamable_http::names::PROTOCOL_VERSION) {
                    None => Ok(None),
                    Some(value) => value.to_str().map(Some).map_err(|_| ()),
                }
            }
        }
    }

    /// The header of `request`, as the front noted it on its arrival (else read now).
    pub(crate) fn of_request<B>(request: &http::Request<B>) -> VersionHeader {
        match request.extensions().get::<Arrived>().map(|arrived| &arrived.version) {
            Some(VersionHeader::Unread) | None => VersionHeader::of(request.headers()),
            Some(noted) => noted.clone(),
        }
    }
}

/// Fires when the client stops reading the request's response before it ended (it
/// disconnected): the HTTP layer keeps the trigger in the response body, and a call waits
/// on this to stop (the specification: a client's disconnect cancels its request).
///
/// One allocation per request and nothing to wake when the response ends normally (a
/// `watch` channel cost a call of a cheap tool about 1,500 instructions: its shared state
/// and, when its sender dropped, eight notifiers woken).
#[derive(Clone, Debug)]
pub(crate) struct Disconnect(std::sync::Arc<Fuse>);

/// What a [`Disconnect`] and its trigger share.
#[derive(Debug, Default)]
pub(crate) struct Fuse {
    /// Set once, when the client went away.
    fired: std::sync::atomic::AtomicBool,
    /// Wakes the calls waiting on it.
    waiters: tokio::sync::Notify,
}

impl Disconnect {
    /// A disconnect and its trigger; dropping the trigger unfired never fires it.
    pub(crate) fn new() -> (DisconnectTrigger, Disconnect) {
        let fuse = std::sync::Arc::new(Fuse::default());
        (DisconnectTrigger(Some(std::sync::Arc::clone(&fuse))), Disconnect(fuse))
    }

    /// Resolves when the client has gone away; never when the response ended normally.
    pub(crate) async fn fired(self) {
        loop {
            let notified = self.0.waiters.notified();
            tokio::pin!(notified);
            // Registered before the flag is read: a fire between the two wakes it.
            notified.as_mut().enable();
            if self.0.fired.load(std::sync::atomic::Ordering::Acquire) {
                return;
            }
            notified.await;
        }
    }
}

/// The trigger of a [`Disconnect`]: fires when dropped, unless [`DisconnectTrigger::disarm`]
/// said the response ended.
#[derive(Debug)]
pub(crate) struct DisconnectTrigger(Option<std::sync::Arc<Fuse>>);

impl DisconnectTrigger {
    /// The response was sent to its end: dropping the trigger now fires nothing.
    pub(crate) fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for DisconnectTrigger {
    fn drop(&mut self) {
        if let Some(fuse) = self.0.take() {
            fuse.fired.store(true, std::sync::atomic::Ordering::Release);
            fuse.waiters.notify_waiters();
        }
    }
}

#[cfg(all(test, feature = "http"))]
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
    fn a_401_asks_for_a_bearer_token() {
        let response = Rejection::unauthorized("no token").into_response();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(response.headers().get(header::WWW_AUTHENTICATE).unwrap(), "Bearer");
        let response = Rejection::forbidden("not you").into_response();
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        assert!(response.headers().get(header::WWW_AUTHENTICATE).is_none());
    }

    /// Whether `fired` resolves within a few polls of a current-thread runtime.
    async fn resolves(fired: impl std::future::Future<Output = ()>) -> bool {
        tokio::time::timeout(std::time::Duration::from_millis(50), fired).await.is_ok()
    }

    #[tokio::test]
    async fn a_disconnect_fires_when_its_armed_trigger_drops() {
        let (trigger, disconnect) = Disconnect::new();
        let waiting = tokio::spawn(disconnect.clone().fired());
        tokio::task::yield_now().await;
        drop(trigger);
        assert!(resolves(async { waiting.await.unwrap() }).await, "a waiting call is woken");
        assert!(resolves(disconnect.fired()).await, "a call that looks later sees it fired");
    }

    #[tokio::test]
    async fn a_disarmed_trigger_never_fires() {
        let (mut trigger, disconnect) = Disconnect::new();
        let waiting = tokio::spawn(disconnect.clone().fired());
        trigger.disarm();
        drop(trigger);
        assert!(!resolves(disconnect.fired()).await, "the response ended: no disconnect");
        assert!(!waiting.is_finished());
        waiting.abort();
    }
}

/// The identity of the caller of `context`: over HTTP the request function's (or the one
/// anonymous identity), else empty (stdio, an in-process pipe: one client).
#[cfg(feature = "ask")]
pub(crate) fn identity(context: &rmcp::service::RequestContext<rmcp::service::RoleServer>) -> String {
    context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Identity>())
        .map(|identity| identity.0.to_string())
        .unwrap_or_default()
}
