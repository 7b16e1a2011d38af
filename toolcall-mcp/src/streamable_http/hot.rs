//! The hot path: the requests a session or a call is made of, answered by the server's
//! handler straight from the request's bytes, without rmcp's per-request machinery (its
//! message parse into a `Value` tree, a task and channels per request, a session worker's
//! round trip, the SSE stream's own task), where the protocol leaves nothing for that
//! machinery to do.
//!
//! It sits where rmcp's service does, behind every check of the layers in front
//! ([`super`]: hosts, authentication, body limits, rate limits, OAuth scopes, the session
//! guard), and takes a request only when it is sure rmcp would hand it to the handler and
//! send back nothing but the handler's answer:
//!
//! - a POST of one JSON-RPC message whose body was read whole (64 KiB or less), that
//!   accepts both JSON and SSE and says it is JSON;
//! - `tools/call` and `tools/list` whose params hold only what this path reads (no
//!   `requestState`, `inputResponses` or `task`: those go to rmcp), a call with no
//!   `progressToken` (progress rides rmcp's stream):
//!   - from 2026-07-28 (no session): `_meta` with every field the revision requires, a
//!     version this server supports named alike in `_meta` and `MCP-Protocol-Version`,
//!     the `Mcp-Method`/`Mcp-Name` headers matching the body (SEP-2243; a tool whose
//!     schema annotates `Mcp-Param-*` headers goes to rmcp, which checks them), and no
//!     `logLevel` (log messages ride rmcp's stream);
//!   - in a legacy session (up to 2025-11-25) the session guard admitted, whose client
//!     declared neither elicitation nor sampling (questions travel as requests on rmcp's
//!     streams);
//! - a legacy `initialize` asking for a revision this server speaks, which opens a session
//!   parked ([`super::parked`]: rmcp holds nothing of it until a request needs rmcp), and
//!   a parked session's `notifications/initialized`.
//!
//! Everything else (other notifications, responses, GET streams, resumption, DELETE, the
//! other methods, any request it is unsure of) goes to rmcp as before, and rmcp answers
//! what it refuses with its own errors.
//!
//! The handler does the work exactly as on rmcp's path ([`Server::call_tool_with`]:
//! the server span, the call limit, the time limit, cancellation, the revision's result
//! rules); the request context it gets carries the request's HTTP head and a peer: the
//! session's, while rmcp serves the session (so a call's log messages reach its standalone
//! stream as they do from rmcp's path), else one that nothing serves, carrying the
//! session's revision (a parked session has no stream open to hear a log message: opening
//! one unparks it) or none (2026-07-28, whose requests name theirs). The answer is written
//! as rmcp writes it: an SSE event, with a legacy session's priming event and event ids
//! (`0/S`, `1/S`, S a stream number no rmcp stream of the session uses), and shaped for the
//! revision as rmcp's handler shapes it. A `tools/list` page and an `initialize` result are
//! rendered once ([`crate::list::ListCache`], per revision).
//!
//! A call that is over at its first poll (a cheap tool, run inline: [`crate::inline`]) is
//! answered at once. One that waits goes on as rmcp's would: a 2026-07-28 call is polled
//! by its response body (a client that goes away drops it: cancelled), with keep-alive
//! comments; a legacy call runs on its own task (a disconnect is no cancellation; the
//! client may resume), its stream kept for a resume like rmcp's ([`super::resume`]), and a
//! `notifications/cancelled` naming it stops it here.

use std::borrow::Cow;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ContentBlock, ErrorCode, ErrorData, InitializeRequestParams,
    ProtocolVersion, RequestId, RequestMetaObject, ServerJsonRpcMessage, ServerResult,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::body::BodyBytes;
use super::events::{self, Events, KeepAlive};
use super::names;
use super::sessions::{HotEvents, HotSession, NewSession, SessionLink};
use crate::arguments::Arguments;
use crate::list::ListCache;
use crate::meta;
use crate::request::VersionHeader;
use crate::revision::Spoken;
use crate::server::Server;
use crate::settings::HttpSettings;
use crate::talk::SessionLevel;
use crate::telemetry::Served;

/// Stream numbers of the hot path's legacy answers start here, far above any rmcp gives a
/// session (it counts from 0), so a resume's `Last-Event-ID` names one or the other.
const FIRST_STREAM: u64 = 1 << 48;

/// The hot path of one server.
pub(crate) struct Hot {
    server: Server,
    /// Whether legacy clients get sessions (else rmcp serves them statelessly: rmcp's).
    legacy_sessions: bool,
    /// How often a waiting answer's stream sends a keep-alive comment.
    keep_alive: Option<Duration>,
    /// The `retry:` of a legacy stream's priming event, in milliseconds.
    retry_ms: u64,
    /// The peer of 2026-07-28 requests, which have no session: one served by nothing
    /// (nothing is sent to it; `call_tool_with` reads the revision from `_meta`).
    detached: OnceLock<Peer<RoleServer>>,
    /// The peers of parked legacy sessions, one per revision: served by nothing, they
    /// carry the revision (the hot path serves no client that can be asked, so what else
    /// the client declared is never read). A few revisions at most: scanned, not hashed.
    parked_peers: Mutex<Vec<(ProtocolVersion, Peer<RoleServer>)>>,
    /// `initialize` results already written, by the revision asked for (and agreed on).
    greetings: Mutex<HashMap<ProtocolVersion, Bytes>>,
    /// The log level of requests without a session: never set.
    unset: SessionLevel,
    lists: ListCache,
    /// Per tool: whether its input schema annotates `Mcp-Param-*` headers (rmcp checks
    /// those; the hot path does not take its calls).
    param_headers: Box<[bool]>,
    /// The next stream number of a legacy answer.
    streams: AtomicU64,
    /// The legacy calls still running on their own task, by session and request id: what
    /// cancels each.
    running: Mutex<HashMap<(Arc<str>, RequestId), Canceller>>,
    /// How many legacy calls run on their own task (none: a notification is not read).
    waiting: std::sync::atomic::AtomicUsize,
}

/// What cancels one running call.
type Canceller = Box<dyn Fn() + Send + Sync>;

/// One request the hot path may answer.
struct Message {
    id: RequestId,
    meta: RequestMetaObject,
    method: Asked,
}

/// The methods the hot path answers, with what it read of their params.
enum Asked {
    Call {
        name: String,
        args: Arguments,
    },
    List {
        cursor: Option<String>,
    },
    /// A legacy client's handshake: its params, and their text (kept for a restore).
    Initialize {
        params: Box<InitializeRequestParams>,
        text: Bytes,
    },
    /// `notifications/initialized` (no id).
    Initialized,
}

/// How a request is served: statelessly (2026-07-28), in a legacy session (rmcp's live
/// one, or parked), or as the `initialize` that opens a session.
enum Route {
    /// A 2026-07-28 request, speaking `version`.
    Stateless {
        version: ProtocolVersion,
    },
    Session {
        link: SessionLink,
        peer: Peer<RoleServer>,
    },
    Opening {
        state: SessionLevel,
    },
}

impl Hot {
    /// The hot path of `server` served with `settings`.
    pub(crate) fn new(server: Server, settings: &HttpSettings) -> Self {
        let config = settings.config();
        let filtered = server.filter.is_some();
        let param_headers = server
            .tools
            .iter()
            // With a filter, rmcp knows no tool's schema when it checks headers
            // (`get_tool`), so it checks none of its `Mcp-Param-*` headers either.
            .map(|tool| !filtered && annotates_headers(&tool.input_schema))
            .collect();
        Hot {
            server,
            legacy_sessions: settings.legacy_sessions,
            keep_alive: config.sse_keep_alive,
            retry_ms: u64::try_from(config.sse_retry.unwrap_or(Duration::from_secs(3)).as_millis())
                .unwrap_or(3000),
            detached: OnceLock::new(),
            parked_peers: Mutex::new(Vec::new()),
            greetings: Mutex::new(HashMap::new()),
            unset: SessionLevel::default(),
            lists: ListCache::default(),
            param_headers,
            streams: AtomicU64::new(FIRST_STREAM),
            running: Mutex::new(HashMap::new()),
            waiting: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// The answer to `request`, or the request back when the hot path does not take it
    /// (rmcp then answers it).
    pub(crate) fn answer(
        self: &Arc<Self>,
        request: Request,
    ) -> impl std::future::Future<Output = Result<Response, Request>> {
        async move {
            if request.method() != Method::POST {
                return Err(request);
            }
            let Some(body) = request.extensions().get::<BodyBytes>().map(|bytes| bytes.0.clone()) else {
                return Err(request);
            };
            if let Some(answered) = self.cancellation(&request, &body) {
                return Ok(answered);
            }
            let Some(message) = Message::read(&body, request.headers()) else { return Err(request) };
            let Some(route) = self.route(&request, &message) else { return Err(request) };
            let (parts, _) = request.into_parts();
            Ok(self.serve(route, message, parts).await)
        }
    }

    /// How `message` is served, or `None` when rmcp must serve it.
    fn route(&self, request: &Request, message: &Message) -> Option<Route> {
        let headers = request.headers();
        match &message.method {
            Asked::Initialize { params, .. } => return self.opening_route(request, params),
            Asked::Initialized => return self.initialized_route(request),
            Asked::Call { .. } | Asked::List { .. } => {}
        }
        let noted = VersionHeader::of_request(request);
        let header = noted.text(headers).ok()?;
        // The header's revision when it names a known one (the front read it).
        let header_known = match &noted {
            VersionHeader::Known(known) => Some(known.clone()),
            _ => header.and_then(crate::revision::known),
        };
        let named = meta::protocol_version(&message.meta);
        // rmcp: a header naming an unknown version is 400 unless `_meta` names one; a
        // `_meta` version needs the same header; a 2026-07-28 header needs `_meta`.
        match (&named, header) {
            (Some(named), Some(header)) if named.as_str() == header => {}
            (Some(_), _) => return None,
            (None, Some(header))
                if header_known.is_none() || header >= ProtocolVersion::V_2026_07_28.as_str() =>
            {
                return None;
            }
            (None, _) => {}
        }
        // What rmcp's `missing_required_keys` finds missing for 2026-07-28, read once
        // (each reading decodes the keys from `_meta` again).
        let complete = named.is_some() && meta::client_capabilities(&message.meta).is_some();
        let version = named.clone().or(header_known);
        let legacy = !complete && version.as_ref().is_none_or(ProtocolVersion::has_initialize);
        if legacy {
            return self.session_route(request, message);
        }
        self.stateless_route(headers, message, named?, complete)
    }

    /// The route of a 2026-07-28 request (whatever `legacy_sessions` says: that revision
    /// has no sessions).
    fn stateless_route(
        &self,
        headers: &HeaderMap,
        message: &Message,
        named: ProtocolVersion,
        complete: bool,
    ) -> Option<Route> {
        if !complete
            || named.as_str() < ProtocolVersion::V_2026_07_28.as_str()
            || !self.server.supported_protocol_versions().contains(&named)
            || meta::progress_token(&message.meta).is_some()
            || meta::entry(&message.meta, meta::LOG_LEVEL_KEY).is_some()
        {
            return None;
        }
        if named.as_str() >= ProtocolVersion::STANDARD_HEADERS.as_str() {
            // SEP-2243: rmcp refuses a request whose routing headers do not match it.
            if single_header(headers, &names::METHOD)? != message.method.name() {
                return None;
            }
            if let Asked::Call { name, .. } = &message.method {
                if single_header(headers, &names::NAME)? != name.as_str() {
                    return None;
                }
                let tool = self.server.place_of(name.as_str());
                if tool.is_some_and(|at| self.param_headers.get(at).copied().unwrap_or(true)) {
                    return None;
                }
            }
        }
        // The known revision's own value: cloned later without an allocation.
        let version = crate::revision::known(named.as_str()).unwrap_or(named);
        Some(Route::Stateless { version })
    }

    /// The route of a legacy request: its session's, when the hot path may serve it. A
    /// session rmcp serves lends its peer (a call's log messages reach its standalone
    /// stream, as from rmcp's path); a parked one has a peer of its revision that nothing
    /// serves (no stream is open to hear a log message: one would have unparked it).
    fn session_route(&self, request: &Request, message: &Message) -> Option<Route> {
        if !self.legacy_sessions {
            return None;
        }
        let link = request.extensions().get::<SessionLink>()?.clone();
        let (version, asks) = link.state.client()?.clone();
        if let Asked::Call { .. } = message.method
            && (asks || meta::progress_token(&message.meta).is_some())
        {
            return None;
        }
        let peer = match link.state.live_peer() {
            Some(peer) => peer,
            None => self.parked_peer(&version)?,
        };
        Some(Route::Session { link, peer })
    }

    /// The route of a legacy `initialize` opening a session: taken when the session guard
    /// gave the request a state for the session, its headers agree with its params, and
    /// the revision asked for is one this server speaks (else rmcp negotiates, or
    /// refuses).
    fn opening_route(&self, request: &Request, params: &InitializeRequestParams) -> Option<Route> {
        if !self.legacy_sessions || request.extensions().get::<SessionLink>().is_some() {
            return None;
        }
        let state = request.extensions().get::<NewSession>()?.0.clone();
        let asked = &params.protocol_version;
        let headers = request.headers();
        let header_agrees = match headers.get(names::PROTOCOL_VERSION) {
            None => true,
            Some(value) => value.to_str().ok() == Some(asked.as_str()),
        };
        let method_agrees = headers.get_all(names::METHOD).iter().all(|value| value == "initialize");
        let speaks = asked.has_initialize() && self.server.supported_protocol_versions().contains(asked);
        (header_agrees && method_agrees && speaks).then_some(Route::Opening { state })
    }

    /// The route of `notifications/initialized` in a parked session (rmcp's live session
    /// hears it itself).
    fn initialized_route(&self, request: &Request) -> Option<Route> {
        let link = request.extensions().get::<SessionLink>()?.clone();
        let (version, _) = link.state.client()?.clone();
        if link.state.live_peer().is_some() {
            return None;
        }
        let header = request.headers().get(names::PROTOCOL_VERSION).map(|value| value.to_str().ok());
        if header.is_some_and(|header| header != Some(version.as_str())) {
            return None;
        }
        let peer = self.parked_peer(&version)?;
        Some(Route::Session { link, peer })
    }

    /// Answers `message`, routed `route`, whose request's head is `parts`.
    fn serve(
        self: &Arc<Self>,
        route: Route,
        message: Message,
        parts: Parts,
    ) -> impl std::future::Future<Output = Response> {
        async move {
            let Message { id, meta, method } = message;
            let (peer, session, spoken) = match route {
                Route::Stateless { version } => (self.detached_peer(), None, Some(version)),
                Route::Session { link, peer } => (peer, Some(link), None),
                Route::Opening { state } => {
                    let Asked::Initialize { params, text } = method else { return accepted() };
                    // Boxed, as `list` and a call that waits: the future of a call answered
                    // at once stays small (it is moved whole into the futures around it).
                    return Box::pin(self.open(id, *params, text, state, parts)).await;
                }
            };
            if let Asked::Initialized = method {
                // A parked session's client is ready: nothing to do until rmcp is needed
                // (a restore replays it to the handler).
                return accepted();
            }
            let mut context = RequestContext::new(id.clone(), peer);
            context.meta = meta;
            context.extensions.insert(parts);
            // Read once for the call path (`revision::version_of`).
            let version = spoken.or_else(|| context.protocol_version());
            context.extensions.insert(Spoken(version.clone()));
            match method {
                Asked::List { cursor } => {
                    let answer = Box::pin(self.list(&id, cursor, context, session.is_none())).await;
                    self.complete(session.as_ref(), answer)
                }
                Asked::Initialize { .. } | Asked::Initialized => accepted(),
                Asked::Call { name, args } => {
                    let hot = Arc::clone(self);
                    let level =
                        session.as_ref().map_or_else(|| self.unset.clone(), |link| link.state.clone());
                    let cancel = context.ct.clone();
                    let call_id = id.clone();
                    let stateless = session.is_none();
                    let call = crate::boxed::boxed(|| async move {
                        let request = CallToolRequestParams::new(name);
                        let outcome = hot.server.call_tool_with(request, args, &level, context).await;
                        let outcome = outcome.map(ServerResult::from);
                        answer_of(&call_id, outcome, version.as_ref(), stateless)
                    });
                    self.drive(call, session, id, Box::new(move || cancel.cancel())).await
                }
            }
        }
    }

    /// Answers the `initialize` (request `id`, with `params` whose text is `text`) that
    /// opens a session, parked: its id, the result for the revision asked for (written
    /// once per revision), and the params, which the session guard keeps for a restore.
    async fn open(
        &self,
        id: RequestId,
        params: InitializeRequestParams,
        text: Bytes,
        state: SessionLevel,
        parts: Parts,
    ) -> Response {
        let asked = params.protocol_version.clone();
        let mut context = RequestContext::new(id.clone(), self.detached_peer());
        context.meta = params.meta.clone().unwrap_or_default();
        context.extensions.insert(parts);
        let served = Served::begin("initialize", &context).protocol(&asked);
        let greeting = served.run(async { self.greeting(&params) }).await;
        let result = match greeting {
            Ok(result) => result,
            Err(error) => {
                // `opening_route` took only a revision this server speaks: not reached.
                let text = answer_of(&id, Err(error), Some(&asked), false).into_text();
                return events::response(Body::from(sse_event(&text, None, None)));
            }
        };
        state.agreed(&asked, &params.capabilities);
        let session = rmcp::transport::common::server_side_http::session_id();
        let priming = sse_event(b"", Some(EventId { index: 0, stream: None }), Some(self.retry_ms));
        let answer = sse_event(&spliced(&id, &result), None, None);
        let mut whole = Vec::with_capacity(priming.len() + answer.len());
        whole.extend_from_slice(&priming);
        whole.extend_from_slice(&answer);
        let mut response = events::response(Body::from(whole));
        if let Ok(value) = HeaderValue::from_str(&session) {
            response.headers_mut().insert(names::SESSION_ID, value);
        }
        response.extensions_mut().insert(HotSession { params: text });
        response
    }

    /// The `initialize` result for a client asking for `params`' revision (one this
    /// server speaks, so the one agreed on), as rmcp's handshake writes it: written once
    /// per revision.
    fn greeting(&self, params: &InitializeRequestParams) -> Result<Bytes, ErrorData> {
        let asked = &params.protocol_version;
        if let Some(text) = self.greetings.lock().ok().and_then(|kept| kept.get(asked).cloned()) {
            return Ok(text);
        }
        let result = self.server.negotiate_initialize(params)?;
        let mut result = ServerResult::InitializeResult(result);
        crate::revision::shape_result(&mut result, Some(asked));
        let text = serde_json::to_vec(&result)
            .map(Bytes::from)
            .map_err(|e| ErrorData::internal_error(format!("initialize: {e}"), None))?;
        if let Ok(mut kept) = self.greetings.lock() {
            kept.insert(asked.clone(), text.clone());
        }
        Ok(text)
    }

    /// The peer of parked sessions on `version`.
    fn parked_peer(&self, version: &ProtocolVersion) -> Option<Peer<RoleServer>> {
        let mut peers = self.parked_peers.lock().ok()?;
        if let Some((_, peer)) = peers.iter().find(|(known, _)| known == version) {
            return Some(peer.clone());
        }
        let mut info = InitializeRequestParams::default();
        info.protocol_version = version.clone();
        let peer = detached_peer_of(Some(info));
        peers.push((version.clone(), peer.clone()));
        Some(peer)
    }

    /// `tools/list` (request `id`) in its server span: the page, rendered once.
    async fn list(
        &self,
        id: &RequestId,
        cursor: Option<String>,
        context: RequestContext<RoleServer>,
        stateless: bool,
    ) -> Answer {
        let version = crate::revision::version_of(&context);
        let served = Served::begin("tools/list", &context);
        let page = served
            .run(async {
                let caller = self.server.context_of(&context)?;
                self.server.page_text(&caller, cursor.as_deref(), version.as_ref(), &self.lists)
            })
            .await;
        match page {
            Ok(page) => Answer::Text(spliced(id, &page)),
            Err(error) => answer_of(id, Err(error), version.as_ref(), stateless),
        }
    }

    /// Runs `call` to its answer: at once when its first poll answers, else on the
    /// response body (2026-07-28) or on a task of its own (a legacy session's).
    fn drive(
        self: &Arc<Self>,
        call: Pin<Box<dyn Future<Output = Answer> + Send>>,
        session: Option<SessionLink>,
        id: RequestId,
        cancel: Canceller,
    ) -> impl std::future::Future<Output = Response> {
        async move {
            let mut call = call;
            let first = std::future::poll_fn(|cx| {
                Poll::Ready(match call.as_mut().poll(cx) {
                    Poll::Ready(text) => Some(text),
                    Poll::Pending => None,
                })
            })
            .await;
            if let Some(answer) = first {
                return self.complete(session.as_ref(), answer);
            }
            Box::pin(self.wait(call, session, id, cancel)).await
        }
    }

    /// [`Hot::drive`] for a `call` its first poll did not answer.
    async fn wait(
        self: &Arc<Self>,
        mut call: Pin<Box<dyn Future<Output = Answer> + Send>>,
        session: Option<SessionLink>,
        id: RequestId,
        cancel: Canceller,
    ) -> Response {
        // A 2026-07-28 call that waits sends nothing until its answer (this path carries no
        // progress or log messages) or its first keep-alive: one answered before is sent
        // as any answer at once, a JSON-RPC error with the HTTP status rmcp maps its code
        // to (a -32021 is a 400), not on a stream already answered 200.
        if session.is_none() {
            let waited = match self.keep_alive {
                Some(interval) => tokio::time::timeout(interval, call.as_mut()).await.ok(),
                None => Some(call.as_mut().await),
            };
            if let Some(answer) = waited {
                return self.complete(None, answer);
            }
        }
        match session {
            None => events::response(events::body(Driven {
                call: Some(call),
                keep_alive: KeepAlive::every(self.keep_alive),
            })),
            Some(link) => self.run_on_its_own(call, link, id, cancel),
        }
    }

    /// A legacy call that waits: it runs on a task of its own, to its end whoever
    /// listens; the response streams its priming event at once and its answer when it
    /// comes (the session guard keeps the stream for a resume, as it keeps rmcp's).
    fn run_on_its_own(
        self: &Arc<Self>,
        call: Pin<Box<dyn Future<Output = Answer> + Send>>,
        link: SessionLink,
        id: RequestId,
        cancel: Canceller,
    ) -> Response {
        let stream = self.streams.fetch_add(1, Ordering::Relaxed);
        let key = (Arc::clone(&link.id), id);
        if let Ok(mut running) = self.running.lock() {
            running.insert(key.clone(), cancel);
        }
        self.waiting.fetch_add(1, Ordering::Relaxed);
        let (answer, answered) = tokio::sync::oneshot::channel();
        let hot = Arc::clone(self);
        tokio::spawn(async move {
            let text = call.await.into_text();
            // A call the client cancelled is no longer listed: as on rmcp's path, its
            // stream ends without an answer.
            let listed = hot.running.lock().ok().and_then(|mut running| running.remove(&key)).is_some();
            hot.waiting.fetch_sub(1, Ordering::Relaxed);
            if listed {
                let _ = answer.send(sse_event(&text, Some(EventId::of(1, stream)), None));
            }
        });
        let priming = sse_event(b"", Some(EventId::of(0, stream)), Some(self.retry_ms));
        events::response(events::body(Later { first: Some(priming), rest: Some(answered) }))
    }

    /// The response to a request answered at once: `text`, the whole JSON-RPC message.
    fn complete(&self, session: Option<&SessionLink>, answer: Answer) -> Response {
        let text = match answer {
            Answer::Text(text) => text,
            Answer::Refused(status, text) => return json_response(status, text),
        };
        let Some(link) = session else { return events::response(Body::from(sse_event(&text, None, None))) };
        let stream = self.streams.fetch_add(1, Ordering::Relaxed);
        let mut whole = Vec::with_capacity(text.len() + 128);
        push_event(&mut whole, b"", Some(EventId::of(0, stream)), Some(self.retry_ms));
        let split = whole.len();
        push_event(&mut whole, &text, Some(EventId::of(1, stream)), None);
        let whole = Bytes::from(whole);
        let _ = link.answered.set(HotEvents {
            session: Arc::clone(&link.id),
            stream,
            whole: whole.clone(),
            split,
        });
        events::response(Body::from(whole))
    }

    /// A `notifications/cancelled` in a legacy session naming a call running here: the
    /// call is stopped and the notification answered (202). `None` for anything else.
    fn cancellation(&self, request: &Request, body: &Bytes) -> Option<Response> {
        if self.waiting.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let link = request.extensions().get::<SessionLink>()?;
        let notification: Notification<'_> = serde_json::from_slice(body).ok()?;
        if notification.method != "notifications/cancelled" {
            return None;
        }
        let id = notification.params?.request_id?;
        let cancel = self.running.lock().ok()?.remove(&(Arc::clone(&link.id), id))?;
        cancel();
        Some(accepted())
    }

    /// The peer of requests without a session.
    fn detached_peer(&self) -> Peer<RoleServer> {
        self.detached.get_or_init(|| detached_peer_of(None)).clone()
    }
}

/// What a request was answered with: a JSON-RPC message's text, or a refusal rmcp sends
/// as plain JSON with an error status.
enum Answer {
    Text(Bytes),
    Refused(StatusCode, Bytes),
}

impl Answer {
    /// The message's text (a stream already open is sent whatever the message says).
    fn into_text(self) -> Bytes {
        match self {
            Answer::Text(text) | Answer::Refused(_, text) => text,
        }
    }
}

impl Message {
    /// The request `body` holds, when the hot path may answer it.
    fn read(body: &Bytes, headers: &HeaderMap) -> Option<Message> {
        if !accepts_json_and_events(headers) || !is_json(headers) {
            return None;
        }
        // Checked as UTF-8 whole, once: read as text, the parser does not check each of its
        // strings again (about 80 instructions each). JSON text is UTF-8: a body that is not
        // is read as before (a string the reading skips may not be checked at all).
        let Ok(text) = std::str::from_utf8(body) else { return Message::read_in_two_passes(body) };
        match serde_json::from_str::<OnePass<'_>>(text) {
            Ok(read) if read.method != "initialize" => Message::of_one_pass(body, read),
            // An `initialize` (its params are kept as text), or a body the one pass could
            // not read: read as before, the params apart.
            _ => Message::read_in_two_passes(body),
        }
    }

    /// The message of `read`, a request other than `initialize` read in one pass from
    /// `body`: what [`Message::read_in_two_passes`] makes of the same body.
    fn of_one_pass(body: &Bytes, read: OnePass<'_>) -> Option<Message> {
        if read.jsonrpc != "2.0" {
            return None;
        }
        if read.method == "notifications/initialized" && read.id.is_none() {
            let method = Asked::Initialized;
            return Some(Message { id: RequestId::Number(0), meta: RequestMetaObject::default(), method });
        }
        let id = read.id?;
        let params = read.params.unwrap_or_default();
        if params.strange {
            return None;
        }
        let method = match read.method {
            "tools/call" if !params.cursor_given => {
                let args = match params.arguments {
                    None => Arguments::empty(),
                    Some(raw) if raw.get() == "null" => Arguments::empty(),
                    Some(raw) if raw.get().starts_with('{') => Arguments::Text(slice_of(body, raw.get())),
                    Some(_) => return None,
                };
                Asked::Call { name: params.name?.into_owned(), args }
            }
            "tools/list" if params.name.is_none() && !params.arguments_given => {
                Asked::List { cursor: params.cursor }
            }
            _ => return None,
        };
        Some(Message { id, meta: params.meta.unwrap_or_default(), method })
    }

    /// [`Message::read`] of the envelope first, then of its params as its method takes
    /// them.
    fn read_in_two_passes(body: &Bytes) -> Option<Message> {
        let envelope: Envelope<'_> = serde_json::from_slice(body).ok()?;
        if envelope.jsonrpc != "2.0" {
            return None;
        }
        if envelope.method == "notifications/initialized" && envelope.id.is_none() {
            let method = Asked::Initialized;
            return Some(Message { id: RequestId::Number(0), meta: RequestMetaObject::default(), method });
        }
        let id = envelope.id?;
        let params = envelope.params.map_or("{}", RawValue::get);
        let (meta, method) = match envelope.method {
            "initialize" => {
                let parsed: InitializeRequestParams = serde_json::from_str(params).ok()?;
                // Copied out: the session keeps them as long as it lives, and a slice of the
                // body would keep the connection's whole read buffer (8 KiB) with them.
                let text = Bytes::copy_from_slice(params.as_bytes());
                (None, Asked::Initialize { params: Box::new(parsed), text })
            }
            "tools/call" => {
                let params: CallParams<'_> = serde_json::from_str(params).ok()?;
                let args = match params.arguments {
                    None => Arguments::empty(),
                    Some(raw) if raw.get() == "null" => Arguments::empty(),
                    Some(raw) if raw.get().starts_with('{') => Arguments::Text(slice_of(body, raw.get())),
                    Some(_) => return None,
                };
                (params.meta, Asked::Call { name: params.name.into_owned(), args })
            }
            "tools/list" => {
                let params: ListParams = serde_json::from_str(params).ok()?;
                (params.meta, Asked::List { cursor: params.cursor })
            }
            _ => return None,
        };
        Some(Message { id, meta: meta.unwrap_or_default(), method })
    }
}

impl Asked {
    /// The method's name.
    fn name(&self) -> &'static str {
        match self {
            Asked::Call { .. } => "tools/call",
            Asked::List { .. } => "tools/list",
            Asked::Initialize { .. } => "initialize",
            Asked::Initialized => "notifications/initialized",
        }
    }
}

/// A JSON-RPC request, its params unread.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: &'a str,
    id: Option<RequestId>,
    #[serde(borrow)]
    method: &'a str,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
}

/// A JSON-RPC request read in one pass, its params as a call's or a list's.
#[derive(Deserialize)]
struct OnePass<'a> {
    #[serde(borrow)]
    jsonrpc: &'a str,
    id: Option<RequestId>,
    #[serde(borrow)]
    method: &'a str,
    #[serde(borrow, default)]
    params: Option<AnyParams<'a>>,
}

/// The params of a `tools/call` or a `tools/list`, read whatever the method (it may come
/// after them): each key either takes, and whether any other key came, or one twice.
#[derive(Default)]
struct AnyParams<'a> {
    name: Option<Cow<'a, str>>,
    arguments: Option<&'a RawValue>,
    arguments_given: bool,
    cursor: Option<String>,
    cursor_given: bool,
    meta: Option<RequestMetaObject>,
    /// A key neither method takes, or one of theirs twice: the hot path leaves it to rmcp.
    strange: bool,
}

impl<'de: 'a, 'a> Deserialize<'de> for AnyParams<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(AnyParamsVisitor(std::marker::PhantomData))
    }
}

/// Reads [`AnyParams`] from a JSON object.
struct AnyParamsVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> serde::de::Visitor<'de> for AnyParamsVisitor<'a> {
    type Value = AnyParams<'a>;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("the params of a tools/call or a tools/list")
    }

    fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut params = AnyParams::default();
        let mut meta_given = false;
        while let Some(key) = map.next_key_seed(BorrowedText(std::marker::PhantomData))? {
            let repeated = match key.as_ref() {
                "name" if params.name.is_none() => {
                    params.name = Some(map.next_value_seed(BorrowedText(std::marker::PhantomData))?);
                    false
                }
                "arguments" if !params.arguments_given => {
                    params.arguments_given = true;
                    params.arguments = map.next_value()?;
                    false
                }
                "cursor" if !params.cursor_given => {
                    params.cursor_given = true;
                    params.cursor = map.next_value()?;
                    false
                }
                "_meta" if !meta_given => {
                    meta_given = true;
                    params.meta = map.next_value_seed(MetaWithoutClientInfo)?;
                    false
                }
                _ => true,
            };
            if repeated {
                params.strange = true;
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(params)
    }
}

/// A request's `_meta` (`null` is none) as rmcp reads it, but for its
/// `io.modelcontextprotocol/clientInfo`, which is checked to be JSON and left out: nothing
/// on the call path reads a request's client info, and it is the costliest entry to make
/// (an object of its own, four strings and two hashed keys more).
struct MetaWithoutClientInfo;

impl<'de> serde::de::DeserializeSeed<'de> for MetaWithoutClientInfo {
    type Value = Option<RequestMetaObject>;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de> serde::de::Visitor<'de> for MetaWithoutClientInfo {
    type Value = Option<RequestMetaObject>;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a _meta object")
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }

    fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key_seed(BorrowedText(std::marker::PhantomData))? {
            if key == meta::CLIENT_INFO_KEY {
                map.next_value::<serde::de::IgnoredAny>()?;
            } else {
                object.insert(key.into_owned(), map.next_value()?);
            }
        }
        Ok(Some(RequestMetaObject(rmcp::model::MetaObject(object))))
    }
}

/// A string borrowed from the body when it has no escapes (as `#[serde(borrow)]` reads a
/// `Cow<str>` field).
struct BorrowedText<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> serde::de::DeserializeSeed<'de> for BorrowedText<'a> {
    type Value = Cow<'a, str>;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de: 'a, 'a> serde::de::Visitor<'de> for BorrowedText<'a> {
    type Value = Cow<'a, str>;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a string")
    }

    fn visit_borrowed_str<E: serde::de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(text))
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(text.to_owned()))
    }

    fn visit_string<E: serde::de::Error>(self, text: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(text))
    }
}

/// A `tools/call`'s params, when they hold nothing but what the hot path reads.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(rename = "_meta", default)]
    meta: Option<RequestMetaObject>,
}

/// A `tools/list`'s params.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListParams {
    #[serde(default)]
    cursor: Option<String>,
    #[serde(rename = "_meta", default)]
    meta: Option<RequestMetaObject>,
}

/// A notification's method and, for a cancellation, the request it names.
#[derive(Deserialize)]
struct Notification<'a> {
    #[serde(borrow)]
    method: Cow<'a, str>,
    params: Option<CancelParams>,
}

#[derive(Deserialize)]
struct CancelParams {
    #[serde(rename = "requestId")]
    request_id: Option<RequestId>,
}

/// `text`, a slice of `body`, as a slice of its bytes (no copy); a copy when it is not
/// one (it always is: the parser borrows from the body).
fn slice_of(body: &Bytes, text: &str) -> Bytes {
    let start = (text.as_ptr() as usize).wrapping_sub(body.as_ptr() as usize);
    match start.checked_add(text.len()) {
        Some(end) if start <= body.len() && end <= body.len() => body.slice(start..end),
        _ => Bytes::copy_from_slice(text.as_bytes()),
    }
}

/// The one value of header `name`; `None` when it is missing, repeated or not text.
fn single_header<'a>(headers: &'a HeaderMap, name: &HeaderName) -> Option<&'a str> {
    let mut values = headers.get_all(name).iter();
    let value = values.next()?;
    if values.next().is_some() {
        return None;
    }
    value.to_str().ok()
}

/// Whether the request accepts both JSON and SSE, read as rmcp reads `Accept` (entries
/// with a zero weight, or quoted parameters, make the hot path leave it to rmcp).
fn accepts_json_and_events(headers: &HeaderMap) -> bool {
    let mut values = headers.get_all(header::ACCEPT).iter();
    if let (Some(only), None) = (values.next(), values.next())
        && COMMON_ACCEPTS.iter().any(|common| only.as_bytes().eq_ignore_ascii_case(common.as_bytes()))
    {
        return true;
    }
    accepts_by_entries(headers.get_all(header::ACCEPT))
}

/// [`accepts_json_and_events`] for any `Accept` values: entry by entry.
fn accepts_by_entries(values: axum::http::header::GetAll<'_, HeaderValue>) -> bool {
    let (mut json, mut events) = (false, false);
    for value in values {
        let Ok(text) = value.to_str() else { return false };
        if text.contains('"') {
            return false;
        }
        for entry in text.split(',') {
            let mut parts = entry.split(';');
            let essence = parts.next().unwrap_or_default().trim();
            let weighted =
                parts.any(|parameter| parameter.trim_start().to_ascii_lowercase().starts_with("q="));
            if weighted {
                return false;
            }
            json |= essence.eq_ignore_ascii_case("application/json");
            events |= essence.eq_ignore_ascii_case(events::EVENT_STREAM);
        }
    }
    json && events
}

/// The `Accept` values clients send most, read without splitting them (what the loop of
/// [`accepts_json_and_events`] would find in them: both kinds, unweighted).
const COMMON_ACCEPTS: [&str; 2] =
    ["application/json, text/event-stream", "text/event-stream, application/json"];

/// Whether the request says its body is JSON.
fn is_json(headers: &HeaderMap) -> bool {
    headers.get(header::CONTENT_TYPE).and_then(|value| value.to_str().ok()).is_some_and(|kind| {
        let essence = kind.split_once(';').map_or(kind, |(essence, _)| essence);
        essence.trim().eq_ignore_ascii_case("application/json")
    })
}

/// Whether an input schema annotates a property with `x-mcp-header` (SEP-2243).
fn annotates_headers(schema: &serde_json::Map<String, serde_json::Value>) -> bool {
    fn walk(properties: Option<&serde_json::Value>) -> bool {
        let Some(serde_json::Value::Object(properties)) = properties else { return false };
        properties
            .values()
            .any(|property| property.get("x-mcp-header").is_some() || walk(property.get("properties")))
    }
    walk(schema.get("properties"))
}

/// The JSON-RPC message answering request `id` with `outcome`, shaped for `version` as
/// rmcp's handler shapes it. A `stateless` (2026-07-28) error rmcp sends as JSON with an
/// error status is [`Answer::Refused`] (rmcp's mapping of codes to statuses).
fn answer_of(
    id: &RequestId,
    outcome: Result<ServerResult, ErrorData>,
    version: Option<&ProtocolVersion>,
    stateless: bool,
) -> Answer {
    let modern = version.is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    let (message, status) = match outcome {
        Ok(mut result) => {
            crate::revision::shape_result(&mut result, version);
            if let ServerResult::CallToolResult(call) = &result
                && let Some(text) = written_plainly(call)
            {
                return Answer::Text(spliced(id, &text));
            }
            (ServerJsonRpcMessage::response(result, id.clone()), StatusCode::OK)
        }
        Err(mut error) => {
            if modern && error.code == ErrorCode::RESOURCE_NOT_FOUND {
                error.code = ErrorCode::INVALID_PARAMS;
            }
            let status = if stateless { status_of(error.code) } else { StatusCode::OK };
            (ServerJsonRpcMessage::error(error, Some(id.clone())), status)
        }
    };
    let text = match serde_json::to_vec(&message) {
        Ok(text) => Bytes::from(text),
        Err(error) => {
            let error = ErrorData::internal_error(format!("the answer could not be written: {error}"), None);
            serde_json::to_vec(&ServerJsonRpcMessage::error(error, Some(id.clone())))
                .map_or_else(|_| Bytes::new(), Bytes::from)
        }
    };
    if status == StatusCode::OK { Answer::Text(text) } else { Answer::Refused(status, text) }
}

/// A call's result written as serde writes it, for the results most calls give (text
/// blocks alone, no `_meta`), without serde's map machinery (it escapes every key); `None`
/// for any other result, which serde writes.
fn written_plainly(result: &CallToolResult) -> Option<Vec<u8>> {
    if result.meta.is_some() {
        return None;
    }
    let texts: usize =
        result.content.iter().map(|block| block.as_text().map_or(0, |text| text.text.len())).sum();
    let mut out = Vec::with_capacity(texts + 96);
    out.push(b'{');
    if let Some(kind) = &result.result_type {
        out.extend_from_slice(br#""resultType":"#);
        serde_json::to_writer(&mut out, kind).ok()?;
        out.push(b',');
    }
    out.extend_from_slice(br#""content":["#);
    for (at, block) in result.content.iter().enumerate() {
        let ContentBlock::Text(text) = block else { return None };
        if text.meta.is_some() || text.annotations.is_some() {
            return None;
        }
        if at > 0 {
            out.push(b',');
        }
        out.extend_from_slice(br#"{"type":"text","text":"#);
        serde_json::to_writer(&mut out, &text.text).ok()?;
        out.push(b'}');
    }
    out.push(b']');
    if let Some(structured) = &result.structured_content {
        out.extend_from_slice(br#","structuredContent":"#);
        serde_json::to_writer(&mut out, structured).ok()?;
    }
    match result.is_error {
        Some(true) => out.extend_from_slice(br#","isError":true"#),
        Some(false) => out.extend_from_slice(br#","isError":false"#),
        None => {}
    }
    out.push(b'}');
    Some(out)
}

/// The HTTP status rmcp sends a stateless request's JSON-RPC error with.
fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::HEADER_MISMATCH => StatusCode::BAD_REQUEST,
        ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

/// `{"jsonrpc":"2.0","id":ID,"result":RESULT}`, with `result` already written: what serde
/// writes for rmcp's response of the same result.
fn spliced(id: &RequestId, result: &[u8]) -> Bytes {
    const HEAD: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
    const RESULT: &[u8] = br#","result":"#;
    // Room for the whole message: a number id's twenty digits, a string id's own length
    // (escaped, it may need more: the vector then grows once).
    let id_room = match id {
        RequestId::Number(_) => 20,
        RequestId::String(text) => text.len() + 2,
    };
    let mut text = Vec::with_capacity(HEAD.len() + id_room + RESULT.len() + result.len() + 1);
    text.extend_from_slice(HEAD);
    match id {
        RequestId::Number(n) => text.extend_from_slice(itoa::Buffer::new().format(*n).as_bytes()),
        RequestId::String(_) => {
            if serde_json::to_writer(&mut text, id).is_err() {
                text.extend_from_slice(b"null");
            }
        }
    }
    text.extend_from_slice(RESULT);
    text.extend_from_slice(result);
    text.push(b'}');
    Bytes::from(text)
}

/// One SSE event as rmcp's writer frames it: `data`, then `id` and `retry` when given.
fn sse_event(data: &[u8], id: Option<EventId>, retry_ms: Option<u64>) -> Bytes {
    let mut event = Vec::with_capacity(data.len() + 64);
    push_event(&mut event, data, id, retry_ms);
    Bytes::from(event)
}

/// [`sse_event`], written at the end of `event`.
fn push_event(event: &mut Vec<u8>, data: &[u8], id: Option<EventId>, retry_ms: Option<u64>) {
    event.extend_from_slice(b"data: ");
    event.extend_from_slice(data);
    event.push(b'\n');
    if let Some(EventId { index, stream }) = id {
        event.extend_from_slice(b"id: ");
        push_number(event, index);
        if let Some(stream) = stream {
            event.push(b'/');
            push_number(event, stream);
        }
        event.push(b'\n');
    }
    if let Some(retry) = retry_ms {
        event.extend_from_slice(b"retry: ");
        push_number(event, retry);
        event.push(b'\n');
    }
    event.push(b'\n');
}

/// An SSE event's id as rmcp gives them: `index`, or `index/stream` on a request stream.
#[derive(Clone, Copy, Debug)]
struct EventId {
    index: u64,
    stream: Option<u64>,
}

impl EventId {
    /// Event `index` of request stream `stream`.
    fn of(index: u64, stream: u64) -> Self {
        EventId { index, stream: Some(stream) }
    }
}

/// `n` in decimal, at the end of `out` (itoa's two digits at a time: a stream number has
/// fifteen).
fn push_number(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// A JSON response with `status` (rmcp's for a refused 2026-07-28 request).
fn json_response(status: StatusCode, text: Bytes) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A peer served by nothing, whose client is `info`: what the handler reads of a request
/// without a session (which names its revision and capabilities in `_meta`) or of a
/// parked session (its revision).
fn detached_peer_of(info: Option<InitializeRequestParams>) -> Peer<RoleServer> {
    let (ours, theirs) = tokio::io::duplex(64);
    drop(theirs);
    let running = rmcp::service::serve_directly(Detached, ours, info);
    running.peer().clone()
}

/// 202 Accepted, as rmcp answers a notification.
fn accepted() -> Response {
    let mut accepted = Response::new(Body::empty());
    *accepted.status_mut() = StatusCode::ACCEPTED;
    accepted
}

/// The handler behind the detached peer: it never gets a request.
struct Detached;

impl ServerHandler for Detached {}

/// A 2026-07-28 call that waits, polled by its response body: dropping the body (the
/// client went away) drops the call, which cancels it.
struct Driven {
    call: Option<Pin<Box<dyn Future<Output = Answer> + Send>>>,
    keep_alive: KeepAlive,
}

impl Events for Driven {
    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        let Some(call) = self.call.as_mut() else { return Poll::Ready(None) };
        if let Poll::Ready(answer) = call.as_mut().poll(cx) {
            self.call = None;
            return Poll::Ready(Some(sse_event(&answer.into_text(), None, None)));
        }
        match self.keep_alive.poll_due(cx) {
            Some(comment) => Poll::Ready(Some(comment)),
            None => Poll::Pending,
        }
    }
}

/// A legacy call's stream: its priming event at once, its answer when its task sends it.
struct Later {
    first: Option<Bytes>,
    rest: Option<tokio::sync::oneshot::Receiver<Bytes>>,
}

impl Events for Later {
    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(first));
        }
        let Some(rest) = self.rest.as_mut() else { return Poll::Ready(None) };
        let answer = std::task::ready!(Pin::new(rest).poll(cx));
        self.rest = None;
        Poll::Ready(answer.ok())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use rmcp::model::TextContent;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn accept_must_name_both_kinds_plainly() {
        let both = [("accept", "application/json, text/event-stream"), ("content-type", "application/json")];
        assert!(accepts_json_and_events(&headers(&both)));
        assert!(!accepts_json_and_events(&headers(&[("accept", "application/json")])));
        assert!(!accepts_json_and_events(&headers(&[("accept", "application/json;q=0, text/event-stream")])));
        assert!(accepts_json_and_events(&headers(&[
            ("accept", "application/json"),
            ("accept", "text/event-stream")
        ])));
        for common in COMMON_ACCEPTS {
            assert!(accepts_by_entries(headers(&[("accept", common)]).get_all(header::ACCEPT)), "{common}");
            let mut upper = HeaderMap::new();
            upper.insert(header::ACCEPT, HeaderValue::from_str(&common.to_ascii_uppercase()).unwrap());
            assert!(accepts_json_and_events(&upper), "{common} in capitals");
        }
        assert!(is_json(&headers(&[("content-type", "application/json; charset=utf-8")])));
        assert!(!is_json(&headers(&[("content-type", "text/plain")])));
    }

    #[test]
    fn only_plain_calls_and_lists_are_read() {
        let json = headers(&[
            ("accept", "application/json, text/event-stream"),
            ("content-type", "application/json"),
        ]);
        let read = |text: &'static str| Message::read(&Bytes::from_static(text.as_bytes()), &json);
        let call = read(
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1, "b":2}}}"#,
        );
        let Some(Message { id, method: Asked::Call { name, args: Arguments::Text(args) }, .. }) = call else {
            panic!("a plain call is read")
        };
        assert_eq!((id, name.as_str(), &args[..]), (RequestId::Number(3), "add", &br#"{"a":1, "b":2}"#[..]));
        for refused in [
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":[1]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","requestState":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/list"}"#,
        ] {
            assert!(read(refused).is_none(), "{refused}");
        }
        let list = read(r#"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{"cursor":"2"}}"#);
        assert!(matches!(list, Some(Message { method: Asked::List { cursor: Some(_) }, .. })));
    }

    /// What a read message says, to compare two readings.
    fn described(message: Option<Message>) -> Option<String> {
        let Message { id, mut meta, method } = message?;
        // The one pass leaves the client info out (`MetaWithoutClientInfo`).
        meta.0.0.shift_remove(meta::CLIENT_INFO_KEY);
        let method = match method {
            Asked::Call { name, args } => format!("call {name} {:?}", args.to_value()),
            Asked::List { cursor } => format!("list {cursor:?}"),
            Asked::Initialize { params, text } => format!("initialize {params:?} {text:?}"),
            Asked::Initialized => "initialized".to_owned(),
        };
        Some(format!("{id:?} {:?} {method}", serde_json::to_string(&meta).ok()))
    }

    #[test]
    fn the_one_pass_reading_agrees_with_the_two_pass_one() {
        let json = headers(&[
            ("accept", "application/json, text/event-stream"),
            ("content-type", "application/json"),
        ]);
        const CLIENT_INFO: &str = meta::CLIENT_INFO_KEY;
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":1,"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}"#;
        let params = [
            "".to_owned(),
            r#","params":null"#.to_owned(),
            r#","params":{}"#.to_owned(),
            r#","params":[]"#.to_owned(),
            r#","params":{"name":"add"}"#.to_owned(),
            r#","params":{"name":"a\u0064d"}"#.to_owned(),
            r#","params":{"name":5}"#.to_owned(),
            r#","params":{"name":null}"#.to_owned(),
            r#","params":{"name":"add","name":"add"}"#.to_owned(),
            r#","params":{"name":"add","arguments":{"a":1,"b":2}}"#.to_owned(),
            r#","params":{"arguments":{"a":1},"name":"add"}"#.to_owned(),
            r#","params":{"name":"add","arguments":null}"#.to_owned(),
            r#","params":{"name":"add","arguments":[1]}"#.to_owned(),
            r#","params":{"name":"add","arguments":{},"arguments":{}}"#.to_owned(),
            format!(r#","params":{{"name":"add","arguments":{{"a":1}},{meta}}}"#),
            format!(r#","params":{{{meta},"name":"add"}}"#),
            format!(r#","params":{{{meta},{meta},"name":"add"}}"#),
            r#","params":{"name":"add","_meta":null}"#.to_owned(),
            r#","params":{"name":"add","_meta":5}"#.to_owned(),
            r#","params":{"name":"add","_meta":{}}"#.to_owned(),
            format!(r#","params":{{"name":"add","_meta":{{"traceparent":"00-1","{CLIENT_INFO}":{{"name":"c","version":"1"}}}}}}"#),
            format!(r#","params":{{"name":"add","_meta":{{"{CLIENT_INFO}":7,"{CLIENT_INFO}":{{}},"progressToken":"t"}}}}"#),
            r#","params":{"name":"add","_meta":{"io.modelcontextprotocol\/clientInfo":[1]}}"#.to_owned(),
            r#","params":{"name":"add","_meta":{"io.modelcontextprotocol/clientInfo":}}"#.to_owned(),
            r#","params":{"name":"add","task":{}}"#.to_owned(),
            r#","params":{"name":"add","cursor":"1"}"#.to_owned(),
            r#","params":{"cursor":"1"}"#.to_owned(),
            r#","params":{"cursor":null}"#.to_owned(),
            r#","params":{"cursor":1}"#.to_owned(),
            r#","params":{"cursor":"1","cursor":"2"}"#.to_owned(),
            format!(r#","params":{{"cursor":"1",{meta}}}"#),
            r#","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#
                .to_owned(),
        ];
        let heads = [
            r#""jsonrpc":"2.0","id":1"#,
            r#""jsonrpc":"2.0","id":"x""#,
            r#""jsonrpc":"2.0""#,
            r#""jsonrpc":"1.0","id":1"#,
            r#""id":1"#,
            r#""jsonrpc":"2.0","id":null"#,
            r#""jsonrpc":"2.0","id":1,"extra":true"#,
        ];
        let methods = ["tools/call", "tools/list", "initialize", "notifications/initialized", "ping"];
        let mut read = 0;
        for head in heads {
            for method in methods {
                for params in &params {
                    for text in [
                        format!(r#"{{{head},"method":"{method}"{params}}}"#),
                        format!(r#"{{"method":"{method}"{params},{head}}}"#),
                    ] {
                        let body = Bytes::from(text.clone());
                        let one = described(Message::read(&body, &json));
                        let two = described(Message::read_in_two_passes(&body));
                        assert_eq!(one, two, "{text}");
                        let by_one_pass = serde_json::from_slice::<OnePass<'_>>(&body)
                            .ok()
                            .filter(|read| read.method != "initialize")
                            .and_then(|read| Message::of_one_pass(&body, read));
                        read += usize::from(by_one_pass.is_some());
                    }
                }
            }
        }
        assert!(read > 40, "the one pass reads many of them itself ({read})");
        // Bodies that are not UTF-8: in a string the reading skips, in one it reads.
        for body in [
            &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"add\"},\"x\":\"\xff\"}"[..],
            &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\xffd\"}}"[..],
            &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\xff"[..],
        ] {
            let body = Bytes::copy_from_slice(body);
            let one = described(Message::read(&body, &json));
            assert_eq!(one, described(Message::read_in_two_passes(&body)), "{body:?}");
        }
    }

    #[test]
    fn plain_call_results_are_written_as_serde_writes_them() {
        let texts = ["42", "", "say \"hi\"\n\tto \\ all", "caf\u{e9} \u{1f600} \u{7}", "</script>"];
        let structured = [
            None,
            Some(serde_json::json!(42)),
            Some(serde_json::Value::Null),
            Some(serde_json::json!({"b": 1, "a": [true, "x\"y"], "c": {"d": null}})),
            Some(serde_json::json!("text \u{2028}")),
        ];
        let mut written = 0;
        for (at, text) in texts.iter().enumerate() {
            for blocks in 0..3 {
                for structured in &structured {
                    for is_error in [None, Some(true), Some(false)] {
                        for kind in [None, Some(rmcp::model::ResultType::COMPLETE)] {
                            let content =
                                (0..blocks).map(|n| ContentBlock::text(format!("{text}{n}"))).collect();
                            let mut result = CallToolResult::success(content);
                            result.structured_content = structured.clone();
                            result.is_error = is_error;
                            result.result_type = kind;
                            let id = RequestId::Number(i64::try_from(at).unwrap());
                            let ours = spliced(&id, &written_plainly(&result).expect("a plain result"));
                            let message =
                                ServerJsonRpcMessage::response(ServerResult::CallToolResult(result), id);
                            assert_eq!(
                                String::from_utf8_lossy(&ours),
                                serde_json::to_string(&message).unwrap(),
                                "text {text:?}, {blocks} blocks"
                            );
                            written += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(written, 5 * 3 * 5 * 3 * 2);
        let mut with_meta = CallToolResult::success(vec![ContentBlock::text("x")]);
        with_meta.meta = Some(rmcp::model::MetaObject::default());
        let image =
            CallToolResult::success(vec![ContentBlock::text("x"), ContentBlock::image("AA==", "image/png")]);
        let block_meta = CallToolResult::success(vec![ContentBlock::Text(
            TextContent::new("x").with_meta(Default::default()),
        )]);
        for serde_writes in [with_meta, image, block_meta] {
            assert!(written_plainly(&serde_writes).is_none(), "{serde_writes:?}");
        }
    }

    #[test]
    fn events_and_spliced_answers_are_written_as_rmcp_writes_them() {
        assert_eq!(
            &sse_event(b"", Some(EventId::of(0, 7)), Some(3000))[..],
            b"data: \nid: 0/7\nretry: 3000\n\n"
        );
        assert_eq!(&sse_event(b"{}", None, None)[..], b"data: {}\n\n");
        let id = EventId { index: 0, stream: None };
        assert_eq!(&sse_event(b"", Some(id), Some(3000))[..], b"data: \nid: 0\nretry: 3000\n\n");
        let mut long = Vec::new();
        push_number(&mut long, u64::MAX);
        assert_eq!(long, u64::MAX.to_string().as_bytes());
        let result = br#"{"tools":[]}"#;
        let value: serde_json::Value = serde_json::from_slice(result).unwrap();
        let ids = [
            RequestId::Number(5),
            RequestId::Number(0),
            RequestId::Number(-1),
            RequestId::Number(i64::MIN),
            RequestId::Number(i64::MAX),
            RequestId::String("".into()),
            RequestId::String("call-7".into()),
            RequestId::String("a \"quoted\" \\ id\n\u{1}é".into()),
        ];
        for id in ids {
            let ours = spliced(&id, result);
            let theirs =
                serde_json::to_vec(&serde_json::json!({"jsonrpc": "2.0", "id": id, "result": value}))
                    .unwrap();
            assert_eq!(String::from_utf8_lossy(&ours), String::from_utf8_lossy(&theirs), "{id:?}");
        }
    }

    #[test]
    fn header_annotations_are_found_at_any_depth() {
        let schema = |value: serde_json::Value| value.as_object().cloned().unwrap();
        assert!(!annotates_headers(&schema(serde_json::json!({"properties": {"a": {"type": "string"}}}))));
        let nested = serde_json::json!({"properties": {"a": {"properties": {"b": {"x-mcp-header": "B"}}}}});
        assert!(annotates_headers(&schema(nested)));
    }
}
