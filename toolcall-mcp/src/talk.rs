//! Tools that talk back: a call's [`Progress`] reports become `notifications/progress`
//! and its log messages `notifications/message`, sent to the client that made the call.
//!
//! The tool reports from its own thread (a sync tool runs on tokio's blocking pool) and
//! must never wait on the network, so the [`Sink`] only queues: a bounded queue of
//! [`QUEUE`] reports per call, past which reports are dropped (and counted in the
//! server's log) rather than held. (The queue allocates nothing until a report comes: most
//! calls make none.) The call's own task forwards the queue to the peer
//! while the call runs, in order, and sends what is left once it finishes, before the
//! result: over streamable HTTP a progress notification rides the request's stream,
//! which the result closes.
//!
//! Questions (elicitation, sampling) take one of two ways. Up to 2025-11-25 they are
//! queued like reports and sent by the call's task as requests to the client
//! ([`crate::ask`]). From 2026-07-28 there are no such requests: the sink asks the call's
//! rounds, which answer from the call's `requestState` or end the round
//! ([`crate::ask::rounds`]). Without feature `ask` a question gets
//! [`AskError::Unsupported`] at once, saying so.

// rmcp marks MCP logging deprecated (SEP-2577, a future protocol); it is still what every
// protocol version up to 2025-11-25 has, and what clients show.
#![allow(deprecated)]

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use rmcp::model::{
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken, ProtocolVersion,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use serde_json::Value;
use tokio::sync::Notify;
#[cfg(feature = "ask")]
use tokio::sync::oneshot;
use toolcall_runtime::{Answer, AskError, AskFuture, LogLevel, Progress, ProgressSink};

/// Who answers a call's questions: on 2026-07-28 the call's rounds
/// ([`crate::ask::rounds`]), before it the client over requests (`None`).
#[cfg(feature = "ask")]
pub(crate) type Asking = Option<Arc<crate::ask::rounds::Rounds>>;
/// Without feature `ask` nobody answers a call's questions.
#[cfg(not(feature = "ask"))]
pub(crate) type Asking = ();

/// The most reports of one call waiting to be sent; past it, reports are dropped.
pub(crate) const QUEUE: usize = 256;

/// The log level a session asked for with `logging/setLevel`; shared by the calls of
/// one session (one server clone per session). Unset until the client sets it.
///
/// It is also what the HTTP layer knows of a legacy session rmcp serves: the session's
/// peer, once its `initialize` was answered, so that the hot path
/// ([`crate::streamable_http`]) can answer the session's calls as its handler would,
/// without going through rmcp's session worker.
#[derive(Clone, Debug, Default)]
pub(crate) struct SessionLevel(Arc<SessionState>);

/// What [`SessionLevel`] shares.
#[derive(Default)]
struct SessionState {
    /// 0: unset; else the index of the level in [`LogLevel::ALL`], plus one.
    level: AtomicU8,
    /// The session's peer, from its latest `initialize` (a session restored from a store
    /// answers it again, on a new peer).
    peer: std::sync::Mutex<Option<Peer<RoleServer>>>,
    /// The revision the session agreed on, and whether its client can be asked (it
    /// declared elicitation or sampling), once its `initialize` was answered.
    client: std::sync::OnceLock<(ProtocolVersion, bool)>,
}

impl std::fmt::Debug for SessionState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionState")
            .field("level", &self.level.load(Ordering::Relaxed))
            .field("initialized", &self.peer.lock().is_ok_and(|peer| peer.is_some()))
            .finish()
    }
}

tokio::task_local! {
    /// The state a session rmcp creates (or restores) while serving this request takes:
    /// set by the HTTP layer around rmcp's handling of a request that may create one.
    static NEW_SESSION: SessionLevel;
}

impl SessionLevel {
    /// The level the client set; `None` before any `logging/setLevel`.
    pub(crate) fn get(&self) -> Option<LogLevel> {
        let index = usize::from(self.0.level.load(Ordering::Relaxed));
        index.checked_sub(1).and_then(|i| LogLevel::ALL.get(i).copied())
    }

    /// Records the level the client set.
    pub(crate) fn set(&self, level: LogLevel) {
        let index = LogLevel::ALL.iter().position(|l| *l == level).unwrap_or(0);
        self.0.level.store(u8::try_from(index + 1).unwrap_or(1), Ordering::Relaxed);
    }

    /// The state of a session being created: the one the HTTP layer set for this request
    /// ([`SessionLevel::creating`]), else a fresh one.
    pub(crate) fn for_new_session() -> SessionLevel {
        NEW_SESSION.try_with(SessionLevel::clone).unwrap_or_default()
    }

    /// Runs `work` (rmcp's handling of one request) so that a session it creates takes
    /// this state.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) async fn creating<F: std::future::Future>(self, work: F) -> F::Output {
        NEW_SESSION.scope(self, work).await
    }

    /// Notes the session's peer, once rmcp's session answered its `initialize` (again,
    /// when rmcp restores a session it had closed).
    pub(crate) fn initialized(
        &self,
        peer: &Peer<RoleServer>,
        version: &ProtocolVersion,
        capabilities: &rmcp::model::ClientCapabilities,
    ) {
        self.agreed(version, capabilities);
        if let Ok(mut held) = self.0.peer.lock() {
            *held = Some(peer.clone());
        }
    }

    /// Notes the revision the session agreed on and what its client declared.
    pub(crate) fn agreed(&self, version: &ProtocolVersion, capabilities: &rmcp::model::ClientCapabilities) {
        let asks = capabilities.elicitation.is_some() || capabilities.sampling.is_some();
        let _ = self.0.client.set((version.clone(), asks));
    }

    /// The revision the session agreed on, and whether its client can be asked; `None`
    /// before its `initialize` was answered.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn client(&self) -> Option<&(ProtocolVersion, bool)> {
        self.0.client.get()
    }

    /// The session's peer, while rmcp serves the session.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn live_peer(&self) -> Option<Peer<RoleServer>> {
        let held = self.0.peer.lock().ok()?;
        held.as_ref().filter(|peer| !peer.is_transport_closed()).cloned()
    }
}

/// rmcp's log level as the runtime's.
pub(crate) fn level_of(level: LoggingLevel) -> Option<LogLevel> {
    serde_json::to_value(level).ok().as_ref().and_then(serde_json::Value::as_str).and_then(LogLevel::parse)
}

/// The runtime's log level as rmcp's.
fn rmcp_level(level: LogLevel) -> Option<LoggingLevel> {
    serde_json::from_value(serde_json::Value::from(level.as_str())).ok()
}

/// One call's queue of reports, in its [`Sink`]: the sink pushes, the [`Talk`] forwarding
/// them pops.
struct Queue {
    state: std::sync::Mutex<Queued>,
    /// Told when a report is pushed.
    pushed: Notify,
    /// Reports not queued: the queue was full or closed.
    dropped: AtomicU64,
}

#[derive(Default)]
struct Queued {
    reports: std::collections::VecDeque<Report>,
    /// No report is taken any more: the call is over.
    closed: bool,
}

impl Queue {
    /// An empty queue of at most [`QUEUE`] reports.
    fn new() -> Self {
        Queue {
            state: std::sync::Mutex::new(Queued::default()),
            pushed: Notify::new(),
            dropped: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Queued> {
        // Every change is one push, pop or flag: a poisoned lock is consistent.
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Queues `report`; one that comes when the queue is full or closed is dropped, and
    /// counted.
    fn push(&self, report: Report) {
        {
            let mut queued = self.lock();
            if queued.closed || queued.reports.len() >= QUEUE {
                self.dropped.fetch_add(1, Ordering::Relaxed);
                return;
            }
            queued.reports.push_back(report);
        }
        self.pushed.notify_one();
    }

    /// The next report, when one is queued.
    fn try_recv(&self) -> Result<Report, ()> {
        self.lock().reports.pop_front().ok_or(())
    }

    /// The next report, waiting for one (never `None`: `Option` for `select!`'s sake).
    async fn recv(&self) -> Option<Report> {
        loop {
            // Registered before the queue is read, so a push in between is not missed.
            let pushed = self.pushed.notified();
            if let Ok(report) = self.try_recv() {
                return Some(report);
            }
            pushed.await;
        }
    }

    /// Takes no more reports (those queued stay, to be taken).
    fn close(&self) {
        self.lock().closed = true;
    }
}

/// One report of a running tool, queued for the client.
#[derive(Debug)]
enum Report {
    Progress {
        done: u64,
        total: Option<u64>,
        message: String,
    },
    Log {
        level: LogLevel,
        message: String,
    },
    /// A question for the user; the answer goes back on `reply`.
    #[cfg(feature = "ask")]
    Elicit {
        message: String,
        schema: Value,
        reply: oneshot::Sender<Result<Answer, AskError>>,
    },
    /// A page to send the user to; whether they agreed goes back on `reply`.
    #[cfg(feature = "ask")]
    ElicitUrl {
        message: String,
        url: String,
        reply: oneshot::Sender<Result<Answer<()>, AskError>>,
    },
    /// A request for the client's roots; they go back on `reply`.
    #[cfg(feature = "ask")]
    Roots {
        reply: oneshot::Sender<Result<Vec<toolcall_runtime::Root>, AskError>>,
    },
    /// A request for the client's model; its text goes back on `reply`.
    #[cfg(feature = "ask")]
    Sample {
        prompt: String,
        max_tokens: u32,
        reply: oneshot::Sender<Result<String, AskError>>,
    },
}

/// The sink a call's [`Progress`] reports to: it keeps what the client wants (progress
/// only with a token; logs at or above the level in force) and queues it. One allocation
/// per call, shared by the call's [`Progress`] and its [`Talk`].
struct Sink {
    queue: Queue,
    /// Whether the request carried a `progressToken`.
    wants_progress: bool,
    /// The request's own level (`_meta` `io.modelcontextprotocol/logLevel`), if any.
    request_level: Option<LogLevel>,
    session: SessionLevel,
    /// The level before the client sets one; `None` for a 2026-07-28 request, which gets
    /// log messages only when it asks for them with its own level.
    default_level: Option<LogLevel>,
    /// A 2026-07-28 call's questions and answers: asked there, not queued.
    #[cfg_attr(not(feature = "ask"), allow(dead_code))]
    rounds: Asking,
}

impl Sink {
    /// The lowest level sent; `None`: nothing is.
    fn threshold(&self) -> Option<LogLevel> {
        self.request_level.or_else(|| self.session.get()).or(self.default_level)
    }
}

impl ProgressSink for Sink {
    fn progress(&self, done: u64, total: Option<u64>, message: &str) {
        if self.wants_progress {
            self.queue.push(Report::Progress { done, total, message: message.to_owned() });
        }
    }

    fn log(&self, level: LogLevel, message: &str) {
        if self.threshold().is_some_and(|threshold| level >= threshold) {
            self.queue.push(Report::Log { level, message: message.to_owned() });
        }
    }

    #[cfg(not(feature = "ask"))]
    fn elicit(&self, _: &str, _: &Value) -> AskFuture<Answer> {
        unasked()
    }

    #[cfg(not(feature = "ask"))]
    fn elicit_url(&self, _: &str, _: &str) -> AskFuture<Answer<()>> {
        unasked()
    }

    #[cfg(not(feature = "ask"))]
    fn sample(&self, _: &str, _: u32) -> AskFuture<String> {
        unasked()
    }

    #[cfg(feature = "ask")]
    fn elicit(&self, message: &str, schema: &Value) -> AskFuture<Answer> {
        if let Some(rounds) = &self.rounds {
            return rounds.elicit(message, schema);
        }
        let (reply, answer) = oneshot::channel();
        self.queue.push(Report::Elicit { message: message.to_owned(), schema: schema.clone(), reply });
        Box::pin(async move { answer.await.unwrap_or_else(|_| Err(gone())) })
    }

    #[cfg(feature = "ask")]
    fn elicit_url(&self, message: &str, url: &str) -> AskFuture<Answer<()>> {
        if let Some(rounds) = &self.rounds {
            return rounds.elicit_url(message, url);
        }
        let (reply, answer) = oneshot::channel();
        self.queue.push(Report::ElicitUrl { message: message.to_owned(), url: url.to_owned(), reply });
        Box::pin(async move { answer.await.unwrap_or_else(|_| Err(gone())) })
    }

    #[cfg(feature = "ask")]
    fn sample(&self, prompt: &str, max_tokens: u32) -> AskFuture<String> {
        if let Some(rounds) = &self.rounds {
            return rounds.sample(prompt, max_tokens);
        }
        let (reply, answer) = oneshot::channel();
        self.queue.push(Report::Sample { prompt: prompt.to_owned(), max_tokens, reply });
        Box::pin(async move { answer.await.unwrap_or_else(|_| Err(gone())) })
    }

    #[cfg(feature = "ask")]
    fn roots(&self) -> AskFuture<Vec<toolcall_runtime::Root>> {
        if let Some(rounds) = &self.rounds {
            return rounds.roots();
        }
        let (reply, answer) = oneshot::channel();
        self.queue.push(Report::Roots { reply });
        Box::pin(async move { answer.await.unwrap_or_else(|_| Err(gone())) })
    }

    #[cfg(feature = "ask")]
    fn name_next(&self, key: &str) {
        if let Some(rounds) = &self.rounds {
            rounds.name_next(key);
        }
    }

    /// A 2026-07-28 call whose tool may become a task where it detaches
    /// (`ToolMeta::task_from_detach`) ends here, to go on as a task; any other call goes on.
    #[cfg(feature = "tasks")]
    fn detach(&self) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send>> {
        match &self.rounds {
            Some(rounds) => rounds.detach(),
            None => Box::pin(std::future::ready(())),
        }
    }
}

/// The answer to each question of a server built without feature `ask`.
#[cfg(not(feature = "ask"))]
fn unasked<T: Send + 'static>() -> AskFuture<T> {
    let why =
        "this MCP server was built without toolcall-mcp's feature `ask`: it sends no questions to the client";
    Box::pin(std::future::ready(Err(AskError::Unsupported(why.to_owned()))))
}

/// The error of a question whose request was never sent or whose answer never came back
/// (the call's queue was full, or the call ended).
#[cfg(feature = "ask")]
fn gone() -> AskError {
    AskError::Failed("the question was not sent: too many reports queued, or the call ended".to_owned())
}

/// The forwarding half of one call's reports: sends them to the client.
pub(crate) struct Talk {
    /// The call's sink, whose queue this pops.
    sink: Arc<Sink>,
    peer: Peer<RoleServer>,
    token: Option<ProgressToken>,
    /// The tool's name (the server's own: not copied).
    tool: Cow<'static, str>,
    /// The last progress sent: MCP requires each to be larger, so one that is not is
    /// dropped.
    last: Option<u64>,
}

impl Talk {
    /// The [`Progress`] for a call of `tool` made by `request` (`stateless`: on 2026-07-28
    /// or later), and what forwards its reports to the client. A 2026-07-28 call asks its
    /// questions through `rounds`.
    pub(crate) fn new(
        request: &RequestContext<RoleServer>,
        stateless: bool,
        session: &SessionLevel,
        default_level: LogLevel,
        tool: Cow<'static, str>,
        rounds: Asking,
    ) -> (Progress, Talk) {
        let token = crate::meta::progress_token(&request.meta);
        // 2026-07-28: a server MUST NOT log for a request that set no level.
        let sink = Arc::new(Sink {
            queue: Queue::new(),
            wants_progress: token.is_some(),
            request_level: crate::meta::log_level(&request.meta).and_then(level_of),
            session: session.clone(),
            default_level: (!stateless).then_some(default_level),
            rounds,
        });
        let progress = Progress::shared(Arc::clone(&sink) as Arc<dyn ProgressSink>);
        let talk = Talk { sink, peer: request.peer.clone(), token, tool, last: None };
        (progress, talk)
    }

    /// Runs `call` while forwarding its reports, then sends the ones still queued, and
    /// returns the call's output.
    pub(crate) fn around<T>(mut self, call: impl Future<Output = T>) -> impl std::future::Future<Output = T> {
        async move {
            let mut call = std::pin::pin!(call);
            let output = loop {
                tokio::select! {
                    biased;
                    output = &mut call => break output,
                    // Boxed: sending (a question's above all) is a large future, and most calls
                    // send nothing; the call's own future stays small.
                    Some(report) = self.sink.queue.recv() => Box::pin(self.send(report)).await,
                }
            };
            // A tool may have kept a clone of its Progress: take no more, send what is queued.
            self.sink.queue.close();
            while let Ok(report) = self.sink.queue.try_recv() {
                Box::pin(self.send(report)).await;
            }
            let dropped = self.sink.queue.dropped.load(Ordering::Relaxed);
            if dropped > 0 {
                log::warn!(
                    "tool `{}`: {dropped} progress and log reports dropped (over {QUEUE} queued)",
                    self.tool
                );
            }
            output
        }
    }

    async fn send(&mut self, report: Report) {
        let sent = match report {
            Report::Progress { done, total, message } => {
                let Some(token) = &self.token else { return };
                if !rises(&mut self.last, done) {
                    return;
                }
                let mut param = ProgressNotificationParam::new(token.clone(), done as f64);
                if let Some(total) = total {
                    param = param.with_total(total as f64);
                }
                if !message.is_empty() {
                    param = param.with_message(message);
                }
                self.peer.notify_progress(param).await
            }
            Report::Log { level, message } => {
                let Some(level) = rmcp_level(level) else { return };
                let param = LoggingMessageNotificationParam::new(level, serde_json::Value::String(message))
                    .with_logger(self.tool.to_string());
                self.peer.notify_logging_message(param).await
            }
            #[cfg(feature = "ask")]
            Report::Elicit { message, schema, reply } => {
                let _ = reply.send(crate::ask::elicit(&self.peer, message, schema).await);
                return;
            }
            #[cfg(feature = "ask")]
            Report::ElicitUrl { message, url, reply } => {
                let _ = reply.send(crate::ask::elicit_url(&self.peer, message, url).await);
                return;
            }
            #[cfg(feature = "ask")]
            Report::Roots { reply } => {
                let _ = reply.send(crate::ask::roots(&self.peer).await);
                return;
            }
            #[cfg(feature = "ask")]
            Report::Sample { prompt, max_tokens, reply } => {
                let _ = reply.send(crate::ask::sample(&self.peer, prompt, max_tokens).await);
                return;
            }
        };
        if let Err(error) = sent {
            log::debug!("tool `{}`: a notification was not sent: {error}", self.tool);
        }
    }
}

/// Whether progress `done` is larger than the `last` one sent (MCP requires each to be),
/// noting it as the last when it is.
fn rises(last: &mut Option<u64>, done: u64) -> bool {
    if last.is_some_and(|last| done <= last) {
        return false;
    }
    *last = Some(done);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_that_does_not_grow_is_not_sent() {
        let mut last = None;
        let sent: Vec<u64> =
            [1, 2, 2, 1, 5, 3, 6].into_iter().filter(|&done| rises(&mut last, done)).collect();
        assert_eq!(sent, [1, 2, 5, 6]);
    }

    #[test]
    fn the_request_level_wins_over_the_session_level_over_the_default() {
        let mut sink = Sink {
            queue: Queue::new(),
            wants_progress: false,
            request_level: None,
            session: SessionLevel::default(),
            default_level: Some(LogLevel::Warning),
            rounds: Default::default(),
        };
        let heard = |sink: &Sink| {
            for level in [LogLevel::Debug, LogLevel::Info, LogLevel::Warning, LogLevel::Error] {
                sink.log(level, "");
            }
            sink.progress(1, None, "no token: not queued");
            let mut levels = Vec::new();
            while let Ok(Report::Log { level, .. }) = sink.queue.try_recv() {
                levels.push(level);
            }
            levels
        };
        // `default_log_level(Warning)`, before any `logging/setLevel`.
        assert_eq!(heard(&sink), [LogLevel::Warning, LogLevel::Error]);
        sink.session.set(LogLevel::Info);
        assert_eq!(heard(&sink), [LogLevel::Info, LogLevel::Warning, LogLevel::Error]);
        sink.request_level = Some(LogLevel::Error);
        assert_eq!(heard(&sink), [LogLevel::Error]);
        // A 2026-07-28 request has no default: without its own level, nothing is sent.
        sink.request_level = None;
        sink.session = SessionLevel::default();
        sink.default_level = None;
        assert_eq!(heard(&sink), []);
        sink.request_level = Some(LogLevel::Info);
        assert_eq!(heard(&sink), [LogLevel::Info, LogLevel::Warning, LogLevel::Error]);
    }

    #[test]
    fn a_full_queue_drops_reports_and_counts_them_without_waiting() {
        let sink = Sink {
            queue: Queue::new(),
            wants_progress: true,
            request_level: None,
            session: SessionLevel::default(),
            default_level: Some(LogLevel::Info),
            rounds: Default::default(),
        };
        // Nobody reads while the tool reports: the first QUEUE wait, the rest are dropped.
        for done in 1..=300 {
            sink.progress(done, None, "");
        }
        sink.log(LogLevel::Debug, "below the level: never queued");
        sink.log(LogLevel::Error, "queue full: dropped");
        assert_eq!(sink.queue.dropped.load(Ordering::Relaxed), 300 - QUEUE as u64 + 1);
        let mut queued = Vec::new();
        while let Ok(Report::Progress { done, .. }) = sink.queue.try_recv() {
            queued.push(done);
        }
        assert_eq!(queued, (1..=QUEUE as u64).collect::<Vec<_>>());
    }

    #[test]
    fn levels_convert_both_ways() {
        for level in LogLevel::ALL {
            assert_eq!(rmcp_level(level).and_then(level_of), Some(level));
        }
        let session = SessionLevel::default();
        assert_eq!(session.get(), None);
        session.set(LogLevel::Warning);
        assert_eq!(session.get(), Some(LogLevel::Warning));
        session.set(LogLevel::Debug);
        assert_eq!(session.get(), Some(LogLevel::Debug));
    }
}
