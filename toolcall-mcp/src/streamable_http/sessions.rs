//! Sessions of legacy-protocol clients, guarded in front of rmcp: each belongs to the
//! identity that created it, their number is capped, each has at most one standalone GET
//! stream (and one resumed standalone stream) at a time, and its request streams are
//! resumable ([`super::resume`]).
//!
//! A table maps each session id to its owner, what is running in it and when it was last
//! used. It is filled when an `initialize` response hands out a new `Mcp-Session-Id`;
//! every request carrying one is checked against it before rmcp sees it:
//!
//! - an unknown id, or one owned by another identity, is 404, exactly as rmcp answers a
//!   session that does not exist (so a foreign session id tells nothing), and the request
//!   reaches nothing of the session: no stream, no notification, no DELETE;
//! - with a shared session store, a session this replica has not seen is looked up there,
//!   where its owner was written next to its `initialize` parameters;
//! - a second standalone GET while one is open is 409;
//! - a GET with `Last-Event-ID` naming a request stream is answered here, from the
//!   streams kept for the session (rmcp never sees it), and a POST's SSE answer is kept
//!   for such a resume;
//! - past the cap, the least recently used session with nothing running is closed to
//!   make room (its client gets 404 and initializes again, as after expiry); when every
//!   session is busy the new one is closed at once and the answer is 503 with
//!   `Retry-After`. Evicting rather than refusing means a flood of `initialize` cannot
//!   lock newcomers out until the flood's sessions expire;
//! - when requests carry identities, each identity has its own cap, below the server's:
//!   past it, that identity's own least recently used idle session makes room (429 with
//!   `Retry-After` when all of its sessions are busy), so one user's flood closes only
//!   that user's sessions, never another's.
//!
//! A session starts parked ([`super::parked`]): rmcp holds nothing of it until a request
//! needs rmcp, which then restores it, and rmcp's own idle end of its session only parks
//! it again. The session itself ends after the session idle time without a request
//! (nothing running in it): its next request gets 404, and its entry, its kept streams
//! and rmcp's session, if rmcp holds it, go; also on `DELETE`, and when the table is full
//! and swept.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{
    SessionManager, SessionState, SessionStore, SessionStoreError,
};
use serde_json::Value;

use super::body::{BodyGuard, Guarded};
use super::parked::Parked;
use super::resume::{self, LastEvent, Streams};
use crate::plain::plain;
use crate::request::Identity;
use crate::talk::SessionLevel;

/// The session header.
pub(crate) const SESSION_ID: &str = "mcp-session-id";
/// The key under the stored `initialize` parameters' `_meta` naming the session's owner.
const OWNER_KEY: &str = "toolcall/owner";
/// Seconds a client refused for want of a session is asked to wait.
const RETRY_AFTER: &str = "5";

/// The table of sessions.
pub(crate) struct Sessions {
    table: Mutex<HashMap<Arc<str>, Entry>>,
    max: usize,
    /// The cap per identity, when requests carry identities.
    per_identity: Option<usize>,
    manager: Arc<LocalSessionManager>,
    store: Option<Arc<dyn SessionStore>>,
    /// The sessions' request streams, kept for a resume.
    streams: Arc<Streams>,
    /// What rmcp restores a parked session from.
    parked: Arc<Parked>,
    /// A session with nothing running ends after this long without a request.
    idle: std::time::Duration,
}

/// One session.
#[derive(Debug)]
struct Entry {
    owner: Arc<str>,
    /// The state rmcp's handler of the session holds (its log level, its peer), shared
    /// with the hot path; `None` for a session this replica did not create (restored from
    /// the store) until a request sees rmcp restore it.
    state: Option<SessionLevel>,
    /// Requests in it whose response is not over (open streams included).
    busy: usize,
    last_used: Instant,
    standalone: bool,
    resuming: bool,
    /// Held by a request that goes to rmcp while rmcp does not serve the session
    /// ([`RestoreGate`]).
    restore: RestoreGate,
}

/// What kind of stream a GET opens, of those a session has one at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stream {
    /// No `Last-Event-ID`: the session's standalone stream.
    Standalone,
    /// A `Last-Event-ID` of the standalone stream: rmcp's resume of it. (A resume of a
    /// request stream supersedes its previous reader instead.)
    Resume,
}

/// Whether a new session may stay.
#[derive(Debug, PartialEq, Eq)]
enum Admission {
    Admitted,
    /// Every session is busy: 503.
    ServerFull,
    /// Every session of this identity is busy and it holds its cap: 429.
    IdentityFull,
}

/// Whether a request may go on to its session.
enum Claim {
    Granted(Option<SessionLevel>, RestoreGate),
    NotFound,
    /// Idle past the session idle time: it ends.
    Expired,
    Conflict,
}

impl Sessions {
    /// A table of at most `max` sessions, and `per_identity` for each identity when
    /// requests carry identities (`None` when every request is the same caller), whose
    /// request streams are kept in `streams`.
    pub(crate) fn new(
        (max, per_identity): (usize, Option<usize>),
        manager: Arc<LocalSessionManager>,
        store: Option<Arc<dyn SessionStore>>,
        (streams, parked): (Arc<Streams>, Arc<Parked>),
        idle: std::time::Duration,
    ) -> Self {
        let max = max.max(1);
        // A cap at or above the server's changes nothing.
        let per_identity = per_identity.map(|cap| cap.max(1)).filter(|&cap| cap < max);
        let table = Mutex::new(HashMap::new());
        Sessions { table, max, per_identity, manager, store, streams, parked, idle }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<Arc<str>, Entry>> {
        // A panic while the table was held leaves it consistent (every change is one
        // statement), so a poisoned lock is taken over.
        self.table.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Checks `id` against `identity` and notes one more request in it.
    fn claim(&self, id: &str, identity: &Arc<str>, stream: Option<Stream>) -> Claim {
        let mut table = self.lock();
        let Some(entry) = table.get_mut(id) else { return Claim::NotFound };
        if entry.owner != *identity {
            return Claim::NotFound;
        }
        if self.expired(entry) {
            return Claim::Expired;
        }
        match stream {
            Some(Stream::Standalone) if entry.standalone => return Claim::Conflict,
            Some(Stream::Resume) if entry.resuming => return Claim::Conflict,
            Some(Stream::Standalone) => entry.standalone = true,
            Some(Stream::Resume) => entry.resuming = true,
            None => {}
        }
        entry.busy += 1;
        entry.last_used = Instant::now();
        Claim::Granted(entry.state.clone(), entry.restore.clone())
    }

    /// Notes `state` as session `id`'s, when it has none yet.
    fn adopt(&self, id: &str, state: SessionLevel) {
        if let Some(entry) = self.lock().get_mut(id) {
            entry.state.get_or_insert(state);
        }
    }

    /// The end of a claimed request.
    fn release(&self, id: &str, stream: Option<Stream>) {
        let mut table = self.lock();
        if let Some(entry) = table.get_mut(id) {
            entry.busy = entry.busy.saturating_sub(1);
            entry.last_used = Instant::now();
            match stream {
                Some(Stream::Standalone) => entry.standalone = false,
                Some(Stream::Resume) => entry.resuming = false,
                None => {}
            }
        }
    }

    fn forget(&self, id: &str) {
        self.lock().remove(id);
        self.streams.forget_session(id);
        self.parked.forget(id);
    }

    /// Whether `entry` has been idle, nothing running in it, for the session idle time.
    fn expired(&self, entry: &Entry) -> bool {
        entry.busy == 0 && entry.last_used.elapsed() >= self.idle
    }

    /// Records session `id` for `owner`, making room past the caps (the identity's, then
    /// the server's) by closing the least recently used idle session; anything but
    /// [`Admission::Admitted`] means the caller closes the new one.
    async fn admit(&self, id: Arc<str>, owner: Arc<str>, state: Option<SessionLevel>) -> Admission {
        let over_identity_cap = |table: &HashMap<Arc<str>, Entry>| {
            self.per_identity
                .is_some_and(|cap| table.values().filter(|entry| entry.owner == owner).count() >= cap)
        };
        let full = {
            let table = self.lock();
            table.len() >= self.max || over_identity_cap(&table)
        };
        if full {
            self.sweep().await;
        }
        let evicted = {
            let mut table = self.lock();
            let mut evicted = Vec::new();
            if over_identity_cap(&table) {
                match oldest_idle(&table, Some(&owner)) {
                    Some(oldest) => evicted.push(table.remove_entry(&oldest).map_or(oldest, |(id, _)| id)),
                    None => return Admission::IdentityFull,
                }
            }
            if table.len() >= self.max {
                match oldest_idle(&table, None) {
                    Some(oldest) => evicted.push(table.remove_entry(&oldest).map_or(oldest, |(id, _)| id)),
                    None => return Admission::ServerFull,
                }
            }
            let now = Instant::now();
            let restore = RestoreGate::default();
            let entry =
                Entry { owner, state, busy: 0, last_used: now, standalone: false, resuming: false, restore };
            table.insert(id, entry);
            evicted
        };
        for oldest in evicted {
            log::info!("session cap reached: closed the least recently used idle session");
            self.close(&oldest).await;
        }
        Admission::Admitted
    }

    /// Ends the sessions idle past the session idle time.
    async fn sweep(&self) {
        let mut ended = Vec::new();
        self.lock().retain(|id, entry| {
            let keep = !self.expired(entry);
            if !keep {
                ended.push(Arc::clone(id));
            }
            keep
        });
        for id in ended {
            self.close(&id).await;
        }
    }

    /// Ends session `id` in rmcp and in the store.
    async fn close(&self, id: &Arc<str>) {
        self.streams.forget_session(id);
        self.parked.forget(id);
        if let Err(error) = self.manager.close_session(id).await {
            log::warn!("closing a session: {error}");
        }
        if let Some(store) = &self.store
            && let Err(error) = store.delete(id).await
        {
            log::warn!("deleting a session from the store: {error}");
        }
    }

    /// The owner written in the store next to session `id`, if it is there.
    async fn stored_owner(&self, id: &str) -> Option<Arc<str>> {
        let state = self.store.as_ref()?.load(id).await.ok()??;
        let value = serde_json::to_value(&state).ok()?;
        value
            .pointer(&format!("/initialize_params/_meta/{}", OWNER_KEY.replace('/', "~1")))?
            .as_str()
            .map(Arc::from)
    }

    /// Writes `owner` next to the stored session `id` (rmcp stored it before answering).
    async fn store_owner(&self, id: &str, owner: &str) -> Result<(), SessionStoreError> {
        let Some(store) = &self.store else { return Ok(()) };
        let Some(state) = store.load(id).await? else { return Ok(()) };
        let Ok(mut value) = serde_json::to_value(&state) else { return Ok(()) };
        let Some(params) = value.get_mut("initialize_params").and_then(Value::as_object_mut) else {
            return Ok(());
        };
        let meta = params.entry("_meta").or_insert_with(|| Value::Object(serde_json::Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(serde_json::Map::new());
        }
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(OWNER_KEY.to_owned(), Value::String(owner.to_owned()));
        }
        match serde_json::from_value::<SessionState>(value) {
            Ok(state) => store.store(id, &state).await,
            Err(error) => {
                log::warn!("storing a session's owner: {error}");
                Ok(())
            }
        }
    }
}

/// The least recently used session with nothing running, of `owner` when given.
fn oldest_idle(table: &HashMap<Arc<str>, Entry>, owner: Option<&Arc<str>>) -> Option<Arc<str>> {
    table
        .iter()
        .filter(|(_, entry)| entry.busy == 0 && owner.is_none_or(|owner| entry.owner == *owner))
        .min_by_key(|(_, entry)| entry.last_used)
        .map(|(id, _)| Arc::clone(id))
}

/// Ends one claimed request when its response body is over.
struct Claimed {
    sessions: Arc<Sessions>,
    id: Arc<str>,
    stream: Option<Stream>,
}

/// Dropping it is all it does.
impl BodyGuard for Claimed {}

impl Drop for Claimed {
    fn drop(&mut self) {
        self.sessions.release(&self.id, self.stream);
    }
}

/// 404 as rmcp words it.
fn not_found() -> Response {
    plain(StatusCode::NOT_FOUND, "Not Found: Session not found")
}

/// The middleware.
pub(crate) async fn guard<F: std::future::Future<Output = Response>>(
    sessions: &Arc<Sessions>,
    request: Request,
    next: impl FnOnce(Request) -> F,
) -> Response {
    let identity = request.extensions().get::<Identity>().cloned().unwrap_or_default().0;
    let id = match request.headers().get(SESSION_ID).map(HeaderValue::to_str) {
        None => None,
        Some(Ok(id)) => Some(Arc::<str>::from(id)),
        Some(Err(_)) => return not_found(),
    };
    let Some(id) = id else {
        // A request that may open a session: the session rmcp opens takes this state.
        let mut request = request;
        let state = SessionLevel::default();
        request.extensions_mut().insert(NewSession(state.clone()));
        return new_session(sessions, identity, next(request).await, state).await;
    };
    let get = request.method() == Method::GET;
    // A GET with `Last-Event-ID` that rmcp would serve as a resume (anything else it refuses).
    let last_event = request
        .headers()
        .get(resume::LAST_EVENT_ID)
        .filter(|_| get && resume::served_here(request.headers()))
        .map(LastEvent::of);
    let stream = match last_event {
        _ if !get => None,
        None if request.headers().contains_key(resume::LAST_EVENT_ID) => Some(Stream::Resume),
        None => Some(Stream::Standalone),
        Some(LastEvent::Standalone) => Some(Stream::Resume),
        Some(LastEvent::Request { .. } | LastEvent::Malformed) => None,
    };
    let mut claim = sessions.claim(&id, &identity, stream);
    if matches!(claim, Claim::NotFound)
        && sessions.store.is_some()
        && sessions.stored_owner(&id).await.is_some_and(|owner| owner == identity)
    {
        // Restored from the store by rmcp on this request; it counts against the caps.
        if let refused @ (Admission::ServerFull | Admission::IdentityFull) =
            sessions.admit(Arc::clone(&id), Arc::clone(&identity), None).await
        {
            return busy(&refused);
        }
        claim = sessions.claim(&id, &identity, stream);
    }
    let (state, restore) = match claim {
        Claim::Granted(state, restore) => (state, restore),
        Claim::NotFound => return not_found(),
        Claim::Expired => {
            sessions.forget(&id);
            sessions.close(&id).await;
            return not_found();
        }
        Claim::Conflict => {
            return plain(
                StatusCode::CONFLICT,
                "Conflict: this session already has a stream of this kind open; close it first",
            );
        }
    };
    let claimed = Claimed { sessions: Arc::clone(sessions), id: Arc::clone(&id), stream };
    match last_event {
        Some(LastEvent::Request { index, stream }) => {
            // The table says the session lives (parked or in rmcp); this replica's streams
            // say whether there is anything to resume.
            return Guarded::wrap(sessions.streams.resume(&id, index, stream), claimed);
        }
        Some(LastEvent::Malformed) => {
            return plain(
                StatusCode::BAD_REQUEST,
                "Bad Request: Last-Event-ID is not an event id this server gives (N or N/S)",
            );
        }
        Some(LastEvent::Standalone) | None => {}
    }
    // A request's SSE answer is kept for a resume (protocol revisions that have one).
    let keep = request.method() == Method::POST && resume::resumable_revision(request.headers());
    let delete = request.method() == Method::DELETE;
    // The hot path serves the session with its state; a session this replica holds no
    // state of (restored from the store) takes one if rmcp restores it on this request.
    let mut request = request;
    request.extensions_mut().insert(restore);
    let fresh = match state {
        Some(state) => {
            request.extensions_mut().insert(SessionLink { id: Arc::clone(&id), state });
            None
        }
        None => {
            let fresh = SessionLevel::default();
            request.extensions_mut().insert(NewSession(fresh.clone()));
            Some(fresh)
        }
    };
    let mut response = next(request).await;
    if let Some(fresh) = fresh.filter(|fresh| fresh.live_peer().is_some()) {
        sessions.adopt(&id, fresh);
    }
    if response.status() == StatusCode::NOT_FOUND || (delete && response.status().is_success()) {
        sessions.forget(&id);
    }
    if delete && response.status() == StatusCode::ACCEPTED {
        // The session is gone, not queued to go: 204, which clients take as done (the
        // Python SDK reports rmcp's 202 as "Session termination failed").
        *response.status_mut() = StatusCode::NO_CONTENT;
        *response.body_mut() = axum::body::Body::empty();
        response.headers_mut().remove(axum::http::header::CONTENT_LENGTH);
        response.headers_mut().remove(axum::http::header::CONTENT_TYPE);
    }
    if let Some(events) = response.extensions_mut().remove::<HotEvents>() {
        // The hot path's answer, sent whole: kept for a resume only if it is not read to
        // its end.
        let unread = Unread { streams: Arc::clone(&sessions.streams), events: Some(events) };
        return Guarded::wrap(Guarded::wrap(response, unread), claimed);
    }
    if keep && resume::is_stream(&response) {
        // The claim is held while rmcp's stream runs, whoever reads it.
        return sessions.streams.keep(id, response, claimed);
    }
    Guarded::wrap(response, claimed)
}

/// A legacy session's request, as the guard passes it on to the hot path: the session
/// and the state its handler holds.
#[derive(Clone, Debug)]
pub(crate) struct SessionLink {
    pub(crate) id: Arc<str>,
    pub(crate) state: SessionLevel,
}

/// One session's turn to have rmcp restore it, on every request of a session that the
/// session guard passes on.
///
/// rmcp restores a session it does not hold by putting the session in its table, then
/// replaying the client's `initialize` to it; its session worker takes nothing but that
/// `initialize` first and ends if anything else comes first. A second request of the
/// session arriving during the replay finds the session in rmcp's table and sends its
/// own event first: the worker ends and both requests fail ("Session service
/// terminated"). So while rmcp does not serve the session, a request that goes to rmcp
/// holds this until rmcp has answered it (the restore is done by then; its body may
/// still stream), and the next one goes in after.
#[derive(Clone, Debug, Default)]
pub(crate) struct RestoreGate(Arc<tokio::sync::Mutex<()>>);

impl RestoreGate {
    /// Runs `work` (rmcp's handling of one request of the session) alone among the
    /// session's requests to rmcp, unless `served` says rmcp serves the session already.
    pub(crate) async fn pass<F: std::future::Future>(&self, served: bool, work: F) -> F::Output {
        if served {
            return work.await;
        }
        let _turn = self.0.lock().await;
        work.await
    }
}

/// A request on which rmcp may open (or restore) a session: the state that session's
/// handler takes ([`SessionLevel::creating`]).
#[derive(Clone, Debug)]
pub(crate) struct NewSession(pub(crate) SessionLevel);

/// The events of a hot answer sent whole, filed for a resume when its body is dropped
/// before its end (the client went away mid-answer).
struct Unread {
    streams: Arc<Streams>,
    events: Option<HotEvents>,
}

impl BodyGuard for Unread {
    fn ended(&mut self) {
        self.events = None;
    }
}

impl Drop for Unread {
    fn drop(&mut self) {
        if let Some(HotEvents { session, stream, events }) = self.events.take() {
            self.streams.keep_sent(session, stream, events);
        }
    }
}

/// A request without a session: when rmcp's answer opens one, it is recorded for
/// `identity`, within the cap.
async fn new_session(
    sessions: &Sessions,
    identity: Arc<str>,
    response: Response,
    state: SessionLevel,
) -> Response {
    let Some(id) = response.headers().get(SESSION_ID).and_then(|v| v.to_str().ok()).map(Arc::<str>::from)
    else {
        return response;
    };
    let admission = sessions.admit(Arc::clone(&id), Arc::clone(&identity), Some(state)).await;
    if admission != Admission::Admitted {
        log::warn!("session cap reached and every session busy ({admission:?}): refused a new one");
        sessions.close(&id).await;
        return busy(&admission);
    }
    // A session the hot path opened starts parked: its client's params are kept for the
    // day rmcp must restore it (rmcp keeps those of a session it opened itself).
    let mut response = response;
    let kept = match response.extensions_mut().remove::<HotSession>() {
        Some(HotSession { params }) => sessions.parked.keep(&id, params).await,
        None => Ok(()),
    };
    let stored = match kept {
        Ok(()) => sessions.store_owner(&id, &identity).await,
        failed => failed,
    };
    if stored.is_err() {
        // A session other replicas cannot find would be answered 404 there for its whole
        // life: none is opened (the store's outage is logged once, by its guard).
        sessions.close(&id).await;
        let mut refused = plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "Service Unavailable: the session could not be stored in the session store; retry later",
        );
        refused.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static(RETRY_AFTER));
        return refused;
    }
    response
}

/// 503 (the server's cap) or 429 (the identity's), with `Retry-After`.
fn busy(refused: &Admission) -> Response {
    let mut response = match refused {
        Admission::IdentityFull => plain(
            StatusCode::TOO_MANY_REQUESTS,
            "Too Many Requests: every session of this caller is busy; end one or retry later",
        ),
        _ => plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "Service Unavailable: too many sessions are active; retry later",
        ),
    };
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static(RETRY_AFTER));
    response
}

/// The events of a legacy answer sent whole, on its response: the session guard keeps
/// them for a resume if the body is dropped before its end.
#[derive(Clone, Debug)]
pub(crate) struct HotEvents {
    pub(crate) session: Arc<str>,
    pub(crate) stream: u64,
    pub(crate) events: Vec<Bytes>,
}

/// The `initialize` params of a session the hot path opened (their JSON text), on its
/// response: the session guard keeps them for the day rmcp must restore the session.
#[derive(Clone, Debug)]
pub(crate) struct HotSession {
    pub(crate) params: Bytes,
}
