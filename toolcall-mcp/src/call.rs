//! `tools/call`: one call run in a slot of the call limit, within its time limit, inline
//! or off the async workers where it may block ([`crate::inline`]), and its outcome as an
//! MCP result shaped for the client's protocol revision.

use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolResult, ContentBlock, ErrorData, JsonObject, ProtocolVersion};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;
// The poll with panics caught that generated dispatchers use, for the tools added at run
// time: a panic in one is `Panicked`, as in a generated one.
use toolcall_runtime::__private::Dispatched;
use toolcall_runtime::{CallFuture, Content, Progress, ToolError};

use crate::arguments::Arguments;
use crate::context::{Call, ErasedContext};
use crate::error::{cut, error_result};
use crate::inline::{Inline, Place};
use crate::request::Arrived;
use crate::revision::{is_object_schema, takes_any_output};
use crate::server::Server;
use crate::{limit, talk, telemetry};

use tracing::Instrument as _;

/// The text block of a successful result: a JSON string's own text (a tool returning
/// `String`, `&str`, `char`, or an enum written as a string, says `removed "Beef ramen"`,
/// not `"removed \"Beef ramen\""`, as rmcp's and FastMCP's servers send text), and any
/// other value's JSON text. `structuredContent`, where the tool has an output schema,
/// stays the JSON value.
pub(crate) fn result_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Whether `value`, a result of a tool whose output schema is `schema`, goes as
/// `structuredContent` to a client on `version` (see [`Server::success`]). A value an
/// object schema refuses (not an object) never does, in any revision.
fn structures(schema: &JsonObject, value: &Value, version: Option<&ProtocolVersion>) -> bool {
    if is_object_schema(schema) { value.is_object() } else { takes_any_output(version) }
}

/// One call to run ([`Server::run_for`]).
pub(crate) struct Job<'a> {
    /// The client's protocol revision, which shapes the result.
    pub(crate) version: Option<&'a ProtocolVersion>,
    /// The caller's context.
    pub(crate) context: ErasedContext,
    /// The tool's name, as the client sent it.
    pub(crate) name: &'a str,
    /// The tool's place among the server's tools, when it is one of them.
    pub(crate) tool: Option<usize>,
    pub(crate) args: Arguments,
    /// When the request arrived: the time limit counts from it.
    pub(crate) arrived: Instant,
    /// The call's time limit when it is not the tool's or the server's (a task's).
    pub(crate) limit: Option<Duration>,
    /// Called after each poll of the tool's future, wherever it ran (the blocking pool
    /// included): a round of questions ends only once the poll that asked them is over.
    pub(crate) after_poll: Option<AfterPoll>,
    /// What the tool reports to.
    pub(crate) progress: Progress,
    /// What forwards those reports to the client while the call runs, when anything does.
    pub(crate) talk: Option<talk::Talk>,
}

/// What runs after each poll of a call's future ([`Job::after_poll`]).
pub(crate) type AfterPoll = std::sync::Arc<dyn Fn() + Send + Sync>;

/// `call`, with `after` run after each of its polls.
fn observed(call: Call, after: Option<AfterPoll>) -> Call {
    let Some(after) = after else { return call };
    let mut call = call;
    Box::pin(std::future::poll_fn(move |cx| {
        let polled = call.as_mut().poll(cx);
        after();
        polled
    }))
}

/// `call`, polled in `span` when there is one: a sync tool's first poll runs on the
/// blocking pool, where the span would not be entered otherwise, and the tool's own
/// events belong under its `execute_tool` span.
fn in_span(call: Call, span: Option<&tracing::Span>) -> Call {
    match span {
        Some(span) => Box::pin(call.instrument(span.clone())),
        None => call,
    }
}

impl Server {
    /// Runs one call, in a slot of the call limit and within the time limit counted from
    /// its arrival (the wait for a slot included); the call's future is dropped on timeout
    /// or when `cancelled` resolves. Its first poll (decoding, and the whole of a sync
    /// tool) runs inline or on the blocking pool ([`crate::inline`]). The tool reports to
    /// the job's `progress`; its `talk`, when given, forwards those reports to the client
    /// while the call runs. The result is shaped for a client on the job's protocol
    /// version ([`Server::success`]).
    ///
    /// The call runs in a span `execute_tool {name}` ([`telemetry::execute_tool`]), when
    /// a subscriber wants it.
    ///
    /// Not an `async fn`: the span is opened here, and the future returned is the call's
    /// own, in the span, not one holding also a copy of the job and of `cancelled` as an
    /// `async fn` keeps its arguments (a future is moved whole into each one around it).
    pub(crate) fn run_for<'a>(
        &'a self,
        job: Job<'a>,
        cancelled: impl std::future::Future<Output = ()> + 'a,
    ) -> impl std::future::Future<Output = Result<CallToolResult, ErrorData>> + 'a {
        let name = job.name;
        // The arguments are read for the span only when it records them.
        let recorded = telemetry::captures_content().then(|| job.args.to_value());
        let span = telemetry::execute_tool(name, recorded.as_ref().unwrap_or(&Value::Null), || {
            job.tool.and_then(|at| self.tools.get(at)).and_then(|t| t.description.as_deref())
        });
        // One future whether or not the span is recorded (entering a disabled span is a
        // flag test): the call's future, which is large, has one place in this one. Its
        // outcome is recorded on the span by `run_untraced`, at its end.
        let recorded = (!span.is_disabled()).then(|| span.clone());
        self.run_untraced(job, cancelled, recorded).instrument(span)
    }

    /// [`Server::run_for`] without its span; the tool's future is polled in `span`, when
    /// given, and the outcome recorded on it.
    fn run_untraced(
        &self,
        job: Job<'_>,
        cancelled: impl std::future::Future<Output = ()>,
        span: Option<tracing::Span>,
    ) -> impl std::future::Future<Output = Result<CallToolResult, ErrorData>> {
        async move {
            let Job { version, context, name, tool, args, arrived, limit, after_poll, progress, talk } = job;
            let limit = limit.unwrap_or_else(|| self.limit_of(name));
            let started = std::sync::atomic::AtomicBool::new(false);
            let place = self.inline.place(tool, self.tools.len(), args.size());
            // Boxed where it is made (as the one a call's future holds, see `crate::boxed`).
            let call = crate::boxed::boxed(|| async {
                let slot = self.limit.enter().await?;
                started.store(true, std::sync::atomic::Ordering::SeqCst);
                let first = FirstPoll { inline: &self.inline, tool, count: self.tools.len(), place };
                let call = observed(self.call_of(context, (name, tool), args, progress, version), after_poll);
                let work = first.run(in_span(call, span.as_ref()), slot);
                Ok::<_, limit::Busy>(match talk {
                    Some(talk) => talk.around(work).await,
                    None => work.await,
                })
            });
            let deadline = tokio::time::Instant::from_std(arrived + limit);
            let outcome = tokio::select! {
                // The call first: one that is over at its first poll never starts the timer.
                biased;
                outcome = call => self.result_of((name, tool), version, outcome),
                () = tokio::time::sleep_until(deadline) => {
                    let started = started.load(std::sync::atomic::Ordering::SeqCst);
                    Ok(self.timed_out_result(name, started, limit))
                }
                () = cancelled => Err(ErrorData::internal_error(telemetry::CANCELLED, None)),
            };
            if let Some(span) = &span {
                telemetry::tool_outcome(span, &outcome);
            }
            outcome
        }
    }

    /// The result of a call of `name` that ran (or was refused a slot), for a client on
    /// `version`.
    fn result_of(
        &self,
        (name, tool): (&str, Option<usize>),
        version: Option<&ProtocolVersion>,
        outcome: Result<Result<Value, ToolError>, limit::Busy>,
    ) -> Result<CallToolResult, ErrorData> {
        match outcome {
            Ok(Ok(value)) => Ok(self.success(tool, value, version)),
            Ok(Err(error @ ToolError::UnknownTool { .. })) => {
                Err(ErrorData::invalid_params(error.to_string(), Some(error.to_value())))
            }
            Ok(Err(error)) => Ok(error_result(&error.to_string(), Some(error.to_value()))),
            Err(busy) => Ok(error_result(
                &format!(
                    "the server is busy: {} calls are running and {} are waiting, its limits; \
                     tool `{name}` was not run, try again later",
                    busy.running, busy.waiting
                ),
                Some(serde_json::json!({"error": "busy", "running": busy.running, "waiting": busy.waiting})),
            )),
        }
    }

    /// The error result of a call of `name` over its time `limit` (`started`: it had a
    /// slot).
    fn timed_out_result(&self, name: &str, started: bool, limit: Duration) -> CallToolResult {
        let message = self.timed_out(name, started, limit);
        let json = serde_json::json!({
            "error": "timeout",
            "tool": cut(name, 120),
            "limit_ms": u64::try_from(limit.as_millis()).unwrap_or(u64::MAX),
            "started": started,
            "message": message,
        });
        error_result(&message, Some(json))
    }

    /// The call of tool `name`, not yet polled: the function of a tool added at run time
    /// (polled with panics caught, as a generated async tool is), else the toolset's,
    /// decoding text arguments straight from their text.
    fn call_of(
        &self,
        context: ErasedContext,
        (name, tool): (&str, Option<usize>),
        args: Arguments,
        progress: Progress,
        version: Option<&ProtocolVersion>,
    ) -> Call {
        if let Some(searching) = &self.search
            && searching.settings.tool_name() == name
        {
            return Box::pin(std::future::ready(self.search_tools(&context, &args.to_value(), version)));
        }
        let Some(function) = self.added.get(name).cloned() else {
            return self.toolset.call(context, self.name_of(tool, name), args, progress);
        };
        let name = name.to_owned();
        Box::pin(async move {
            let arguments = match args.to_value() {
                Value::Object(arguments) => arguments,
                other => {
                    return Err(ToolError::InvalidArguments(toolcall_runtime::__private::summarize(&other)));
                }
            };
            // The function is called in the body's first poll, so a panic there is caught too.
            let body = Box::pin(async move { function(context, arguments, progress).await });
            CallFuture::new(&name, Dispatched::Async(body)).await
        })
    }

    /// The name of tool `tool` (its place among the server's tools) as the toolset has it,
    /// without a copy; `name`, the client's, copied when the toolset has no such tool.
    pub(crate) fn name_of(&self, tool: Option<usize>, name: &str) -> std::borrow::Cow<'static, str> {
        match tool.and_then(|at| self.infos.get(at).copied().flatten()) {
            Some(info) if info.name == name => std::borrow::Cow::Borrowed(info.name),
            _ => std::borrow::Cow::Owned(name.to_owned()),
        }
    }

    /// A successful call's result for a client on protocol `version`: a content tool's
    /// blocks; else one text block ([`result_text`]: a string's own text, any other value's
    /// JSON text) and, when the tool has an output schema, the value as
    /// `structuredContent` too: from 2026-07-28 whatever JSON it is (SEP-2106); before,
    /// only an object of a tool whose schema is an object schema (the schemas those
    /// revisions are sent; `tools/list` leaves the others out).
    fn success(
        &self,
        tool: Option<usize>,
        value: Value,
        version: Option<&ProtocolVersion>,
    ) -> CallToolResult {
        let returns_content = tool
            .and_then(|at| self.infos.get(at).copied().flatten())
            .is_some_and(|info| info.returns_content);
        if returns_content && let Some(blocks) = content_blocks(&value) {
            return CallToolResult::success(blocks);
        }
        let mut result = CallToolResult::success(vec![ContentBlock::text(result_text(&value))]);
        let schema = tool.and_then(|at| self.tools.get(at)).and_then(|tool| tool.output_schema.as_deref());
        if schema.is_some_and(|schema| structures(schema, &value, version)) {
            result.structured_content = Some(value);
        }
        result
    }

    /// The time limit of one call of `name`: its own, or the server's.
    fn limit_of(&self, name: &str) -> Duration {
        self.tool_timeouts.get(name).copied().unwrap_or(self.timeout)
    }

    /// What a call of `name` that ran out of its `limit` says (`started`: it had a slot).
    fn timed_out(&self, name: &str, started: bool, limit: Duration) -> String {
        let whose = if limit != self.limit_of(name) {
            "the task's time limit"
        } else if self.tool_timeouts.contains_key(name) {
            "the tool's time limit"
        } else {
            "the server's time limit per call"
        };
        let limit = human(limit);
        let name = cut(name, 120);
        if started {
            format!("tool `{name}` did not finish within {limit} ({whose}); it was cancelled")
        } else {
            format!(
                "tool `{name}` did not start within {limit} ({whose}): \
                 all {} call slots stayed busy; it was not run",
                self.limit.running()
            )
        }
    }
}

/// A content tool's result (one block or an array, as [`Content`] serializes) as rmcp's
/// content blocks; `None` when it is not blocks.
fn content_blocks(value: &Value) -> Option<Vec<ContentBlock>> {
    Content::blocks(value)?
        .iter()
        .map(|block| serde_json::to_value(block).ok().and_then(|json| serde_json::from_value(json).ok()))
        .collect()
}

/// Where one call's first poll runs, and what hears how long it took.
struct FirstPoll<'a> {
    inline: &'a Inline,
    tool: Option<usize>,
    count: usize,
    place: Place,
}

impl FirstPoll<'_> {
    /// Runs `call` (one tool's call, owning its context, arguments and progress): its
    /// first poll (argument decoding, and the whole of a sync tool) inline or on tokio's
    /// blocking pool ([`crate::inline`]), timed when the tool's place depends on it; on
    /// the pool, holding `slot` until that part is over even if the caller stops waiting
    /// (a sync tool cannot be stopped). An async tool's later polls run on the caller's
    /// task, and dropping the future cancels it.
    fn run(
        self,
        mut call: Call,
        slot: tokio::sync::OwnedSemaphorePermit,
    ) -> impl std::future::Future<Output = Result<Value, ToolError>> {
        async move {
            if self.place == Place::Inline {
                let began = Instant::now();
                let first = std::future::poll_fn(|cx| Poll::Ready(poll_once(&mut call, cx))).await;
                self.inline.record(self.tool, self.count, self.place, began.elapsed());
                let result = match first {
                    Some(result) => result,
                    None => call.await,
                };
                drop(slot);
                return result;
            }
            let timed = self.place == (Place::Pool { learn: true });
            let first = tokio::task::spawn_blocking(move || {
                let mut call = call;
                let began = timed.then(Instant::now);
                // The waker of this poll is never used: the caller's task polls again at once,
                // which registers its own (a future wakes only the waker of its latest poll).
                let polled = poll_once(&mut call, &mut Context::from_waker(Waker::noop()));
                let took = began.map(|began| began.elapsed());
                match polled {
                    Some(result) => (Ok(result), took),
                    None => (Err((call, slot)), took),
                }
            })
            .await;
            if let Ok((_, Some(took))) = &first {
                self.inline.record(self.tool, self.count, self.place, *took);
            }
            match first {
                Ok((Ok(result), _)) => result,
                Ok((Err((call, _slot)), _)) => call.await,
                Err(error) => Err(ToolError::Panicked(format!("the call's thread failed: {error}"))),
            }
        }
    }
}

/// One poll of `call`: its result, or `None` while it is pending.
fn poll_once(call: &mut Call, cx: &mut Context<'_>) -> Option<Result<Value, ToolError>> {
    match call.as_mut().poll(cx) {
        Poll::Ready(result) => Some(result),
        Poll::Pending => None,
    }
}

/// When the request of `context` arrived: its HTTP head's arrival, else now.
pub(crate) fn arrival(context: &RequestContext<RoleServer>) -> Instant {
    context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Arrived>())
        .map_or_else(Instant::now, |arrived| arrived.at)
}

fn human(limit: Duration) -> String {
    if limit.subsec_millis() == 0 {
        format!("{} s", limit.as_secs())
    } else {
        format!("{} ms", limit.as_millis())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::McpServer;
    use crate::error::{MAX_ERROR_RESULT, error_json};
    use std::sync::Arc;
    use toolcall_runtime::Toolset;

    static EMPTY: Toolset = Toolset::new(&[], &EMPTY_EMITTED, |_, _, _| None);
    static EMPTY_EMITTED: toolcall_runtime::Emitted = toolcall_runtime::Emitted::new();

    /// A call of `name` with `args` by a client on `version`, arrived at `arrived`.
    fn job<'a>(
        version: Option<&'a ProtocolVersion>,
        name: &'a str,
        args: Arguments,
        arrived: Instant,
    ) -> Job<'a> {
        let progress = Progress::default();
        Job {
            version,
            context: Arc::new(()),
            name,
            tool: None,
            args,
            arrived,
            limit: None,
            after_poll: None,
            progress,
            talk: None,
        }
    }

    /// A call of `anything` (no such tool) on `server`, arrived at `arrived`, never cancelled.
    async fn call_anything(server: &Server, arrived: Instant) -> Result<CallToolResult, ErrorData> {
        let never = std::future::pending();
        server.run_for(job(None, "anything", Arguments::Value(Value::Null), arrived), never).await
    }

    const NO_PARAMS: &str = r#"{"type":"object","properties":{}}"#;
    static SHAPES_EMITTED: toolcall_runtime::Emitted = toolcall_runtime::Emitted::new();
    /// `names` (an array schema), `user` (an object schema), `maybe` (a union of an object
    /// and null), each returning a value of its schema.
    static SHAPES_INFO: [toolcall_runtime::ToolInfo; 3] = [
        toolcall_runtime::ToolInfo {
            name: "names",
            parameters: NO_PARAMS,
            output: Some(r#"{"type":"array","items":{"type":"string"}}"#),
            ..toolcall_runtime::ToolInfo::EMPTY
        },
        toolcall_runtime::ToolInfo {
            name: "user",
            parameters: NO_PARAMS,
            output: Some(r#"{"type":"object","properties":{"id":{"type":"integer"}}}"#),
            ..toolcall_runtime::ToolInfo::EMPTY
        },
        toolcall_runtime::ToolInfo {
            name: "maybe",
            parameters: NO_PARAMS,
            output: Some(r#"{"anyOf":[{"type":"object"},{"type":"null"}]}"#),
            ..toolcall_runtime::ToolInfo::EMPTY
        },
    ];
    static SHAPES: Toolset = Toolset::new(&SHAPES_INFO, &SHAPES_EMITTED, |_, name, _| {
        let value = match name {
            "names" => serde_json::json!(["a", "b"]),
            "user" | "maybe" => serde_json::json!({"id": 1}),
            _ => return None,
        };
        Some(Dispatched::Ready(Ok(value)))
    });

    static WHERE_EMITTED: toolcall_runtime::Emitted = toolcall_runtime::Emitted::new();
    /// `where` (cheap) and `slow` (300 ms): sync tools answering the thread they ran on.
    static WHERE_INFO: [toolcall_runtime::ToolInfo; 2] = [
        toolcall_runtime::ToolInfo {
            name: "where",
            parameters: NO_PARAMS,
            ..toolcall_runtime::ToolInfo::EMPTY
        },
        toolcall_runtime::ToolInfo {
            name: "slow",
            parameters: NO_PARAMS,
            ..toolcall_runtime::ToolInfo::EMPTY
        },
    ];
    static WHERE: Toolset = Toolset::new(&WHERE_INFO, &WHERE_EMITTED, |_, name, _| {
        if name == "slow" {
            std::thread::sleep(Duration::from_millis(300));
        } else if name != "where" {
            return None;
        }
        Some(Dispatched::Ready(Ok(serde_json::json!(format!("{:?}", std::thread::current().id())))))
    });

    /// The thread a call of `name` on `server` ran on.
    async fn thread_of(server: &Server, name: &str) -> String {
        let job = Job { tool: server.place_of(name), ..job(None, name, Arguments::empty(), Instant::now()) };
        let result = server.run_for(job, std::future::pending()).await.unwrap();
        // A string result's text block is the string itself, not its JSON.
        result.content[0].as_text().unwrap().text.clone()
    }

    #[tokio::test]
    async fn a_cheap_sync_tool_runs_on_the_worker_after_a_run_of_cheap_calls_and_a_slow_one_never_does() {
        let here = format!("{:?}", std::thread::current().id());
        // A budget far above a cheap call's time (however loaded the machine) and below
        // the slow one's sleep.
        let server = McpServer::new(&WHERE, ()).inline_budget(Duration::from_millis(200)).server;
        let learn = crate::inline::LEARN as usize;
        let mut cheap = Vec::new();
        for _ in 0..learn + 3 {
            cheap.push(thread_of(&server, "where").await);
        }
        assert!(cheap[..learn].iter().all(|thread| *thread != here), "measured on the pool first");
        assert!(cheap[learn..].iter().all(|thread| *thread == here), "then inline: {cheap:?}");
        for _ in 0..2 {
            assert_ne!(thread_of(&server, "slow").await, here, "a tool over the budget stays on the pool");
        }
        let never = McpServer::new(&WHERE, ()).inline_budget(Duration::ZERO).server;
        for _ in 0..learn + 3 {
            assert_ne!(thread_of(&never, "where").await, here, "a zero budget inlines nothing");
        }
    }

    #[tokio::test]
    async fn structured_content_follows_the_clients_revision() {
        let server = McpServer::new(&SHAPES, ()).server;
        let structured = async |version: Option<&ProtocolVersion>, name: &str| {
            let never = std::future::pending();
            let job =
                Job { tool: server.place_of(name), ..job(version, name, Arguments::empty(), Instant::now()) };
            let result = server.run_for(job, never).await.unwrap();
            assert_eq!(result.is_error, Some(false), "{name}");
            result.structured_content
        };
        let (names, user) = (serde_json::json!(["a", "b"]), serde_json::json!({"id": 1}));
        for version in [None, Some(&ProtocolVersion::V_2026_07_28)] {
            assert_eq!(structured(version, "names").await, Some(names.clone()), "{version:?}");
            assert_eq!(structured(version, "user").await, Some(user.clone()), "{version:?}");
            assert_eq!(structured(version, "maybe").await, Some(user.clone()), "{version:?}");
        }
        for version in
            [&ProtocolVersion::V_2025_03_26, &ProtocolVersion::V_2025_06_18, &ProtocolVersion::V_2025_11_25]
        {
            assert_eq!(structured(Some(version), "names").await, None, "{version}");
            assert_eq!(structured(Some(version), "user").await, Some(user.clone()), "{version}");
            assert_eq!(structured(Some(version), "maybe").await, None, "{version}: its schema is not sent");
        }
    }

    fn text(result: &CallToolResult) -> String {
        result
            .content
            .iter()
            .filter_map(|c| c.as_text())
            .map(|t| t.text.clone())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[tokio::test]
    async fn a_call_that_never_gets_a_slot_says_it_did_not_start() {
        let server =
            McpServer::new(&EMPTY, ()).max_concurrent_calls(1).timeout(Duration::from_millis(20)).server;
        let _held = server.limit.enter().await.unwrap();
        let result = call_anything(&server, Instant::now()).await.unwrap();
        assert_eq!(result.is_error, Some(true));
        let message = "tool `anything` did not start within 20 ms (the server's time limit per call): \
             all 1 call slots stayed busy; it was not run";
        assert_eq!(result.content[0].as_text().unwrap().text, message);
        assert_eq!(result.content.len(), 1, "the message is said once");
        assert_eq!(result.structured_content, None, "no client may check an error against an output schema");
        let json = error_json(&result).cloned().unwrap();
        assert_eq!(
            json,
            serde_json::json!({"error": "timeout", "tool": "anything", "limit_ms": 20, "started": false, "message": message})
        );
    }

    #[tokio::test]
    async fn the_time_limit_counts_from_the_arrival() {
        let server =
            McpServer::new(&EMPTY, ()).max_concurrent_calls(1).timeout(Duration::from_secs(3)).server;
        let _held = server.limit.enter().await.unwrap();
        let arrived = Instant::now() - Duration::from_millis(2900);
        let begun = Instant::now();
        let result = call_anything(&server, arrived).await.unwrap();
        assert_eq!(result.is_error, Some(true));
        assert!(begun.elapsed() < Duration::from_secs(2), "{:?}: 2.9 of the 3 s had passed", begun.elapsed());
    }

    #[test]
    fn error_results_are_bounded() {
        let small = error_result("short", Some(serde_json::json!({"error": "x"})));
        assert_eq!(text(&small), "short");
        assert_eq!(error_json(&small), Some(&serde_json::json!({"error": "x"})));
        assert_eq!(small.structured_content, None);
        let huge = "\u{1}".repeat(200_000);
        let result = error_result(&huge, Some(serde_json::json!({"error": "failed", "detail": huge})));
        let size = serde_json::to_vec(&result).unwrap().len();
        assert!(size <= MAX_ERROR_RESULT, "{size}");
        let json = error_json(&result).cloned().unwrap();
        assert_eq!(json["error"], "failed");
        assert_eq!(json["truncated"], true);
    }

    #[tokio::test]
    async fn a_call_past_the_line_is_refused_as_busy() {
        let server = McpServer::new(&EMPTY, ()).max_concurrent_calls(1).max_queued_calls(0).server;
        let held = server.limit.enter().await.unwrap();
        let result = call_anything(&server, Instant::now()).await.unwrap();
        assert_eq!(result.is_error, Some(true));
        assert!(text(&result).starts_with("the server is busy: 1 calls are running and 0 are waiting"));
        assert_eq!(error_json(&result), Some(&serde_json::json!({"error":"busy","running":1,"waiting":0})));
        assert_eq!(result.structured_content, None);
        drop(held);
        // The slot is free: the call runs (and finds no such tool).
        let unknown = call_anything(&server, Instant::now()).await;
        assert!(unknown.is_err());
    }
}
