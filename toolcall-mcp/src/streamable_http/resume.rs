//! Resumable request streams of legacy sessions (protocol revisions before 2026-07-28):
//! a client whose connection broke while its request's SSE stream was open comes back
//! with a GET carrying `Last-Event-ID`, and gets the rest of that stream (its response
//! above all), whether the response was sent while it was away or comes later.
//!
//! rmcp gives every event of a request stream the id `N/S` (event `N` of the session's
//! request stream `S`, the priming event being `0/S`) and keeps a few events of a stream
//! for a resume, but only until the stream's response is sent: a response sent while the
//! client was away is dropped with its stream, and the resume then gets an empty stream.
//! So the stream is kept here instead: a task reads rmcp's response body to its end,
//! whoever is reading, into a kept stream; the client reads that, on the POST's own
//! response or on a resume. rmcp never sees a resume of a request stream (its own would
//! take the stream over); a resume of the session's standalone GET stream (an id `N`)
//! goes to rmcp as before.
//!
//! - While a client reads the stream nothing is dropped: past [`KEPT_EVENTS`] events it
//!   has not read, the task waits for it (and rmcp's session for the task, as it waits
//!   for a slow client without this).
//! - With no client reading, the last [`KEPT_EVENTS`] events are kept; older ones (progress
//!   and log notifications) are dropped, never the response, which is the last event.
//! - A stream read to its end by a client is forgotten at once: each event goes to one
//!   stream, once. One nobody read to its end is kept [`KEPT_FOR`] after its end, at most
//!   [`KEPT_PER_SESSION`] such streams per session and [`KEPT_BYTES`] in all (the oldest
//!   go first), and goes with its session.
//! - A resume supersedes the stream's previous reader (which ends), so a client whose old
//!   connection is not yet seen closed is not refused.
//! - An id of a request stream this session does not keep (delivered, expired, another
//!   session's, never given) is `410 Gone` at once: nothing is replayed, and a client
//!   is not left waiting or polling. An id that is not of the forms above is 400.
//!
//! The streams live in this process: with several replicas sharing a session store, a
//! client resumes on the replica it called (sticky sessions).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use rmcp::model::ProtocolVersion;

use super::events::{self, Events, KeepAlive};
use crate::plain::plain;
use crate::request::VersionHeader;

/// The request header naming the last event a client received.
pub(crate) const LAST_EVENT_ID: &str = "last-event-id";
/// The most events of one stream kept for a resume.
pub(crate) const KEPT_EVENTS: usize = 64;
/// How long a stream nobody read to its end is kept after its end (rmcp's own time for a
/// finished stream's events).
pub(crate) const KEPT_FOR: Duration = Duration::from_secs(60);
/// The most streams nobody read to their end kept per session.
pub(crate) const KEPT_PER_SESSION: usize = 32;
/// The most bytes of streams nobody read to their end kept in all.
pub(crate) const KEPT_BYTES: usize = 64 * 1024 * 1024;

/// What a `Last-Event-ID` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LastEvent {
    /// Event `index` of request stream `stream` (`N/S`).
    Request { index: u64, stream: u64 },
    /// An event of the session's standalone stream (`N`): rmcp's to resume.
    Standalone,
    /// Nothing this server gives.
    Malformed,
}

impl LastEvent {
    /// Reads a `Last-Event-ID` header.
    pub(crate) fn of(value: &HeaderValue) -> Self {
        value.to_str().map_or(LastEvent::Malformed, Self::parse)
    }

    /// Reads an event id.
    fn parse(text: &str) -> Self {
        match text.split_once('/') {
            Some((index, stream)) => match (index.parse(), stream.parse()) {
                (Ok(index), Ok(stream)) => LastEvent::Request { index, stream },
                _ => LastEvent::Malformed,
            },
            None if text.parse::<u64>().is_ok() => LastEvent::Standalone,
            None => LastEvent::Malformed,
        }
    }
}

/// Whether rmcp would serve a GET with these headers as a legacy resume: it accepts
/// `text/event-stream` and names no protocol version, or a known one before 2026-07-28.
/// Anything else goes to rmcp, which refuses it (406, 400, 405) before any resume.
pub(crate) fn served_here(headers: &HeaderMap) -> bool {
    let accepts = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|entry| {
            let mut parts = entry.split(';');
            let essence = parts.next().unwrap_or_default().trim();
            let refused = parts.any(|parameter| {
                parameter.split_once('=').is_some_and(|(name, value)| {
                    name.trim().eq_ignore_ascii_case("q")
                        && value.trim().parse::<f32>().is_ok_and(|q| q <= 0.0)
                })
            });
            essence.eq_ignore_ascii_case("text/event-stream") && !refused
        });
    let legacy = match headers.get(super::names::PROTOCOL_VERSION).map(HeaderValue::to_str) {
        None => true,
        Some(Ok(version)) => {
            version < ProtocolVersion::V_2026_07_28.as_str() && crate::revision::known_name(version).is_some()
        }
        Some(Err(_)) => false,
    };
    accepts && legacy
}

/// Whether a POST's `MCP-Protocol-Version` header (`version`, as the front read it from
/// `headers`) names a protocol revision with resumable streams (none named, or a value
/// that is not text, is the oldest).
pub(crate) fn resumable_revision(version: &VersionHeader, headers: &HeaderMap) -> bool {
    match version.text(headers) {
        Ok(Some(text)) => text < ProtocolVersion::V_2026_07_28.as_str(),
        Ok(None) | Err(()) => true,
    }
}

/// Whether `response` is an SSE stream.
pub(crate) fn is_stream(response: &Response) -> bool {
    response.status() == StatusCode::OK
        && response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|kind| kind.starts_with("text/event-stream"))
}

/// The kept streams of each session, by number.
type Table = HashMap<Arc<str>, HashMap<u64, Arc<Kept>>>;

/// The streams kept, by session and stream number.
#[derive(Debug)]
pub(crate) struct Streams {
    table: Mutex<Table>,
    keep_alive: Option<Duration>,
}

/// One request stream: its events as rmcp wrote them, and who reads them.
#[derive(Debug)]
struct Kept {
    state: Mutex<State>,
    /// Told when the reader took an event or left: the task filling a full stream waits
    /// on it.
    room: tokio::sync::Notify,
}

#[derive(Debug, Default)]
struct State {
    events: VecDeque<Event>,
    /// The bytes of `events`.
    bytes: usize,
    /// The stream's number in its session, once its first event named it.
    stream: Option<u64>,
    /// When rmcp's stream ended (its response was sent).
    ended: Option<Instant>,
    /// The reader now attached (0: none); readers are numbered from 1.
    reader: u64,
    readers: u64,
    /// The index of the next event the reader sends.
    next: u64,
    waker: Option<Waker>,
    /// A reader sent the whole stream: nothing is left to resume.
    delivered: bool,
}

/// One SSE event as rmcp wrote it.
#[derive(Debug)]
struct Event {
    index: u64,
    bytes: Bytes,
}

impl Kept {
    /// A stream with no events and no reader yet.
    fn new() -> Arc<Self> {
        Arc::new(Kept { state: Mutex::new(State::default()), room: tokio::sync::Notify::new() })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every change is a few plain assignments: a poisoned lock is consistent.
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Adds an event, waiting while the stream is full of events its reader has not sent.
    async fn push(&self, event: Event) {
        loop {
            let room = self.room.notified();
            {
                let mut state = self.lock();
                if state.events.len() < KEPT_EVENTS {
                    state.bytes += event.bytes.len();
                    state.events.push_back(event);
                    if let Some(waker) = state.waker.take() {
                        waker.wake();
                    }
                    return;
                }
                let next = state.next;
                let unsent = state.reader != 0 && state.events.front().is_some_and(|e| e.index >= next);
                if !unsent {
                    if let Some(old) = state.events.pop_front() {
                        state.bytes -= old.bytes.len();
                    }
                    continue;
                }
            }
            room.await;
        }
    }

    /// rmcp's stream ended.
    fn end(&self) {
        let mut state = self.lock();
        state.ended = Some(Instant::now());
        if let Some(waker) = state.waker.take() {
            waker.wake();
        }
    }
}

impl Streams {
    /// No streams yet; readers send `keep_alive` comments on a quiet stream.
    pub(crate) fn new(keep_alive: Option<Duration>) -> Self {
        Streams { table: Mutex::new(HashMap::new()), keep_alive }
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        // Every change is one insert or remove: a poisoned lock is consistent.
        self.table.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Takes over `response` (rmcp's SSE answer to a request in `session`): a task reads
    /// it to its end into a kept stream, holding `guard` until then, and the response's
    /// body reads that stream.
    pub(crate) fn keep<G: Send + 'static>(
        self: &Arc<Self>,
        session: Arc<str>,
        response: Response,
        guard: G,
    ) -> Response {
        let kept = Kept::new();
        let reader = self.attach(&kept, &session, 0);
        let (parts, body) = response.into_parts();
        tokio::spawn(Arc::clone(self).fill(session, body, kept, guard));
        Response::from_parts(parts, events::body(reader))
    }

    /// A resume in `session` after event `index` of its stream `stream`: the rest of the
    /// stream, or `410 Gone` when the session keeps no such stream.
    pub(crate) fn resume(self: &Arc<Self>, session: &Arc<str>, index: u64, stream: u64) -> Response {
        let kept = {
            let mut table = self.lock();
            self.sweep(&mut table);
            table.get(session).and_then(|streams| streams.get(&stream)).cloned()
        };
        let reader = kept.filter(|kept| !kept.lock().delivered).map(|kept| {
            let after = index.saturating_add(1);
            self.attach(&kept, session, after)
        });
        let Some(reader) = reader else {
            return plain(
                StatusCode::GONE,
                format!(
                    "Gone: this session keeps no stream with event {index}/{stream} (read to its \
                     end, ended over {} s ago, or not this session's); nothing is replayed",
                    KEPT_FOR.as_secs()
                ),
            );
        };
        events::response(events::body(reader))
    }

    /// Files a stream already sent whole (the hot path's answer, `events` from event 0 on)
    /// whose reader went away before its end, as stream `stream` of `session`, for a
    /// resume.
    pub(crate) fn keep_sent(&self, session: Arc<str>, stream: u64, events: Vec<Bytes>) {
        let kept = Kept::new();
        {
            let mut state = kept.lock();
            for (index, bytes) in (0u64..).zip(events) {
                state.bytes += bytes.len();
                state.events.push_back(Event { index, bytes });
            }
            state.stream = Some(stream);
            state.ended = Some(Instant::now());
        }
        let mut table = self.lock();
        table.entry(session).or_default().insert(stream, kept);
        self.sweep(&mut table);
    }

    /// Forgets the streams of a session that ended.
    pub(crate) fn forget_session(&self, session: &str) {
        self.lock().remove(session);
    }

    /// A new reader of `kept` from event `next` on, superseding the one reading it.
    fn attach(self: &Arc<Self>, kept: &Arc<Kept>, session: &Arc<str>, next: u64) -> Reader {
        let number = {
            let mut state = kept.lock();
            state.readers += 1;
            state.reader = state.readers;
            state.next = next;
            // The superseded reader, if waiting, wakes to find itself superseded.
            if let Some(waker) = state.waker.take() {
                waker.wake();
            }
            state.reader
        };
        kept.room.notify_one();
        Reader {
            streams: Arc::clone(self),
            session: Arc::clone(session),
            kept: Arc::clone(kept),
            number,
            keep_alive: KeepAlive::every(self.keep_alive),
        }
    }

    /// Reads rmcp's stream to its end into `kept`, filing it under its number in
    /// `session` from its first event's id.
    async fn fill<G>(self: Arc<Self>, session: Arc<str>, mut body: Body, kept: Arc<Kept>, guard: G) {
        // The start of an event whose end has not come yet. rmcp writes one event per
        // frame, so this stays empty and each event is a slice of its frame, not a copy.
        let mut pending: Vec<u8> = Vec::new();
        let mut last: Option<u64> = None;
        let mut filed = false;
        while let Some(Ok(frame)) = http_body_util::BodyExt::frame(&mut body).await {
            let Ok(data) = frame.into_data() else { continue };
            // Where an event's end may start (the end of `pending` is searched already).
            let mut from = pending.len().saturating_sub(1);
            let data = if pending.is_empty() {
                data
            } else {
                pending.extend_from_slice(&data);
                Bytes::from(std::mem::take(&mut pending))
            };
            let mut start = 0;
            while let Some(end) = data[from..].windows(2).position(|pair| pair == b"\n\n") {
                let stop = from + end + 2;
                let bytes = data.slice(start..stop);
                (start, from) = (stop, stop);
                let Some(id) = event_id(&bytes) else { continue };
                let index = match id.map(LastEvent::parse) {
                    Some(LastEvent::Request { index, stream }) => {
                        if !filed {
                            self.register(&session, stream, &kept);
                            filed = true;
                        }
                        index
                    }
                    _ => last.map_or(0, |index| index + 1),
                };
                last = Some(index);
                kept.push(Event { index, bytes }).await;
            }
            pending.extend_from_slice(&data[start..]);
        }
        kept.end();
        self.sweep(&mut self.lock());
        drop(guard);
    }

    /// Files `kept` as stream `stream` of `session`.
    fn register(&self, session: &Arc<str>, stream: u64, kept: &Arc<Kept>) {
        kept.lock().stream = Some(stream);
        self.lock().entry(Arc::clone(session)).or_default().insert(stream, Arc::clone(kept));
    }

    /// Drops `kept` (stream `stream` of `session`) from the table.
    fn remove(&self, session: &str, stream: u64, kept: &Arc<Kept>) {
        let mut table = self.lock();
        if let Some(streams) = table.get_mut(session) {
            if streams.get(&stream).is_some_and(|filed| Arc::ptr_eq(filed, kept)) {
                streams.remove(&stream);
            }
            if streams.is_empty() {
                table.remove(session);
            }
        }
    }

    /// Drops what is no longer kept: streams read to their end, streams ended past
    /// [`KEPT_FOR`] with no reader, and the oldest ended unread streams past
    /// [`KEPT_PER_SESSION`] in a session or [`KEPT_BYTES`] in all.
    fn sweep(&self, table: &mut Table) {
        let now = Instant::now();
        // (ended, bytes, session, stream) of every ended stream nobody reads.
        let mut unread: Vec<(Instant, usize, Arc<str>, u64)> = Vec::new();
        for (session, streams) in table.iter_mut() {
            let mut ours = Vec::new();
            streams.retain(|&stream, kept| {
                let state = kept.lock();
                if state.delivered {
                    return false;
                }
                match state.ended {
                    Some(at) if state.reader == 0 => {
                        let keep = now.duration_since(at) < KEPT_FOR;
                        if keep {
                            ours.push((at, state.bytes, Arc::clone(session), stream));
                        }
                        keep
                    }
                    _ => true,
                }
            });
            if ours.len() > KEPT_PER_SESSION {
                ours.sort_by_key(|entry| entry.0);
                for (_, _, _, stream) in ours.drain(..ours.len() - KEPT_PER_SESSION) {
                    streams.remove(&stream);
                }
            }
            unread.extend(ours);
        }
        let mut bytes: usize = unread.iter().map(|entry| entry.1).sum();
        if bytes > KEPT_BYTES {
            unread.sort_by_key(|entry| entry.0);
            for (_, size, session, stream) in unread {
                if bytes <= KEPT_BYTES {
                    break;
                }
                if let Some(streams) = table.get_mut(&session) {
                    streams.remove(&stream);
                }
                bytes -= size;
            }
        }
        table.retain(|_, streams| !streams.is_empty());
    }
}

/// The `id:` of an SSE event: `None` for a comment (a keep-alive), which is not kept;
/// `Some(None)` for an event without an id.
fn event_id(event: &[u8]) -> Option<Option<&str>> {
    let text = std::str::from_utf8(event).ok()?;
    let mut id = None;
    let mut field = false;
    for line in text.lines().filter(|line| !line.is_empty() && !line.starts_with(':')) {
        field = true;
        if let Some(value) = line.strip_prefix("id:") {
            id = Some(value.strip_prefix(' ').unwrap_or(value));
        }
    }
    field.then_some(id)
}

/// A response body reading a kept stream: each event once, then the end when rmcp's
/// stream ended, or as soon as a resume supersedes it.
struct Reader {
    streams: Arc<Streams>,
    session: Arc<str>,
    kept: Arc<Kept>,
    number: u64,
    keep_alive: KeepAlive,
}

impl Events for Reader {
    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        let this = self;
        let mut state = this.kept.lock();
        if state.reader != this.number {
            return Poll::Ready(None);
        }
        let next = state.next;
        if let Some(event) = state.events.iter().find(|event| event.index >= next) {
            let bytes = event.bytes.clone();
            state.next = event.index + 1;
            drop(state);
            this.kept.room.notify_one();
            this.keep_alive.sent();
            return Poll::Ready(Some(bytes));
        }
        if state.ended.is_some() {
            state.delivered = true;
            state.reader = 0;
            let stream = state.stream;
            drop(state);
            if let Some(stream) = stream {
                this.streams.remove(&this.session, stream, &this.kept);
            }
            return Poll::Ready(None);
        }
        state.waker = Some(cx.waker().clone());
        drop(state);
        match this.keep_alive.poll_due(cx) {
            Some(comment) => Poll::Ready(Some(comment)),
            None => Poll::Pending,
        }
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        let mut state = self.kept.lock();
        if state.reader == self.number {
            state.reader = 0;
            state.waker = None;
        }
        drop(state);
        // A full stream's task no longer waits for this reader.
        self.kept.room.notify_one();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::pin::Pin;

    use super::*;

    #[test]
    fn last_event_ids_are_read() {
        let of = |text: &'static str| LastEvent::of(&HeaderValue::from_static(text));
        assert_eq!(of("3/17"), LastEvent::Request { index: 3, stream: 17 });
        assert_eq!(of("0"), LastEvent::Standalone);
        for malformed in ["", "a/1", "1/", "/1", "1/2/3", "-1", "x"] {
            assert_eq!(of(malformed), LastEvent::Malformed, "{malformed}");
        }
    }

    /// A body of the given frames.
    struct Frames(VecDeque<&'static [u8]>);

    impl http_body::Body for Frames {
        type Data = Bytes;
        type Error = axum::Error;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
            Poll::Ready(self.0.pop_front().map(|frame| Ok(http_body::Frame::data(Bytes::from_static(frame)))))
        }
    }

    /// Everything `reader` sends, to its end.
    async fn read_all(reader: Reader) -> String {
        let bytes = http_body_util::BodyExt::collect(events::body(reader)).await.unwrap().to_bytes();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    #[tokio::test]
    async fn a_stream_is_kept_event_by_event_whatever_its_frames() {
        let streams = Arc::new(Streams::new(None));
        let session: Arc<str> = Arc::from("s");
        let frames: &[&'static [u8]] =
            &[b"data: \nid: 0/4\nretry: 3000\n\n", b":\n\n", b"data: {\"a\"", b":1}\nid: 1/4\n", b"\n"];
        let (kept, guard) = (Kept::new(), Arc::new(()));
        let body = Body::new(Frames(frames.iter().copied().collect()));
        Arc::clone(&streams).fill(Arc::clone(&session), body, Arc::clone(&kept), Arc::clone(&guard)).await;
        assert_eq!(Arc::strong_count(&guard), 1, "the guard is dropped at the stream's end");
        let indices: Vec<u64> = kept.lock().events.iter().map(|event| event.index).collect();
        assert_eq!(indices, [0, 1], "the keep-alive comment is not kept");
        assert_eq!(kept.lock().stream, Some(4));
        // A resume after event 0 gets event 1 and the end; then the stream is gone.
        let reader = streams.attach(&kept, &session, 1);
        assert_eq!(read_all(reader).await, "data: {\"a\":1}\nid: 1/4\n\n");
        assert!(streams.lock().is_empty(), "a stream read to its end is forgotten");
    }

    #[tokio::test]
    async fn with_nobody_reading_the_newest_events_are_kept() {
        let kept = Kept::new();
        for index in 0..(KEPT_EVENTS as u64 + 10) {
            kept.push(Event { index, bytes: Bytes::from(format!("data: {index}\n\n")) }).await;
        }
        let state = kept.lock();
        assert_eq!(state.events.len(), KEPT_EVENTS);
        assert_eq!(state.events.front().map(|event| event.index), Some(10));
        assert_eq!(state.events.back().map(|event| event.index), Some(KEPT_EVENTS as u64 + 9));
    }

    #[tokio::test]
    async fn a_reader_behind_holds_the_stream_back_and_a_resume_supersedes_it() {
        let streams = Arc::new(Streams::new(None));
        let session: Arc<str> = Arc::from("s");
        let kept = Kept::new();
        let first = streams.attach(&kept, &session, 0);
        for index in 0..KEPT_EVENTS as u64 {
            kept.push(Event { index, bytes: Bytes::from(format!("data: {index}\n\n")) }).await;
        }
        let full = tokio::time::timeout(
            Duration::from_millis(50),
            kept.push(Event { index: 64, bytes: Bytes::from_static(b"data: 64\n\n") }),
        );
        assert!(full.await.is_err(), "the stream waits for its reader");
        // A resume from event 60 on: the first reader ends, the new one reads the rest.
        let second = streams.attach(&kept, &session, 60);
        assert_eq!(read_all(first).await, "");
        kept.push(Event { index: 64, bytes: Bytes::from_static(b"data: 64\n\n") }).await;
        kept.end();
        assert_eq!(read_all(second).await, "data: 60\n\ndata: 61\n\ndata: 62\n\ndata: 63\n\ndata: 64\n\n");
    }

    #[test]
    fn ended_unread_streams_are_capped_per_session() {
        let streams = Streams::new(None);
        let mut table = streams.lock();
        let now = Instant::now();
        for stream in 0..(KEPT_PER_SESSION as u64 + 5) {
            let kept = Kept::new();
            kept.lock().ended = Some(now + Duration::from_millis(stream));
            kept.lock().stream = Some(stream);
            table.entry(Arc::from("s")).or_default().insert(stream, kept);
        }
        streams.sweep(&mut table);
        let left = table.get("s").map(HashMap::len);
        assert_eq!(left, Some(KEPT_PER_SESSION));
        assert!(table.get("s").is_some_and(|kept| !kept.contains_key(&0)), "the oldest went first");
    }

    #[test]
    fn event_ids_are_read_from_rmcp_events() {
        assert_eq!(event_id(b"data: \nid: 0/4\nretry: 3000\n\n"), Some(Some("0/4")));
        assert_eq!(event_id(b"data: {}\n\n"), Some(None));
        assert_eq!(event_id(b":\n\n"), None);
    }
}
