//! SSE responses (rmcp's headers) and their bodies written event by event, and the
//! keep-alive comment of a quiet one: what the hot path's answers ([`super::hot`]) and the
//! kept streams a resume reads ([`super::resume`]) share.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;

/// The keep-alive comment sent on a quiet stream (rmcp's).
pub(crate) const KEEP_ALIVE: &[u8] = b":\n\n";

/// The events of one SSE response, produced one at a time.
pub(crate) trait Events: Send + Unpin + 'static {
    /// The next event (or comment), `Ready(None)` at the stream's end.
    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>>;
}

/// The media type of an SSE stream.
pub(crate) const EVENT_STREAM: &str = "text/event-stream";

/// An SSE response of `body` with rmcp's headers (copied from a map made once: inserted
/// one by one, each name was hashed for every response).
pub(crate) fn response(body: Body) -> Response {
    static HEADERS: std::sync::LazyLock<HeaderMap> = std::sync::LazyLock::new(|| {
        let mut headers = HeaderMap::with_capacity(3);
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(EVENT_STREAM));
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        headers.insert(super::names::X_ACCEL_BUFFERING, HeaderValue::from_static("no"));
        headers
    });
    let mut response = Response::new(body);
    *response.headers_mut() = HEADERS.clone();
    response
}

/// The response body sending `events`.
pub(crate) fn body<E: Events>(events: E) -> Body {
    Body::new(EventBody(events))
}

/// [`Events`] as an HTTP body.
struct EventBody<E>(E);

impl<E: Events> http_body::Body for EventBody<E> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        self.0.poll_event(cx).map(|event| event.map(|bytes| Ok(http_body::Frame::data(bytes))))
    }
}

/// A stream's keep-alive timer: a comment is due each period no event was sent in (never,
/// without a period).
pub(crate) struct KeepAlive(Option<(Duration, Pin<Box<tokio::time::Sleep>>)>);

impl KeepAlive {
    /// A comment every `every`, when given.
    pub(crate) fn every(every: Option<Duration>) -> Self {
        KeepAlive(every.map(|every| (every, Box::pin(tokio::time::sleep(every)))))
    }

    /// An event was sent: the next comment is due a whole period from now.
    pub(crate) fn sent(&mut self) {
        if let Some((every, sleep)) = &mut self.0 {
            sleep.as_mut().reset(tokio::time::Instant::now() + *every);
        }
    }

    /// The comment, when one is due (else `cx` is woken when it is).
    pub(crate) fn poll_due(&mut self, cx: &mut Context<'_>) -> Option<Bytes> {
        let (_, sleep) = self.0.as_mut()?;
        if sleep.as_mut().poll(cx).is_pending() {
            return None;
        }
        self.sent();
        Some(Bytes::from_static(KEEP_ALIVE))
    }
}
