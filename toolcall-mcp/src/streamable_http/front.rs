//! The HTTP front: one service for every request the server answers. A request for `/mcp`
//! goes through the route's checks in their order ([`McpRoute`]); any other path goes to
//! the routes beside it (the health probes, the OAuth metadata), an axum router.
//!
//! Each check of the route is a function that gives back the request or its refusal, and
//! [`McpRoute`] runs them in turn, so a request passes every check inside one future: no
//! service is cloned and no future boxed or moved per check, as axum's middleware layers
//! did for each of theirs (a clone of the route beneath and a boxed future per layer and
//! request, each holding the next: about 30% of a trivial call's server CPU with a dozen
//! layers). The request log and [`check_head`] wrap the route's answer (they act on the
//! response too), and every other route's through a layer ([`logged_and_checked`]).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::model::ProtocolVersion;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use super::body::{BodyLimits, Guarded, MAX_ERROR_BODY, ParseInPlace, read_body};
use super::hot::Hot;
use super::sessions::{self, Sessions};
use super::{forwarded, hosts, rate};
use crate::plain::plain;
use crate::request::{Arrived, Caller, CallerContext, CallerFn, Disconnect, Identity, VersionHeader};
use crate::server::Server;

/// The `/mcp` route: its checks, outermost first, and rmcp's service behind them.
pub(crate) struct McpRoute {
    /// `Host` and `Origin`.
    pub(crate) allowed: hosts::Allowed,
    /// The bearer token, then (once the body is read) a call's tool scopes.
    #[cfg(feature = "oauth")]
    pub(crate) oauth: Option<Arc<crate::oauth::ResourceServer>>,
    /// The user's request function.
    pub(crate) from_request: Option<Arc<CallerFn>>,
    /// The body's size, time and JSON-value limits.
    pub(crate) limits: BodyLimits,
    /// The calls' rates, when limited.
    pub(crate) rate: Option<rate::Limiters>,
    /// The proxies whose `Forwarded`/`X-Forwarded-For` name the client.
    pub(crate) trusted_proxies: Vec<forwarded::Cidr>,
    /// The legacy sessions' guard, when the server keeps them.
    pub(crate) sessions: Option<Arc<Sessions>>,
    /// `tools/call` and `tools/list` answered from the request's bytes.
    pub(crate) hot: Arc<Hot>,
    /// rmcp's service, for the rest.
    pub(crate) rmcp: StreamableHttpService<Server, LocalSessionManager>,
}

impl McpRoute {
    /// Answers one request for `/mcp`: each check in turn, the first refusal is the
    /// answer; then the session guard and the answer.
    pub(crate) fn serve(&self, request: Request) -> impl std::future::Future<Output = Response> {
        async move {
            match self.checked(request).await {
                Ok(response) | Err(response) => self.challenged(response),
            }
        }
    }

    /// `response`; with OAuth, a 401 of the request function points at the metadata too
    /// (the token check's own 401s do already, and nothing else answers 401).
    fn challenged(&self, response: Response) -> Response {
        #[cfg(feature = "oauth")]
        if let Some(server) = &self.oauth {
            return crate::oauth::guard::challenged(server, response);
        }
        response
    }

    /// The checks, then the answer; `Err` is a refusal.
    fn checked(&self, request: Request) -> impl std::future::Future<Output = Result<Response, Response>> {
        async move {
            if let Some(refused) = hosts::refusal(&self.allowed, &request) {
                return Err(refused);
            }
            #[cfg(feature = "oauth")]
            let request = match &self.oauth {
                Some(server) => Box::pin(crate::oauth::guard::verify_token(server, request)).await?,
                None => request,
            };
            let request = match &self.from_request {
                Some(function) => authenticate(function.as_ref(), request)?,
                None => request,
            };
            let (request, large) = read_body(&self.limits, request).await?;
            #[cfg(feature = "oauth")]
            let request = match self.oauth.as_ref().filter(|server| !server.tools.is_empty()) {
                Some(server) => Box::pin(crate::oauth::scopes::check_tool_scopes(server, request)).await?,
                None => request,
            };
            if let Some(limiters) = &self.rate
                && let Some(refused) = Box::pin(rate::refusal(limiters, &request)).await
            {
                return Err(refused);
            }
            Ok(match large {
                // rmcp parses a large body as it handles the request: off the async workers.
                Some(_turn) => ParseInPlace(Box::pin(self.guarded(request))).await,
                None => crate::boxed::boxed(|| self.guarded(request)).await,
            })
        }
    }

    /// The session guard. Without legacy sessions rmcp serves every request on its own
    /// and ignores `Mcp-Session-Id`: there is nothing to guard.
    fn guarded(&self, request: Request) -> impl std::future::Future<Output = Response> {
        async move {
            match &self.sessions {
                Some(sessions) => sessions::guard(sessions, request, |request| self.answer(request)).await,
                None => self.answer(request).await,
            }
        }
    }

    /// The hot path's answer, else rmcp's.
    fn answer(&self, request: Request) -> impl std::future::Future<Output = Response> {
        async move {
            match crate::boxed::boxed(|| self.hot.answer(request)).await {
                Ok(answered) => answered,
                // rmcp's future is several times the size of the rest of the route's: boxed,
                // it is not moved along with every request the hot path answers.
                Err(request) => Box::pin(self.rmcp_answer(request)).await,
            }
        }
    }

    /// rmcp's answer.
    async fn rmcp_answer(&self, request: Request) -> Response {
        // A session rmcp opens or restores on this request takes the state the session
        // guard holds for it (or made for it).
        // A request of a session rmcp does not serve waits for the one restoring it.
        let (state, restore) = match (
            request.extensions().get::<sessions::NewSession>(),
            request.extensions().get::<sessions::SessionLink>(),
        ) {
            (Some(new), _) => (Some(new.0.clone()), new.1.clone()),
            (None, Some(link)) => (Some(link.state.clone()), Some(link.restore.clone())),
            (None, None) => (None, None),
        };
        let served = state.as_ref().is_some_and(|state| state.live_peer().is_some());
        let handled = async {
            match state {
                Some(state) => state.creating(self.rmcp.handle(request)).await.map(Body::new),
                None => self.rmcp.handle(request).await.map(Body::new),
            }
        };
        match restore {
            Some(restore) => restore.pass(served, handled).await,
            None => handled.await,
        }
    }
}

/// The server's HTTP service: `/mcp` (and paths under it) through [`McpRoute`], the rest
/// through `beside`; every request logged (when the request log is on) and its head
/// checked ([`check_head`]).
pub(crate) struct Front {
    mcp: Arc<McpRoute>,
    /// The routes beside `/mcp`, with the request log and [`check_head`] as layers.
    beside: axum::Router,
}

impl Clone for Front {
    fn clone(&self) -> Self {
        Front { mcp: Arc::clone(&self.mcp), beside: self.beside.clone() }
    }
}

impl Front {
    /// `mcp` and the routes `beside` it (given without the front's layers).
    pub(crate) fn new(mcp: McpRoute, beside: axum::Router) -> Self {
        let beside =
            beside.layer(axum::middleware::from_fn(|request: Request, next: axum::middleware::Next| {
                logged_and_checked(request, |request| next.run(request))
            }));
        Front { mcp: Arc::new(mcp), beside }
    }

    /// The front as an axum router: `/mcp` and the paths under it, and the routes beside.
    pub(crate) fn into_router(self) -> axum::Router {
        self.beside.clone().route_service("/mcp", self.clone()).route_service("/mcp/{*rest}", self)
    }
}

/// Whether `path` is the MCP endpoint's.
fn is_mcp(path: &str) -> bool {
    path.strip_prefix("/mcp").is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

impl<B> tower_service::Service<axum::http::Request<B>> for Front
where
    B: http_body::Body<Data = axum::body::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: axum::http::Request<B>) -> Self::Future {
        self.respond(request)
    }
}

impl Front {
    /// The response to `request`, as [`tower_service::Service::call`] gives it, from a
    /// shared front: the connections call it for each request without the clone of the
    /// front (two reference counts) and the request's move into a one-shot service future
    /// that hyper-util's tower adapter makes.
    pub(crate) fn respond<B>(
        &self,
        request: axum::http::Request<B>,
    ) -> Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>
    where
        B: http_body::Body<Data = axum::body::Bytes> + Send + 'static,
        B::Error: Into<axum::BoxError>,
    {
        let mut request = request.map(Body::new);
        if !is_mcp(request.uri().path()) {
            let mut beside = self.beside.clone();
            return Box::pin(async move { tower_service::Service::call(&mut beside, request).await });
        }
        forwarded::note_client(&self.mcp.trusted_proxies, &mut request);
        let mcp = Arc::clone(&self.mcp);
        crate::boxed::boxed(
            || async move { Ok(logged_and_checked(request, |request| mcp.serve(request)).await) },
        )
    }
}

/// `answer`'s response to `request`, with the request log (outermost) and [`check_head`]
/// around it: what every request the front serves passes. A plain function giving the
/// request log's future, so the route's future is not wrapped (and moved) once more.
fn logged_and_checked<F: Future<Output = Response>>(
    request: Request,
    answer: impl FnOnce(Request) -> F,
) -> impl Future<Output = Response> {
    crate::telemetry::request_log(request, |request| check_head(request, answer))
}

/// Two `Host` or `Mcp-Session-Id` headers are a bad request (RFC 9112: one `Host`); the
/// request's arrival is noted when the connection layer has not, with its
/// `MCP-Protocol-Version` header (read once here for the checks and routes after); the
/// response's body
/// fires the request's [`Disconnect`] if the client leaves before its end; an error
/// response's text is cut to 1 KiB.
fn check_head<F: Future<Output = Response>>(
    mut request: Request,
    next: impl FnOnce(Request) -> F,
) -> impl std::future::Future<Output = Response> {
    async move {
        let version = VersionHeader::of(request.headers());
        let cancellable = may_be_cancelled_by_disconnect(request.method(), &version);
        match request.extensions_mut().get_mut::<Arrived>() {
            Some(arrived) => arrived.version = version,
            None => {
                request.extensions_mut().insert(Arrived { version, ..Arrived::new(Instant::now(), None) });
            }
        }
        // As many values as names: no header is repeated, none of these two (the usual case,
        // without a lookup).
        let headers = request.headers();
        if headers.len() != headers.keys_len() {
            for (name, what) in [(header::HOST, "Host"), (super::names::SESSION_ID, "Mcp-Session-Id")] {
                if headers.get_all(name).iter().nth(1).is_some() {
                    return plain(
                        StatusCode::BAD_REQUEST,
                        format!("Bad Request: more than one {what} header"),
                    );
                }
            }
        }
        let trigger = cancellable.then(|| {
            let (trigger, disconnect) = Disconnect::new();
            if let Some(arrived) = request.extensions_mut().get_mut::<Arrived>() {
                arrived.disconnect = Some(disconnect);
            }
            trigger
        });
        let response = next(request).await;
        if response.status().is_client_error() || response.status().is_server_error() {
            return cut_error_body(response).await;
        }
        match trigger {
            Some(trigger) => Guarded::wrap(response, trigger),
            None => response,
        }
    }
}

/// Whether a request of `method` whose `MCP-Protocol-Version` header is `version` may
/// carry a call that its client's going away cancels, one of 2026-07-28 or later (earlier
/// revisions' calls go on): a POST (a GET stream or a DELETE carries no call) whose header
/// does not name an earlier revision (rmcp and the hot path refuse a 2026-07-28 `_meta`
/// under another revision's header).
fn may_be_cancelled_by_disconnect(method: &Method, version: &VersionHeader) -> bool {
    *method == Method::POST
        && match version {
            VersionHeader::Known(known) => {
                crate::revision::is_at_least(known, &ProtocolVersion::V_2026_07_28)
            }
            VersionHeader::Unread | VersionHeader::Absent | VersionHeader::Other => true,
        }
}

/// The most of an error response's body read before it is cut (rmcp's are short).
const ERROR_BODY_READ: usize = 64 * 1024 * 1024;

/// An error response with at most [`MAX_ERROR_BODY`] bytes of its text (rmcp's 415 quotes
/// serde's message, which may quote the request).
async fn cut_error_body(response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    let text = match axum::body::to_bytes(body, ERROR_BODY_READ).await {
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

/// Calls the request function: the request with its caller's context and identity, or
/// its rejection as the response.
// The `Ok` side, a request, is larger than the refusal.
#[allow(clippy::result_large_err)]
fn authenticate(function: &CallerFn, request: Request) -> Result<Request, Response> {
    let (mut parts, body) = request.into_parts();
    match function(&parts) {
        Ok(Caller { identity, context }) => {
            parts.extensions.insert(CallerContext(context));
            parts.extensions.insert(Identity(Arc::from(identity)));
            Ok(Request::from_parts(parts, body))
        }
        Err(rejection) => {
            log::info!("{} {}: refused ({rejection})", parts.method, parts.uri);
            let mut response = rejection.into_response();
            // The body was not read: the connection cannot carry another request.
            response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
            Err(response)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_post_that_may_be_a_2026_07_28_call_is_cancelled_by_a_disconnect() {
        let cancellable = |request: &Request| {
            may_be_cancelled_by_disconnect(request.method(), &VersionHeader::of(request.headers()))
        };
        let request = |method: Method, versions: &[&str]| {
            let mut builder = Request::builder().method(method).uri("/mcp");
            for version in versions {
                builder = builder.header("mcp-protocol-version", *version);
            }
            builder.body(Body::empty()).unwrap()
        };
        for versions in
            [&[][..], &["2026-07-28"], &["2099-01-01"], &["2025-06-18 "], &["2026-07-28", "2025-06-18"]]
        {
            assert!(cancellable(&request(Method::POST, versions)), "{versions:?}");
        }
        for versions in [
            &["2025-06-18"][..],
            &["2024-11-05"],
            &["2025-03-26"],
            &["2025-11-25"],
            &["2025-06-18", "2026-07-28"],
        ] {
            assert!(!cancellable(&request(Method::POST, versions)), "{versions:?}");
        }
        for method in [Method::GET, Method::DELETE] {
            assert!(!cancellable(&request(method, &["2026-07-28"])));
        }
    }

    #[test]
    fn the_mcp_endpoint_is_its_path_and_the_paths_under_it() {
        for path in ["/mcp", "/mcp/", "/mcp/x/y"] {
            assert!(is_mcp(path), "{path}");
        }
        for path in ["/", "/mcpx", "/healthz", "/.well-known/oauth-protected-resource/mcp", "/mc"] {
            assert!(!is_mcp(path), "{path}");
        }
    }
}

#[cfg(test)]
mod sizes {
    use super::super::health::Health;
    use super::*;

    static EMITTED: toolcall_runtime::Emitted = toolcall_runtime::Emitted::new();
    static INFO: [toolcall_runtime::ToolInfo; 1] =
        [toolcall_runtime::ToolInfo { name: "noop", ..toolcall_runtime::ToolInfo::EMPTY }];
    static TOOLS: toolcall_runtime::Toolset<()> =
        toolcall_runtime::Toolset::new(&INFO, &EMITTED, |_, _, _| None);

    /// Every future of the route is moved (copied whole) into the one awaiting it, once per
    /// request: the route's own stays small, and rmcp's (several times larger) is boxed
    /// apart, so a call the hot path answers does not carry it.
    #[tokio::test]
    async fn a_requests_futures_stay_small() {
        let server = crate::McpServer::new(&TOOLS, ()).server;
        let health = Arc::new(Health::new(server.http.readiness.clone()));
        let front = super::super::build_front(server, health);
        let request = || Request::new(Body::empty());
        let serve = std::mem::size_of_val(&front.mcp.serve(request()));
        let answer = std::mem::size_of_val(&front.mcp.answer(request()));
        let rmcp = std::mem::size_of_val(&front.mcp.rmcp_answer(request()));
        // The rare branches' futures (a session opened, restored or expired; a body too
        // large; the token, scopes and rates when configured) and the hot path's own are
        // boxed: each level holds a pointer to them, not them.
        let guard = front.mcp.sessions.as_ref().map_or(0, |sessions| {
            std::mem::size_of_val(&sessions::guard(sessions, request(), |_| async { Response::default() }))
        });
        assert!(serve <= 3 * 1024, "the route's future is {serve} bytes");
        assert!(answer <= 1024, "the answer's future is {answer} bytes");
        assert!(guard > 0 && guard <= 1536, "the session guard's future is {guard} bytes");
        assert!(rmcp > answer, "rmcp's answer ({rmcp} bytes) is boxed apart for a reason");
    }
}
