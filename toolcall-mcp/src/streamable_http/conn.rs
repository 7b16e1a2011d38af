//! The connections: an accept loop over the listener, hyper's HTTP/1 server on each
//! connection, and a watchdog per connection enforcing the time limits from the first
//! byte, before any request reaches authentication.
//!
//! - **Request head**: complete within the head time limit, counted from the connection's
//!   opening or, on a kept-alive connection, from the first byte after a response.
//! - **Idle keep-alive**: a connection with no request in progress closes after the idle
//!   time limit.
//! - **Stalled reader**: a response that cannot be written for the idle time limit (the
//!   client stopped reading) closes its connection.
//! - The body's time limit is the router's (`read_body`), which answers 408.
//!
//! At most `max_connections` connections are open at once; a connection past it gets a
//! 503 with `Retry-After` and is closed without being read, so a flood of idle sockets
//! cannot take the file descriptors the real clients need. `accept` failing (out of file
//! descriptors) is logged and retried after a pause instead of spinning.
//!
//! Draining ([`Phase`]): once announced, every response carries `Connection: close`
//! (hyper closes the connection after it, and the client knows not to reuse it); once
//! stopping, the accept loop takes the connections the kernel has already completed
//! (closing the listener would reset them) and closes the listener, so new ones are
//! refused; an idle connection closes at once, a busy one after its response, and one
//! whose request is coming (a new connection) after that request's response.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::http::{HeaderValue, header};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::body::{BodyGuard, Guarded};
use super::front::Front;
use super::health::{Health, Hold, Phase, Released};
use crate::error::ServeError;
use crate::request::Arrived;
use crate::settings::HttpSettings;

/// The answer to a connection past the cap.
const REFUSED: &[u8] =
    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";

/// The time limits of one connection.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub(crate) header: Duration,
    pub(crate) idle: Duration,
}

impl Limits {
    pub(crate) fn of(settings: &HttpSettings) -> Self {
        Limits { header: settings.header_timeout, idle: settings.idle_timeout }
    }

    /// How often the watchdog looks: a quarter of the shortest limit, between 10 ms and 1 s.
    fn tick(&self) -> Duration {
        (self.header.min(self.idle) / 4).clamp(Duration::from_millis(10), Duration::from_secs(1))
    }
}

/// Serves `front` on `listener` until the process ends, or until `health` is stopping:
/// then it takes the connections already waiting, closes the listener (new connections
/// are refused) and returns; the connections it opened go on until their request is
/// answered.
pub(crate) async fn serve(
    listener: TcpListener,
    front: Front,
    limits: Limits,
    max_connections: usize,
    health: Arc<Health>,
) -> Result<(), ServeError> {
    let slots = Arc::new(Semaphore::new(max_connections.clamp(1, Semaphore::MAX_PERMITS)));
    let stopping = health.stopping();
    tokio::pin!(stopping);
    let open = |stream: TcpStream| {
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            log::warn!("{max_connections} connections are open, the limit: refused one with 503");
            // Best effort, without waiting on a client that does not read.
            let _ = stream.try_write(REFUSED);
            return;
        };
        let _ = stream.set_nodelay(true);
        // Busy from now: a drain waits for the request this connection is about to send.
        let hold = health.hold();
        tokio::spawn(connection(stream, front.clone(), limits, (slot, hold), Arc::clone(&health)));
    };
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut stopping => break,
        };
        match accepted {
            Ok((stream, _)) => open(stream),
            Err(error) => {
                // EMFILE and the like: wait for connections to close rather than spin.
                log::warn!("accepting a connection: {error}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
    // The kernel completed these connections' handshakes: closing the listener would
    // reset them after their client may have sent a request (a balancer would not retry
    // it). Take them with accept(2) itself until it says none is left (tokio's readiness
    // may not know of the last ones yet), then close the listener, a few microseconds
    // later: from then on a connection is refused.
    match listener.into_std() {
        Ok(listener) => {
            while let Ok((stream, _)) = listener.accept() {
                match stream.set_nonblocking(true).and_then(|()| TcpStream::from_std(stream)) {
                    Ok(stream) => open(stream),
                    Err(error) => log::warn!("taking a waiting connection: {error}"),
                }
            }
        }
        Err(error) => log::warn!("taking the waiting connections: {error}"),
    }
    Ok(())
}

/// What the watchdog knows of one connection, in milliseconds since it opened (0: none).
#[derive(Debug)]
struct State {
    opened: Instant,
    /// Requests whose response is not over.
    in_flight: AtomicUsize,
    /// Whether a request was ever started on this connection.
    served: AtomicUsize,
    /// When the connection last became free of requests.
    idle_since: AtomicU64,
    /// The first byte read while no request was in progress: a head is coming.
    head_since: AtomicU64,
    /// When a write started waiting on the client.
    write_blocked_since: AtomicU64,
}

impl State {
    fn new() -> Self {
        State {
            opened: Instant::now(),
            in_flight: AtomicUsize::new(0),
            served: AtomicUsize::new(0),
            idle_since: AtomicU64::new(0),
            head_since: AtomicU64::new(0),
            write_blocked_since: AtomicU64::new(0),
        }
    }

    /// Milliseconds since the connection opened, at least 1 (0 means "not set").
    fn now(&self) -> u64 {
        u64::try_from(self.opened.elapsed().as_millis()).unwrap_or(u64::MAX).max(1)
    }

    fn request_started(&self) {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        self.served.store(1, Ordering::SeqCst);
        self.head_since.store(0, Ordering::SeqCst);
    }

    fn request_over(&self) {
        if self.in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.idle_since.store(self.now(), Ordering::SeqCst);
        }
    }

    /// Whether hyper's graceful shutdown may end the connection once the server stops: it
    /// is answering a request (it closes after the response), or idle after one (it closes
    /// now). Not when a request is coming, its first or the next (hyper would close a
    /// connection it has read nothing from, though its client may have sent the request
    /// already): that request's response says `Connection: close`.
    fn may_shut_down(&self) -> bool {
        self.in_flight.load(Ordering::SeqCst) > 0
            || (self.served.load(Ordering::SeqCst) > 0 && self.head_since.load(Ordering::SeqCst) == 0)
    }

    /// Why the connection must close now, if it must.
    fn expired(&self, limits: &Limits) -> Option<&'static str> {
        let now = self.now();
        let past = |since: u64, limit: Duration| {
            since != 0 && Duration::from_millis(now.saturating_sub(since)) >= limit
        };
        let blocked = self.write_blocked_since.load(Ordering::SeqCst);
        if past(blocked, limits.idle) {
            return Some("a response waited on the client for the idle time limit");
        }
        if self.in_flight.load(Ordering::SeqCst) > 0 {
            return None;
        }
        let head = self.head_since.load(Ordering::SeqCst);
        if head != 0 {
            return past(head, limits.header).then_some("the request head did not arrive in time");
        }
        if self.served.load(Ordering::SeqCst) == 0 {
            // A new connection owes its first head within the head limit.
            return past(1, limits.header).then_some("no request head in time after connecting");
        }
        past(self.idle_since.load(Ordering::SeqCst), limits.idle).then_some("idle keep-alive")
    }
}

/// Serves one connection until it ends or its watchdog ends it, holding its slot and
/// counted busy (but while it answers a GET); while the server drains, each response
/// closes it, and once it stops, it is shut down gracefully.
async fn connection(
    stream: TcpStream,
    front: Front,
    limits: Limits,
    _held: (OwnedSemaphorePermit, Hold),
    health: Arc<Health>,
) {
    let peer = stream.peer_addr().ok();
    let state = Arc::new(State::new());
    let io = TokioIo::new(Watched { inner: stream, state: Arc::clone(&state) });
    let counted = Arc::clone(&state);
    let stopping = health.stopping();
    let service = hyper::service::service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
        counted.request_started();
        // A GET is a stream that may last for hours: a drain does not wait for it.
        let released = (request.method() == hyper::Method::GET).then(|| health.release());
        let over = RequestOver { state: Arc::clone(&counted), _released: released };
        request.extensions_mut().insert(Arrived::new(Instant::now(), peer));
        let call = front.respond(request);
        let health = Arc::clone(&health);
        async move {
            let mut response = call.await?;
            if health.phase() != Phase::Serving {
                // Draining: the client (a balancer) must not send another request here.
                response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            Ok::<_, std::convert::Infallible>(Guarded::wrap(response, over))
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    // The head limit is the watchdog's: hyper's counts the idle keep-alive time too.
    builder.timer(TokioTimer::new()).header_read_timeout(None).keep_alive(true);
    let served = builder.serve_connection(io, service);
    tokio::pin!(served);
    let mut tick = tokio::time::interval(limits.tick());
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The connection's task wakes for each request, twice or more; the watchdog's timer
    // and the server's stop are polled only when they woke it.
    let mut tick = WokenOnly::new(tick);
    let mut stopping = Some(WokenOnly::new(Box::pin(stopping)));
    loop {
        let event = std::future::poll_fn(|cx| {
            if let Poll::Ready(result) = served.as_mut().poll(cx) {
                return Poll::Ready(Event::Served(result));
            }
            if tick.poll_woken(cx, |tick, cx| tick.poll_tick(cx)).is_ready() {
                return Poll::Ready(Event::Tick);
            }
            if let Some(stop) = &mut stopping
                && stop.poll_woken(cx, |stop, cx| stop.as_mut().poll(cx)).is_ready()
            {
                return Poll::Ready(Event::Stopping);
            }
            Poll::Pending
        })
        .await;
        match event {
            Event::Served(result) => {
                if let Err(error) = result {
                    log::debug!("connection ended: {error}");
                }
                break;
            }
            Event::Tick => {
                if let Some(why) = state.expired(&limits) {
                    log::debug!("closing a connection: {why}");
                    break;
                }
            }
            Event::Stopping => {
                stopping = None;
                if state.may_shut_down() {
                    served.as_mut().graceful_shutdown();
                }
            }
        }
    }
    // `_held` is dropped last (parameters after locals): after `served`, whose GET answer
    // may hold a `Released`.
}

/// What woke a connection's loop.
enum Event<E> {
    /// hyper is done with the connection.
    Served(Result<(), E>),
    /// The watchdog's timer.
    Tick,
    /// The server stops.
    Stopping,
}

/// A future (or stream) polled only after it woke its task, through a waker of its own
/// that notes it did; other wakes of the task do not poll it. (Polling the watchdog's
/// timer and the server's stop at each of a connection's wakes cost a request about 800
/// instructions.)
struct WokenOnly<F> {
    inner: F,
    /// The task's waker it wakes, and whether it did since it was last polled; `None`
    /// before its first poll.
    woke: Option<Arc<Woke>>,
}

/// The waker of a [`WokenOnly`].
struct Woke {
    fired: std::sync::atomic::AtomicBool,
    task: std::task::Waker,
}

impl std::task::Wake for Woke {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.fired.store(true, Ordering::SeqCst);
        self.task.wake_by_ref();
    }
}

impl<F> WokenOnly<F> {
    fn new(inner: F) -> Self {
        WokenOnly { inner, woke: None }
    }

    /// `poll` of the inner future with its own waker, when it woke the task of `cx` since
    /// its last poll (or was never polled, or the task's waker changed); else `Pending`,
    /// its waker still registered. After a `Ready` it is polled at the next call, to
    /// register again.
    fn poll_woken<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: impl FnOnce(&mut F, &mut Context<'_>) -> Poll<T>,
    ) -> Poll<T> {
        let woke = match &self.woke {
            Some(woke) if woke.task.will_wake(cx.waker()) => {
                if !woke.fired.swap(false, Ordering::SeqCst) {
                    return Poll::Pending;
                }
                Arc::clone(woke)
            }
            _ => {
                let woke = Arc::new(Woke {
                    fired: std::sync::atomic::AtomicBool::new(false),
                    task: cx.waker().clone(),
                });
                self.woke = Some(Arc::clone(&woke));
                woke
            }
        };
        let waker = std::task::Waker::from(Arc::clone(&woke));
        let polled = poll(&mut self.inner, &mut Context::from_waker(&waker));
        if polled.is_ready() {
            woke.fired.store(true, Ordering::SeqCst);
        }
        polled
    }
}

/// Marks the end of one request's response when dropped (and, for a GET, counts its
/// connection busy again).
struct RequestOver {
    state: Arc<State>,
    /// Kept until the answer is over.
    _released: Option<Released>,
}

/// Dropping it is all it does.
impl BodyGuard for RequestOver {}

impl Drop for RequestOver {
    fn drop(&mut self) {
        self.state.request_over();
    }
}

/// The socket, noting for the watchdog when a head starts and when writes stall.
struct Watched {
    inner: TcpStream,
    state: Arc<State>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            let state = &self.state;
            if state.in_flight.load(Ordering::SeqCst) == 0 {
                let now = state.now();
                let _ = state.head_since.compare_exchange(0, now, Ordering::SeqCst, Ordering::SeqCst);
            }
        }
        polled
    }
}

impl Watched {
    fn note_write<T>(&self, polled: &Poll<T>) {
        match polled {
            Poll::Pending => {
                let now = self.state.now();
                let _ = self.state.write_blocked_since.compare_exchange(
                    0,
                    now,
                    Ordering::SeqCst,
                    Ordering::SeqCst,
                );
            }
            Poll::Ready(_) => self.state.write_blocked_since.store(0, Ordering::SeqCst),
        }
    }
}

impl AsyncWrite for Watched {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.note_write(&polled);
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.note_write(&polled);
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.inner).poll_flush(cx);
        self.note_write(&polled);
        polled
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::task::Waker;

    use super::*;

    /// A future that counts its polls, keeps the waker of the last, and is ready when told.
    #[derive(Default)]
    struct Counted {
        polls: usize,
        waker: Option<Waker>,
        ready: bool,
    }

    impl Counted {
        fn poll(&mut self, cx: &mut Context<'_>) -> Poll<()> {
            self.polls += 1;
            self.waker = Some(cx.waker().clone());
            if self.ready { Poll::Ready(()) } else { Poll::Pending }
        }
    }

    /// A task's waker that counts its wakes.
    #[derive(Default)]
    struct Task(Mutex<usize>);

    impl std::task::Wake for Task {
        fn wake(self: Arc<Self>) {
            *self.0.lock().unwrap() += 1;
        }
    }

    #[test]
    fn a_woken_only_future_is_polled_when_it_woke_its_task_and_not_otherwise() {
        let task = Arc::new(Task::default());
        let waker = Waker::from(Arc::clone(&task));
        let mut cx = Context::from_waker(&waker);
        let mut woken = WokenOnly::new(Counted::default());
        let mut poll = |woken: &mut WokenOnly<Counted>| woken.poll_woken(&mut cx, |inner, cx| inner.poll(cx));
        // Its first poll registers it.
        assert!(poll(&mut woken).is_pending());
        assert_eq!(woken.inner.polls, 1);
        // The task woken by something else: it is not polled.
        for _ in 0..3 {
            assert!(poll(&mut woken).is_pending());
        }
        assert_eq!(woken.inner.polls, 1);
        // It wakes its task (through its own waker): the task hears it, and it is polled.
        woken.inner.waker.take().unwrap().wake();
        assert_eq!(*task.0.lock().unwrap(), 1);
        assert!(poll(&mut woken).is_pending());
        assert_eq!(woken.inner.polls, 2);
        assert!(poll(&mut woken).is_pending());
        assert_eq!(woken.inner.polls, 2);
        // Ready: it is polled again at the next call (an interval registers its next tick).
        woken.inner.ready = true;
        woken.inner.waker.take().unwrap().wake_by_ref();
        assert!(poll(&mut woken).is_ready());
        woken.inner.ready = false;
        assert!(poll(&mut woken).is_pending());
        assert_eq!(woken.inner.polls, 4);
        assert!(poll(&mut woken).is_pending());
        assert_eq!(woken.inner.polls, 4);
    }

    #[test]
    fn a_woken_only_future_is_polled_again_under_another_task_waker() {
        let second = Arc::new(Task::default());
        let (one, two) = (Waker::from(Arc::new(Task::default())), Waker::from(Arc::clone(&second)));
        let mut woken = WokenOnly::new(Counted::default());
        let poll = |woken: &mut WokenOnly<Counted>, waker: &Waker| {
            woken.poll_woken(&mut Context::from_waker(waker), |inner, cx| inner.poll(cx))
        };
        assert!(poll(&mut woken, &one).is_pending());
        assert!(poll(&mut woken, &two).is_pending());
        assert_eq!(woken.inner.polls, 2, "a new task waker: polled, to register it");
        woken.inner.waker.take().unwrap().wake();
        assert_eq!(*second.0.lock().unwrap(), 1, "its wake reaches the new task");
    }
}
