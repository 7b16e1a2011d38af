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
//!   where its owner was written next to its `initialize` parameters (one write per new
//!   session: no read, no second write);
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
//!
//! A session's entry in a shared store expires unless it is read (a store's `load` starts
//! its expiry again: [`RedisSessionStore`](crate::RedisSessionStore)'s `GETEX`), and no
//! request in a session this replica holds waits for the store. So the entries of the
//! sessions in use are read in the background, each at most about once per third of the
//! session idle time (the refresh interval):
//!
//! - a task started with the table's first session reads, every refresh interval, each
//!   session used since its entry was last read (or with a request still running), a
//!   few dozen reads under way at once;
//! - a request in a session whose entry was last read a refresh interval ago or more (the
//!   session was idle) has it read at once, by a task of its own that the request does
//!   not wait for.
//!
//! Two reads of an entry in use are then less than two intervals apart and the last
//! comes within an interval of the session's last request, so an entry whose expiry is
//! the session idle time lives as long as the session (at least that time after its last
//! request), and a session kept busy on one replica is still found by the others. A read
//! that fails is logged once per outage (by the store's guard, [`super::store_guard`])
//! and fails no request; a round starts no read after it, and the sessions left are read
//! at the next.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Once, Weak};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{
    SessionManager, SessionState, SessionStore, SessionStoreError,
};
use serde_json::Value;
use tokio::task::JoinSet;

use super::body::{BodyGuard, Guarded};
use super::parked::Parked;
use super::resume::{self, LastEvent, Streams};
use crate::plain::plain;
use crate::request::{Arrived, Identity, VersionHeader};
use crate::talk::SessionLevel;

/// The key under the stored `initialize` parameters' `_meta` naming the session's owner.
const OWNER_KEY: &str = "toolcall/owner";
/// Seconds a client refused for want of a session is asked to wait.
const RETRY_AFTER: &str = "5";
/// The shortest refresh interval: time between two reads that keep a stored session
/// from expiring.
const MIN_REFRESH_EVERY: Duration = Duration::from_millis(100);
/// The most reads of a refresh round under way at once: a round of many sessions over a
/// slow link takes a fraction of the refresh interval, not one round trip per session.
const REFRESH_READS: usize = 32;

/// The table of sessions.
pub(crate) struct Sessions {
    table: Mutex<Table>,
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
    idle: Duration,
    /// Starts the task that keeps the used sessions' stored entries from expiring.
    refresher: Once,
    /// The refresh interval: a third of the idle time.
    refresh_every: Duration,
}

/// The sessions by id, hashed with foldhash's fast hash (seeded per process, not built
/// to resist chosen collisions as SipHash is): the ids in the table are the servers' own
/// random ones (a client's id is only looked up, and inserted only once the session store
/// holds it for that client), so no client chooses the keys.
type Table = HashMap<Arc<str>, Entry, foldhash::fast::RandomState>;

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
    /// When its entry in the shared store was last read (its expiry started again) or
    /// written, or a read of it began.
    refreshed: Instant,
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
    /// The session's id (the table's own), its state, its restore gate, and whether its
    /// stored entry is due a read ([`Sessions::refresh_one`]).
    Granted(Arc<str>, Option<SessionLevel>, RestoreGate, bool),
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
        idle: Duration,
    ) -> Self {
        let max = max.max(1);
        // A cap at or above the server's changes nothing.
        let per_identity = per_identity.map(|cap| cap.max(1)).filter(|&cap| cap < max);
        let table = Mutex::new(Table::default());
        let (refresher, refresh_every) = (Once::new(), (idle / 3).max(MIN_REFRESH_EVERY));
        Sessions { table, max, per_identity, manager, store, streams, parked, idle, refresher, refresh_every }
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        // A panic while the table was held leaves it consistent (every change is one
        // statement), so a poisoned lock is taken over.
        self.table.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Checks `id` against `identity` and notes one more request in it.
    fn claim(&self, id: &str, identity: &str, stream: Option<Stream>, now: Instant) -> Claim {
        let mut table = self.lock();
        let Some((key, _)) = table.get_key_value(id) else { return Claim::NotFound };
        let key = Arc::clone(key);
        let Some(entry) = table.get_mut(id) else { return Claim::NotFound };
        if *entry.owner != *identity {
            return Claim::NotFound;
        }
        if self.expired(entry, now) {
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
        entry.last_used = entry.last_used.max(now);
        // An entry last read a refresh interval ago or more is read now (off the request's
        // path): it may expire before the next round.
        let due = self.store.is_some() && now.duration_since(entry.refreshed) >= self.refresh_every;
        if due {
            entry.refreshed = now;
        }
        Claim::Granted(key, entry.state.clone(), entry.restore.clone(), due)
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

    /// Whether `entry` has been idle, nothing running in it, for the session idle time at
    /// `now`.
    fn expired(&self, entry: &Entry, now: Instant) -> bool {
        entry.busy == 0 && now.saturating_duration_since(entry.last_used) >= self.idle
    }

    /// Records session `id` for `owner`, making room past the caps (the identity's, then
    /// the server's) by closing the least recently used idle session; anything but
    /// [`Admission::Admitted`] means the caller closes the new one.
    async fn admit(&self, id: Arc<str>, owner: Arc<str>, state: Option<SessionLevel>) -> Admission {
        let over_identity_cap = |table: &Table| {
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
            let entry = Entry {
                owner,
                state,
                busy: 0,
                last_used: now,
                refreshed: now,
                standalone: false,
                resuming: false,
                restore,
            };
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
        let now = Instant::now();
        self.lock().retain(|id, entry| {
            let keep = !self.expired(entry, now);
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

    /// Session `id`, not in this replica's table, as `identity`'s claim on it once rmcp
    /// restores it from the store on this request (it counts against the caps): `None`
    /// when the store does not hold it for `identity`, `Err` when the caps refuse it.
    ///
    /// The stored entry is read once: its params are kept here, as those of a session this
    /// replica opened, and rmcp restores the session from them rather than from a second
    /// read of the store.
    async fn restored(
        self: &Arc<Self>,
        id: &Arc<str>,
        identity: &Arc<str>,
        stream: Option<Stream>,
    ) -> Result<Option<Claim>, Response> {
        let Some(state) = self.stored_for(id, identity).await else { return Ok(None) };
        if let refused @ (Admission::ServerFull | Admission::IdentityFull) =
            self.admit(Arc::clone(id), Arc::clone(identity), None).await
        {
            return Err(busy(&refused));
        }
        if let Ok(params) = serde_json::to_vec(&state.initialize_params) {
            self.parked.keep(id, Bytes::from(params));
        }
        self.keep_refreshed();
        Ok(Some(self.claim(id, identity, stream, Instant::now())))
    }

    /// Session `id`'s entry in the store, when it is there with `identity` written as its
    /// owner.
    async fn stored_for(&self, id: &str, identity: &str) -> Option<SessionState> {
        let state = self.store.as_ref()?.load(id).await.ok()??;
        (owner_of(&state)?.as_str() == identity).then_some(state)
    }

    /// Writes new session `id` to the shared store, once: the client's `initialize` params
    /// kept for it (by the hot path, or by rmcp), `owner` beside them.
    async fn share(&self, id: &str, owner: &str) -> Result<(), SessionStoreError> {
        let Some(store) = &self.store else { return Ok(()) };
        let Some(state) = self.parked.kept(id) else {
            log::warn!("storing a new session: no initialize params were kept for it");
            return Err("no initialize params were kept for the new session".into());
        };
        let state =
            owned_by(state, owner).inspect_err(|error| log::warn!("storing a new session: {error}"))?;
        store.store(id, &state).await
    }

    /// Starts, once, the task that keeps the stored entries of the sessions in use from
    /// expiring (with a shared store; inside the tokio runtime serving the requests).
    fn keep_refreshed(self: &Arc<Self>) {
        if self.store.is_none() {
            return;
        }
        self.refresher.call_once(|| {
            tokio::spawn(refresh_stored(Arc::downgrade(self), self.refresh_every));
        });
    }

    /// Reads session `id`'s stored entry, which starts its expiry again, on a task of its
    /// own: nothing waits for it, and its failure is the store guard's to log.
    fn refresh_one(&self, id: &Arc<str>) {
        let Some(store) = &self.store else { return };
        let (store, id) = (Arc::clone(store), Arc::clone(id));
        tokio::spawn(async move {
            let _ = store.load(&id).await;
        });
    }

    /// One round of [`refresh_stored`]: reads from the store each session used since its
    /// entry was last read (or with a request still running), [`REFRESH_READS`] at a
    /// time. Returns how many it read.
    async fn refresh(&self) -> usize {
        let Some(store) = &self.store else { return 0 };
        let round = Instant::now();
        let due: Vec<Arc<str>> = self
            .lock()
            .iter()
            .filter(|(_, entry)| entry.busy > 0 || entry.last_used > entry.refreshed)
            .map(|(id, _)| Arc::clone(id))
            .collect();
        let (mut due, mut reads, mut read, mut failed) = (due.into_iter(), JoinSet::new(), 0, false);
        loop {
            while !failed
                && reads.len() < REFRESH_READS
                && let Some(id) = due.next()
            {
                let store = Arc::clone(store);
                reads.spawn(async move { store.load(&id).await.map(|_| id) });
            }
            match reads.join_next().await {
                None => return read,
                Some(Ok(Ok(id))) => {
                    read += 1;
                    if let Some(entry) = self.lock().get_mut(&id) {
                        entry.refreshed = round;
                    }
                }
                // The store's guard logged its outage: no more reads this round (the
                // sessions left are read at the next).
                Some(_) => failed = true,
            }
        }
    }
}

/// The owner written in session `state`'s `initialize` params' `_meta` ([`owned_by`]).
fn owner_of(state: &SessionState) -> Option<String> {
    let value = serde_json::to_value(state).ok()?;
    let pointer = format!("/initialize_params/_meta/{}", OWNER_KEY.replace('/', "~1"));
    value.pointer(&pointer)?.as_str().map(str::to_owned)
}

/// `state` with `owner` written in its `initialize` params' `_meta`, where [`owner_of`]
/// reads it.
fn owned_by(state: SessionState, owner: &str) -> Result<SessionState, SessionStoreError> {
    let mut value = serde_json::to_value(&state)?;
    let params = value
        .get_mut("initialize_params")
        .and_then(Value::as_object_mut)
        .ok_or("a session's state has no initialize_params object")?;
    let meta = params.entry("_meta").or_insert_with(|| Value::Object(serde_json::Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(serde_json::Map::new());
    }
    if let Some(meta) = meta.as_object_mut() {
        meta.insert(OWNER_KEY.to_owned(), Value::String(owner.to_owned()));
    }
    Ok(serde_json::from_value(value)?)
}

/// Every `every`, while the table lives, the round of [`Sessions::refresh`]: what keeps a
/// session in use from expiring in the shared store while no request of it reads the
/// store.
async fn refresh_stored(sessions: Weak<Sessions>, every: Duration) {
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The first tick is at once: nothing is due yet.
    ticks.tick().await;
    loop {
        ticks.tick().await;
        let Some(sessions) = sessions.upgrade() else { return };
        sessions.refresh().await;
    }
}

/// The least recently used session with nothing running, of `owner` when given.
fn oldest_idle(table: &Table, owner: Option<&Arc<str>>) -> Option<Arc<str>> {
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
pub(crate) fn guard<F: std::future::Future<Output = Response>>(
    sessions: &Arc<Sessions>,
    request: Request,
    next: impl FnOnce(Request) -> F,
) -> impl std::future::Future<Output = Response> {
    async move {
        let identity = request.extensions().get::<Identity>().map(|identity| Arc::clone(&identity.0));
        let id = match request.headers().get(super::names::SESSION_ID).map(HeaderValue::to_str) {
            None => None,
            Some(Ok(id)) => Some(id),
            Some(Err(_)) => return not_found(),
        };
        let Some(id) = id else {
            // A request that may open a session: the session rmcp opens takes this state.
            let mut request = request;
            let state = SessionLevel::default();
            request.extensions_mut().insert(NewSession(state.clone(), None));
            let response = next(request).await;
            // Once per session: boxed, as the other rare branches, so the future of a call in
            // a session (moved whole into the futures around it) stays small.
            return Box::pin(new_session(sessions, identity.unwrap_or_default(), response, state)).await;
        };
        let get = request.method() == Method::GET;
        // A GET with `Last-Event-ID` that rmcp would serve as a resume (anything else it refuses).
        let last_event = if get {
            request.headers().get(resume::LAST_EVENT_ID).filter(|_| resume::served_here(request.headers()))
        } else {
            None
        }
        .map(LastEvent::of);
        let stream = match last_event {
            _ if !get => None,
            None if request.headers().contains_key(resume::LAST_EVENT_ID) => Some(Stream::Resume),
            None => Some(Stream::Standalone),
            Some(LastEvent::Standalone) => Some(Stream::Resume),
            Some(LastEvent::Request { .. } | LastEvent::Malformed) => None,
        };
        // The request's arrival is the claim's time: read once, when its head came.
        let arrived = request.extensions().get::<Arrived>().map_or_else(Instant::now, |arrived| arrived.at);
        let caller = identity.as_deref().unwrap_or_default();
        let mut claim = sessions.claim(id, caller, stream, arrived);
        if matches!(claim, Claim::NotFound) && sessions.store.is_some() {
            let (id, identity) = (Arc::<str>::from(id), identity.clone().unwrap_or_default());
            match Box::pin(sessions.restored(&id, &identity, stream)).await {
                Ok(Some(restored)) => claim = restored,
                Ok(None) => {}
                Err(refused) => return refused,
            }
        }
        let (id, state, restore) = match claim {
            Claim::Granted(id, state, restore, due) => {
                if due {
                    sessions.refresh_one(&id);
                }
                (id, state, restore)
            }
            Claim::NotFound => return not_found(),
            Claim::Expired => {
                let id = Arc::<str>::from(id);
                sessions.forget(&id);
                Box::pin(sessions.close(&id)).await;
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
        let keep = request.method() == Method::POST
            && resume::resumable_revision(&VersionHeader::of_request(&request), request.headers());
        let delete = request.method() == Method::DELETE;
        // The hot path serves the session with its state; a session this replica holds no
        // state of (restored from the store) takes one if rmcp restores it on this request.
        let mut request = request;
        let (fresh, answered) = match state {
            Some(state) => {
                let answered = Arc::new(std::sync::OnceLock::new());
                let link =
                    SessionLink { id: Arc::clone(&id), state, restore, answered: Arc::clone(&answered) };
                request.extensions_mut().insert(link);
                (None, Some(answered))
            }
            None => {
                let fresh = SessionLevel::default();
                request.extensions_mut().insert(NewSession(fresh.clone(), Some(restore)));
                (Some(fresh), None)
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
        if let Some(events) = answered.and_then(answered_whole) {
            // The hot path's answer, sent whole: kept for a resume only if it is not read to
            // its end.
            let unread = Unread { streams: Arc::clone(&sessions.streams), events: Some(events) };
            return Guarded::wrap(response, (unread, claimed));
        }
        if keep && resume::is_stream(&response) {
            // The claim is held while rmcp's stream runs, whoever reads it.
            return sessions.streams.keep(id, response, claimed);
        }
        Guarded::wrap(response, claimed)
    }
}

/// A legacy session's request, as the guard passes it on to the hot path: the session,
/// the state its handler holds, its turn to have rmcp restore it, and where the hot path
/// leaves the events of an answer it sends whole.
#[derive(Clone, Debug)]
pub(crate) struct SessionLink {
    pub(crate) id: Arc<str>,
    pub(crate) state: SessionLevel,
    pub(crate) restore: RestoreGate,
    /// The events of the hot path's answer to this request (set once), which the guard
    /// keeps for a resume if the body is dropped before its end. (As the response's
    /// extension, they cost three allocations and two lookups a call.)
    pub(crate) answered: Arc<std::sync::OnceLock<HotEvents>>,
}

/// The events the hot path left in `answered`, when it answered the request whole.
fn answered_whole(answered: Arc<std::sync::OnceLock<HotEvents>>) -> Option<HotEvents> {
    match Arc::try_unwrap(answered) {
        Ok(answered) => answered.into_inner(),
        Err(shared) => shared.get().cloned(),
    }
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
/// handler takes ([`SessionLevel::creating`]), and, for a session of the table that rmcp
/// does not serve, its turn to have rmcp restore it.
#[derive(Clone, Debug)]
pub(crate) struct NewSession(pub(crate) SessionLevel, pub(crate) Option<RestoreGate>);

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
        if let Some(HotEvents { session, stream, whole, split }) = self.events.take() {
            let events = vec![whole.slice(..split), whole.slice(split..)];
            self.streams.keep_sent(session, stream, events);
        }
    }
}

/// A request without a session: when rmcp's answer opens one, it is recorded for
/// `identity`, within the cap.
async fn new_session(
    sessions: &Arc<Sessions>,
    identity: Arc<str>,
    response: Response,
    state: SessionLevel,
) -> Response {
    let Some(id) =
        response.headers().get(super::names::SESSION_ID).and_then(|v| v.to_str().ok()).map(Arc::<str>::from)
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
    // day rmcp must restore it (rmcp keeps those of a session it opened itself). Then the
    // session is written to the shared store, its owner included: one write.
    let mut response = response;
    if let Some(HotSession { params }) = response.extensions_mut().remove::<HotSession>() {
        sessions.parked.keep(&id, params);
    }
    sessions.keep_refreshed();
    if sessions.share(&id, &identity).await.is_err() {
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

/// The events of a legacy answer sent whole ([`SessionLink::answered`]): the session guard
/// keeps them for a resume if the body is dropped before its end.
#[derive(Clone, Debug)]
pub(crate) struct HotEvents {
    pub(crate) session: Arc<str>,
    pub(crate) stream: u64,
    /// The two events (the priming one, the answer) as sent, one after the other.
    pub(crate) whole: Bytes,
    /// Where the answer's event starts in `whole`.
    pub(crate) split: usize,
}

/// The `initialize` params of a session the hot path opened (their JSON text), on its
/// response: the session guard keeps them for the day rmcp must restore the session.
#[derive(Clone, Debug)]
pub(crate) struct HotSession {
    pub(crate) params: Bytes,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::atomic::Ordering;

    use super::super::test_store::{Answer, TestStore};
    use super::*;

    fn sessions(store: &Arc<TestStore>) -> Arc<Sessions> {
        sessions_idle(store, Duration::from_secs(60))
    }

    fn sessions_idle(store: &Arc<TestStore>, idle: Duration) -> Arc<Sessions> {
        let store = Arc::clone(store) as Arc<dyn SessionStore>;
        let parked = Arc::new(Parked::new(Some(Arc::clone(&store))));
        let streams = Arc::new(Streams::new(None));
        let manager = Arc::new(LocalSessionManager::default());
        Arc::new(Sessions::new((10, None), manager, Some(store), (streams, parked), idle))
    }

    /// Whether a claim of `id` by `owner` is granted with a read of its stored entry due.
    fn due(sessions: &Sessions, id: &str, owner: &Arc<str>) -> bool {
        match sessions.claim(id, owner, None, Instant::now()) {
            Claim::Granted(_, _, _, due) => due,
            _ => panic!("the claim of {id} was refused"),
        }
    }

    const PARAMS: &[u8] =
        br#"{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#;

    /// The hot path leaves the events of an answer it sends whole in the request's link:
    /// one whose body is dropped before its end is kept for a resume, one read to its end
    /// is not.
    #[tokio::test]
    async fn a_hot_answer_dropped_before_its_end_is_kept_for_a_resume() {
        let store = Arc::new(TestStore::default());
        let sessions = sessions(&store);
        let id: Arc<str> = Arc::from("s-1");
        let admitted = sessions.admit(Arc::clone(&id), Arc::from(""), Some(SessionLevel::default())).await;
        assert_eq!(admitted, Admission::Admitted);
        for (stream, read_to_the_end) in [(7, false), (8, true)] {
            let request = Request::builder()
                .method(Method::POST)
                .uri("/mcp")
                .header(super::super::names::SESSION_ID, "s-1")
                .body(axum::body::Body::empty())
                .unwrap();
            let response = guard(&sessions, request, |request: Request| async move {
                let link = request.extensions().get::<SessionLink>().unwrap();
                let whole = Bytes::from(format!("data: \nid: 0/{stream}\n\ndata: {{}}\nid: 1/{stream}\n\n"));
                let split = whole.len() / 2;
                let events = HotEvents { session: Arc::clone(&link.id), stream, whole: whole.clone(), split };
                link.answered.set(events).unwrap();
                Response::new(axum::body::Body::from(whole))
            })
            .await;
            let body = response.into_body();
            if read_to_the_end {
                axum::body::to_bytes(body, 1024).await.unwrap();
            } else {
                drop(body);
            }
            let resumed = sessions.streams.resume(&id, 0, stream).status();
            let expected = if read_to_the_end { StatusCode::GONE } else { StatusCode::OK };
            assert_eq!(resumed, expected, "stream {stream}, read to its end: {read_to_the_end}");
        }
    }

    #[tokio::test]
    async fn a_new_session_is_one_write_with_its_owner_and_no_read() {
        let store = Arc::new(TestStore::default());
        let sessions = sessions(&store);
        let id: Arc<str> = Arc::from("s-1");
        sessions.parked.keep(&id, Bytes::from_static(PARAMS));
        sessions.share(&id, "ada").await.unwrap();
        assert_eq!((store.reads.load(Ordering::SeqCst), store.writes.load(Ordering::SeqCst)), (0, 1));
        let written = serde_json::to_value(store.last.lock().unwrap().clone().unwrap()).unwrap();
        assert_eq!(written["initialize_params"]["_meta"][OWNER_KEY], "ada");
        assert_eq!(written["initialize_params"]["clientInfo"]["name"], "c");
        // Nothing kept for it: no write, an error that says so.
        let error = sessions.share("s-2", "ada").await.err().map(|e| e.to_string());
        assert_eq!(error.as_deref(), Some("no initialize params were kept for the new session"));
        assert_eq!(store.writes.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_round_reads_each_session_used_since_the_last_once_and_busy_ones_every_time() {
        let store = Arc::new(TestStore::default());
        let sessions = sessions(&store);
        let owner: Arc<str> = Arc::from("ada");
        for id in ["used", "idle", "busy"] {
            assert_eq!(sessions.admit(Arc::from(id), Arc::clone(&owner), None).await, Admission::Admitted);
        }
        assert_eq!(sessions.refresh().await, 0, "nothing used since it was written");
        for _ in 0..50 {
            assert!(!due(&sessions, "used", &owner), "written a moment ago: no read due");
            sessions.release("used", None);
        }
        assert!(!due(&sessions, "busy", &owner));
        assert_eq!(
            sessions.refresh().await,
            2,
            "50 requests in `used`, one running in `busy`: one read each"
        );
        assert_eq!(sessions.refresh().await, 1, "`busy` still runs");
        sessions.release("busy", None);
        assert_eq!(sessions.refresh().await, 1, "its end is a use");
        assert_eq!(sessions.refresh().await, 0);
        assert_eq!(store.reads.load(Ordering::SeqCst), 4);
    }

    #[tokio::test]
    async fn a_request_after_a_refresh_interval_without_a_read_has_its_entry_read_once() {
        let store = Arc::new(TestStore::default());
        // A refresh interval of 100 ms.
        let sessions = sessions_idle(&store, Duration::from_millis(300));
        let owner: Arc<str> = Arc::from("ada");
        assert_eq!(sessions.admit(Arc::from("s"), Arc::clone(&owner), None).await, Admission::Admitted);
        assert!(!due(&sessions, "s", &owner), "written at its admission");
        sessions.release("s", None);
        tokio::time::sleep(Duration::from_millis(120)).await;
        assert!(due(&sessions, "s", &owner), "a refresh interval later: due");
        assert!(!due(&sessions, "s", &owner), "the read is under way: not due twice");
        sessions.release("s", None);
        sessions.release("s", None);
        assert_eq!(sessions.refresh().await, 1, "used since the read began: read again at the round");
    }

    #[tokio::test]
    async fn a_round_over_a_store_that_fails_stops_and_its_sessions_stay_due() {
        let down = Arc::new(TestStore::answering(Answer::Fails, Answer::Works));
        let store = Arc::clone(&down) as Arc<dyn SessionStore>;
        let parked = Arc::new(Parked::new(Some(Arc::clone(&store))));
        let (streams, manager) = (Arc::new(Streams::new(None)), Arc::new(LocalSessionManager::default()));
        let idle = Duration::from_secs(60);
        let sessions = Sessions::new((200, None), manager, Some(store), (streams, parked), idle);
        let owner: Arc<str> = Arc::from("ada");
        for n in 0..100 {
            let id: Arc<str> = Arc::from(format!("s-{n}"));
            assert_eq!(sessions.admit(Arc::clone(&id), Arc::clone(&owner), None).await, Admission::Admitted);
            assert!(!due(&sessions, &id, &owner));
            sessions.release(&id, None);
        }
        assert_eq!(sessions.refresh().await, 0);
        let asked = down.reads.load(Ordering::SeqCst);
        assert!((1..=REFRESH_READS).contains(&asked), "no read begun after the first failure: {asked}");
        assert_eq!(sessions.refresh().await, 0);
        assert!(down.reads.load(Ordering::SeqCst) > asked, "not read, so still due at the next round");
    }
}
