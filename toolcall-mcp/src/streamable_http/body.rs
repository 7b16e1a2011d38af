//! Request and response bodies: the body read within its size, time and JSON-value
//! limits, parsed off the async workers when large; error bodies cut to 1 KiB; and the
//! body wrapper that holds a guard until a response stream ends.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use tokio::sync::SemaphorePermit;

use crate::plain::plain;
use crate::request::DisconnectTrigger;

/// Bodies larger than this are parsed by rmcp inside `block_in_place`.
pub(crate) const LARGE_BODY: usize = 64 * 1024;
/// At most this much of an error response's text is sent.
pub(crate) const MAX_ERROR_BODY: usize = 1024;

/// A plain-text response after which the connection is closed (its body was not read).
pub(crate) fn closing(status: StatusCode, text: impl Into<String>) -> Response {
    let mut response = plain(status, text);
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The body's limit and time limit, and the turns for parsing large bodies.
#[derive(Clone, Debug)]
pub(crate) struct BodyLimits {
    pub(crate) limit: usize,
    pub(crate) timeout: Duration,
    pub(crate) max_values: usize,
    pub(crate) large: Arc<tokio::sync::Semaphore>,
}

/// The request with its body read within its limits, or the refusal. A small body's
/// bytes ride along as [`BodyBytes`] too; a large one's request comes with its turn
/// (at most one per core at a time): the caller has rmcp parse it in [`ParseInPlace`],
/// off the async workers, while holding the turn.
pub(crate) fn read_body(
    limits: &BodyLimits,
    request: Request,
) -> impl std::future::Future<Output = Result<(Request, Option<LargeTurn<'_>>), Response>> {
    async move {
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .and_then(|text| text.parse::<u64>().ok());
        if let Some(length) = declared.filter(|length| *length > limits.limit as u64) {
            // The rare branches are boxed: the future of every request (moved whole into the
            // futures around it) stays small.
            return Err(Box::pin(refuse_declared_too_large(limits, request, length)).await);
        }
        let (mut parts, body) = request.into_parts();
        let read = http_body_util::BodyExt::collect(http_body_util::Limited::new(body, limits.limit));
        let bytes = match tokio::time::timeout(limits.timeout, read).await {
            Ok(Ok(collected)) => collected.to_bytes(),
            Ok(Err(error)) if error.is::<http_body_util::LengthLimitError>() => {
                return Err(closing(StatusCode::PAYLOAD_TOO_LARGE, too_large(limits)));
            }
            Ok(Err(error)) => {
                return Err(closing(
                    StatusCode::BAD_REQUEST,
                    format!("Bad Request: cannot read the body: {error}"),
                ));
            }
            Err(_) => {
                log::info!("{} {}: body not received within {:?}", parts.method, parts.uri, limits.timeout);
                return Err(closing(
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "Request Timeout: the body did not arrive within {} ms",
                        limits.timeout.as_millis()
                    ),
                ));
            }
        };
        if bytes.len() <= LARGE_BODY {
            parts.extensions.insert(BodyBytes(bytes.clone()));
            return Ok((Request::from_parts(parts, Body::from(bytes)), None));
        }
        let turn = Box::pin(large_body_turn(limits, &bytes)).await?;
        Ok((Request::from_parts(parts, Body::from(bytes)), Some(turn)))
    }
}

/// The text of a 413.
fn too_large(limits: &BodyLimits) -> String {
    format!("Payload Too Large: request body exceeds {} bytes", limits.limit)
}

/// The 413 to a request declaring a body of `length` bytes, over the limit. A client
/// already sending a body up to twice the limit gets it read and dropped, so it sees the
/// 413 rather than a reset connection.
async fn refuse_declared_too_large(limits: &BodyLimits, request: Request, length: u64) -> Response {
    let expects = request.headers().contains_key(header::EXPECT);
    if expects || length > 2 * limits.limit as u64 {
        // Before the body is polled, so no `100 Continue` was sent.
        return closing(StatusCode::PAYLOAD_TOO_LARGE, too_large(limits));
    }
    let drained =
        http_body_util::BodyExt::collect(http_body_util::Limited::new(Drain(request.into_body()), 0));
    match tokio::time::timeout(limits.timeout, drained).await {
        Ok(Ok(_)) => plain(StatusCode::PAYLOAD_TOO_LARGE, too_large(limits)),
        _ => closing(StatusCode::PAYLOAD_TOO_LARGE, too_large(limits)),
    }
}

/// A large body's turn to be parsed, once its JSON values are counted within the limit.
async fn large_body_turn<'a>(limits: &'a BodyLimits, bytes: &[u8]) -> Result<LargeTurn<'a>, Response> {
    // rmcp's parse of a 4 MiB body of small members peaks near 100 MiB; at most one per
    // core at a time (more would not finish sooner), so eight at once do not take 800.
    let turn = LargeTurn { _permit: limits.large.acquire().await.ok() };
    let values = ParseInPlace(Box::pin(async { json_values(bytes) })).await;
    if values > limits.max_values {
        log::info!("a body of {values} JSON values or more refused (the limit is {})", limits.max_values);
        return Err(plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "Payload Too Large: the body holds {values} JSON values or more; the limit is {}",
                limits.max_values
            ),
        ));
    }
    Ok(turn)
}

/// A large body's turn to be parsed, held while rmcp parses it (the semaphore is never
/// closed: the permit is always there).
pub(crate) struct LargeTurn<'a> {
    _permit: Option<SemaphorePermit<'a>>,
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
pub(crate) struct Drain(Body);

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
pub(crate) struct ParseInPlace<F>(pub(crate) Pin<Box<F>>);

impl<F: Future> Future for ParseInPlace<F> {
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

/// What a response body holds until it is finished or dropped: dropping it does the
/// guard's work (a request counted over, a session's stream released, a disconnect
/// fired); [`BodyGuard::ended`] is told first when the body reached its end.
pub(crate) trait BodyGuard: Send + Unpin + 'static {
    /// The body was sent to its end (not dropped halfway).
    fn ended(&mut self) {}
}

/// Two guards held by one body (one wrapping less): told of the end, and dropped, in
/// their order, as the inner and the outer of two nested [`Guarded`] bodies would be.
impl<A: BodyGuard, B: BodyGuard> BodyGuard for (A, B) {
    fn ended(&mut self) {
        self.0.ended();
        self.1.ended();
    }
}

impl BodyGuard for DisconnectTrigger {
    fn ended(&mut self) {
        self.disarm();
    }
}

/// A response body that holds `guard` until it is finished or dropped.
pub(crate) struct Guarded<G> {
    inner: Body,
    guard: G,
}

impl<G: BodyGuard> Guarded<G> {
    /// `response` with `guard` held by its body.
    pub(crate) fn wrap(response: Response, guard: G) -> Response {
        response.map(|inner| Body::new(Guarded { inner, guard }))
    }
}

impl<G: BodyGuard> http_body::Body for Guarded<G> {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let frame = Pin::new(&mut self.inner).poll_frame(cx);
        match &frame {
            Poll::Ready(None) => self.guard.ended(),
            // The last frame of a body that knows its end (a whole answer): hyper polls it
            // no further once it says so.
            Poll::Ready(Some(Ok(_))) if self.inner.is_end_stream() => self.guard.ended(),
            _ => {}
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// A request's body, when it was read whole, in its extensions: what checks that need
/// to look into it (the tool a call names) read without reading it again.
#[derive(Clone, Debug)]
pub(crate) struct BodyBytes(pub(crate) axum::body::Bytes);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A guard that notes it was told the body ended.
    struct Told(Arc<std::sync::atomic::AtomicBool>);

    impl BodyGuard for Told {
        fn ended(&mut self) {
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }

    #[tokio::test]
    async fn a_whole_body_is_ended_at_its_last_frame() {
        // hyper stops polling a body that says it is at its end: the guard must hear of
        // the end with the last frame, not from a poll that never comes.
        let told = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let response = Guarded::wrap(Response::new(Body::from("abc")), Told(Arc::clone(&told)));
        let mut body = response.into_body();
        // Its length is known: hyper sends it with Content-Length, not chunked.
        assert_eq!(http_body::Body::size_hint(&body).exact(), Some(3));
        let frame = http_body_util::BodyExt::frame(&mut body).await.unwrap().unwrap();
        assert_eq!(frame.into_data().unwrap(), "abc");
        assert!(http_body::Body::is_end_stream(&body));
        assert!(told.load(std::sync::atomic::Ordering::SeqCst), "told at the last frame");
    }

    /// A guard that writes down what happens to it.
    struct Noted(&'static str, Arc<std::sync::Mutex<Vec<String>>>);

    impl BodyGuard for Noted {
        fn ended(&mut self) {
            self.1.lock().unwrap().push(format!("{} ended", self.0));
        }
    }

    impl Drop for Noted {
        fn drop(&mut self) {
            self.1.lock().unwrap().push(format!("{} dropped", self.0));
        }
    }

    #[tokio::test]
    async fn a_pair_of_guards_acts_as_two_nested_bodies() {
        let nested = Arc::new(std::sync::Mutex::new(Vec::new()));
        let pair = Arc::new(std::sync::Mutex::new(Vec::new()));
        let inner = Guarded::wrap(Response::new(Body::from("abc")), Noted("inner", Arc::clone(&nested)));
        let two = Guarded::wrap(inner, Noted("outer", Arc::clone(&nested)));
        let one = Guarded::wrap(
            Response::new(Body::from("abc")),
            (Noted("inner", Arc::clone(&pair)), Noted("outer", Arc::clone(&pair))),
        );
        for response in [two, one] {
            let mut body = response.into_body();
            let frame = http_body_util::BodyExt::frame(&mut body).await.unwrap().unwrap();
            assert_eq!(frame.into_data().unwrap(), "abc");
        }
        let nested = nested.lock().unwrap().clone();
        assert_eq!(nested, ["inner ended", "outer ended", "inner dropped", "outer dropped"]);
        assert_eq!(*pair.lock().unwrap(), nested);
    }

    #[test]
    fn json_values_are_counted_outside_strings() {
        assert_eq!(json_values(b"1"), 1);
        assert_eq!(json_values(br#"{"a":1,"b":[1,2,{"c":null}]}"#), 7);
        assert_eq!(json_values(br#"{"a":"x,y[{\",\\","b":2}"#), 3);
        assert_eq!(json_values(br#"["]",1]"#), 3);
    }
}
