//! Traces, metrics and the request log, in OpenTelemetry's MCP and GenAI semantic
//! conventions, through the [`tracing`] crate.
//!
//! Every MCP request this server answers is a span `{mcp.method.name} {target}` of kind
//! server (`tools/call get_weather`, `tools/list`), and every tool call inside one is a
//! span `execute_tool {gen_ai.tool.name}` under it. Their attributes are tracing fields
//! named as the conventions name them (`mcp.method.name`, `gen_ai.tool.name`, ...), with
//! `otel.name`, `otel.kind` and `otel.status_description`, which
//! [`tracing-opentelemetry`](https://docs.rs/tracing-opentelemetry) turns into the
//! OpenTelemetry span's name, kind and status. Over HTTP, each request is also one event
//! on target [`REQUEST_LOG_TARGET`] when it ends: its method, path, status, duration, MCP
//! method, tool and caller's identity; never its arguments, results or tokens.
//!
//! None of it costs anything without a subscriber: a span no subscriber wants is never
//! built, and the request log is skipped unless its target is enabled.
//!
//! With the cargo feature `otel`, the server span's parent is the trace context a client
//! sent in the request's `params._meta` (`traceparent`, `tracestate`: SEP-414), else in
//! its HTTP headers (when both are there, the headers' context is a link); they are read
//! with the global propagator (`opentelemetry::global::set_text_map_propagator`, e.g.
//! the SDK's `TraceContextPropagator`), and the parent is set with
//! `tracing_opentelemetry::OpenTelemetrySpanExt::set_parent`. Without a remote parent
//! the server span is the root of its trace. The feature also records the metric
//! `mcp.server.operation.duration` (a histogram, in seconds) with the global meter
//! provider, which must be installed before the first request: the instrument is made
//! once.
//!
//! Tool arguments and results (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`)
//! and the text of a tool's error are recorded only when asked for: with
//! [`capture_content`], or `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`.

#[cfg(feature = "http")]
mod http;
#[cfg(feature = "otel")]
mod otel;

use std::future::Future;

use rmcp::model::{CallToolResult, ErrorData};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;
use tracing::Instrument as _;
use tracing::field::Empty;

use crate::error::cut;

#[cfg(feature = "http")]
use http::HttpNote;
#[cfg(feature = "http")]
pub(crate) use http::request_log;

/// Without feature `http` there is no request log, so no note for it: a request never
/// carries one.
#[cfg(not(feature = "http"))]
#[derive(Clone)]
enum HttpNote {}

#[cfg(not(feature = "http"))]
impl HttpNote {
    fn method(&self, _: &'static str, _: Option<&::http::request::Parts>) {
        match *self {}
    }

    fn tool(&self, _: &str) {
        match *self {}
    }

    fn error(&self, _: &str) {
        match *self {}
    }
}

/// The addresses of a request with `extensions` on its span: `client.address`, the client
/// (behind trusted proxies, the one they named), with `client.port` when the client is
/// the connection's peer; else `network.peer.address`, the proxy's.
fn record_addresses(span: &tracing::Span, extensions: &::http::Extensions) {
    let peer = extensions.get::<crate::request::Arrived>().and_then(|arrived| arrived.peer);
    let Some(client) = crate::request::client_ip(extensions) else { return };
    span.record("client.address", tracing::field::display(client));
    match peer {
        Some(peer) if peer.ip().to_canonical() == client => {
            span.record("client.port", i64::from(peer.port()));
        }
        Some(peer) => {
            span.record("network.peer.address", tracing::field::display(peer.ip().to_canonical()));
        }
        None => {}
    }
}

/// An HTTP version as `network.protocol.version` writes it.
fn http_version(version: ::http::Version) -> &'static str {
    match version {
        ::http::Version::HTTP_09 => "0.9",
        ::http::Version::HTTP_10 => "1.0",
        ::http::Version::HTTP_2 => "2",
        ::http::Version::HTTP_3 => "3",
        _ => "1.1",
    }
}

/// The message of the error a call cancelled by its client ends with (`crate::call`
/// ends it so; a span records such an error as `cancelled`).
pub(crate) const CANCELLED: &str = "the call was cancelled by the client";

/// The tracing target of the server spans (`{mcp.method.name} {target}`).
pub const SERVER_SPAN_TARGET: &str = "toolcall_mcp::server";

/// The tracing target of the tool spans (`execute_tool {gen_ai.tool.name}`).
pub const TOOL_SPAN_TARGET: &str = "toolcall_mcp::tool";

/// The tracing target of the request log: one INFO event per HTTP request, when its
/// response has been sent (or the client went away).
pub const REQUEST_LOG_TARGET: &str = "toolcall_mcp::request";

/// The `log` target of a server's life events, each logged once: its drain (told to stop,
/// refusing, drained); at `info` when it goes as planned, `warn` when not. An operator's
/// log keeps them beside the warnings (example-app's does).
pub const LIFECYCLE_TARGET: &str = "toolcall_mcp::lifecycle";

/// The name of the instrumentation scope of this crate's metrics (feature `otel`).
pub const METER_NAME: &str = "toolcall-mcp";

pub use toolcall_runtime::capture::{CAPTURE_CONTENT_ENV, MAX_CAPTURED, capture_content, captures_content};

/// The span of one MCP request being served, and what its end records.
pub(crate) struct Served {
    span: tracing::Span,
    method: &'static str,
    note: Option<HttpNote>,
    #[cfg(feature = "otel")]
    metric: otel::Metric,
}

impl Served {
    /// The server span of a request of `method` in `context` (not yet named by its
    /// target: see [`Served::tool`], [`Served::prompt`]).
    pub(crate) fn begin(method: &'static str, context: &RequestContext<RoleServer>) -> Served {
        Served::begin_on(method, context, crate::revision::version_of(context).as_ref())
    }

    /// [`Served::begin`] of a request whose revision, `spoken`, its caller has read
    /// already ([`crate::revision::version_of`]: a lookup and a clone each time).
    pub(crate) fn begin_on(
        method: &'static str,
        context: &RequestContext<RoleServer>,
        spoken: Option<&rmcp::model::ProtocolVersion>,
    ) -> Served {
        let span = tracing::info_span!(
            target: SERVER_SPAN_TARGET,
            parent: None,
            "mcp.server",
            otel.name = Empty,
            otel.kind = "server",
            otel.status_description = Empty,
            mcp.method.name = method,
            mcp.protocol.version = Empty,
            mcp.session.id = Empty,
            mcp.resource.uri = Empty,
            jsonrpc.request.id = Empty,
            gen_ai.operation.name = Empty,
            gen_ai.tool.name = Empty,
            gen_ai.prompt.name = Empty,
            network.transport = Empty,
            network.protocol.name = Empty,
            network.protocol.version = Empty,
            client.address = Empty,
            client.port = Empty,
            network.peer.address = Empty,
            rpc.response.status_code = Empty,
            "error.type" = Empty,
        );
        let span = unless_disabled(span);
        let parts = context.extensions.get::<::http::request::Parts>();
        let note = parts.and_then(|parts| parts.extensions.get::<HttpNote>()).cloned();
        if let Some(note) = &note {
            note.method(method, parts);
        }
        #[cfg(feature = "otel")]
        let mut metric = otel::Metric::start(method);
        let version = spoken.map(|v| v.as_str());
        #[cfg(feature = "otel")]
        metric.transport(spoken, parts);
        if !span.is_disabled() {
            span.record("otel.name", method);
            span.record("jsonrpc.request.id", tracing::field::display(&context.id));
            if let Some(version) = version {
                span.record("mcp.protocol.version", version);
            }
            match parts {
                None => {
                    span.record("network.transport", "pipe");
                }
                Some(parts) => {
                    span.record("network.transport", "tcp");
                    span.record("network.protocol.name", "http");
                    span.record("network.protocol.version", http_version(parts.version));
                    if let Some(session) = parts.headers.get("mcp-session-id") {
                        span.record("mcp.session.id", session_digest(session.as_bytes()).as_str());
                    }
                    record_addresses(&span, &parts.extensions);
                }
            }
            #[cfg(feature = "otel")]
            otel::parent(&span, &context.meta, parts);
        }
        Served {
            span,
            method,
            note,
            #[cfg(feature = "otel")]
            metric,
        }
    }

    /// Whether a subscriber records the span.
    pub(crate) fn is_recording(&self) -> bool {
        !self.span.is_disabled()
    }

    /// A `tools/call` of tool `name`; `known` gives the server's name of the tool when it
    /// has such a tool (an unknown name, the client's text, stays out of the span's name
    /// and the metric); it is asked only when something records the request.
    #[cfg_attr(not(feature = "otel"), allow(unused_mut))]
    pub(crate) fn tool(
        mut self,
        name: &str,
        known: impl FnOnce() -> Option<std::borrow::Cow<'static, str>>,
    ) -> Self {
        if self.note.is_none() && !self.is_recording() && !cfg!(feature = "otel") {
            return self;
        }
        let ours = known();
        let known = ours.is_some();
        let name = cut(name, 120);
        if let Some(note) = &self.note {
            note.tool(&name);
        }
        // The server's own name (static for the toolset's tools), cut as the client's.
        #[cfg(feature = "otel")]
        self.metric.tool(ours.map(|ours| match ours.len() <= 120 {
            true => ours,
            false => std::borrow::Cow::Owned(name.clone().into_owned()),
        }));
        if self.is_recording() {
            self.span.record("gen_ai.operation.name", "execute_tool");
            self.span.record("gen_ai.tool.name", &*name);
            if known {
                self.span.record("otel.name", format!("{} {name}", self.method).as_str());
            }
        }
        self
    }

    /// A `prompts/get` of prompt `name`; `known` as for [`Served::tool`].
    #[cfg(feature = "prompts")]
    #[cfg_attr(not(feature = "otel"), allow(unused_mut))]
    pub(crate) fn prompt(mut self, name: &str, known: bool) -> Self {
        let name = cut(name, 120);
        #[cfg(feature = "otel")]
        self.metric.prompt(known.then_some(&*name));
        if self.is_recording() {
            self.span.record("gen_ai.prompt.name", &*name);
            if known {
                self.span.record("otel.name", format!("{} {name}", self.method).as_str());
            }
        }
        self
    }

    /// A request about the resource at `uri` (an attribute only: not in the span's name).
    #[cfg(feature = "resources")]
    pub(crate) fn resource(self, uri: &str) -> Self {
        if self.is_recording() {
            self.span.record("mcp.resource.uri", &*cut(uri, 1024));
        }
        self
    }

    /// The protocol version an `initialize` asks for (the session has none yet).
    #[cfg_attr(not(feature = "otel"), allow(unused_mut))]
    pub(crate) fn protocol(mut self, version: &rmcp::model::ProtocolVersion) -> Self {
        #[cfg(feature = "otel")]
        self.metric.protocol(version);
        if self.is_recording() {
            self.span.record("mcp.protocol.version", version.as_str());
        }
        self
    }

    /// Runs `work` in the span, and records its outcome: a JSON-RPC error's code
    /// (`error.type`, `rpc.response.status_code`, status error with its message).
    pub(crate) fn run<T>(
        self,
        work: impl Future<Output = Result<T, ErrorData>>,
    ) -> impl std::future::Future<Output = Result<T, ErrorData>> {
        async move { self.run_judged(work, |_| None).await }
    }

    /// [`Served::run`], where a result `tool_error` finds a tool's error in is an error of
    /// type `tool_error` too (a `CallToolResult` with `isError`).
    pub(crate) fn run_judged<T>(
        self,
        work: impl Future<Output = Result<T, ErrorData>>,
        tool_error: fn(&T) -> Option<&CallToolResult>,
    ) -> impl std::future::Future<Output = Result<T, ErrorData>> {
        async move {
            let outcome = work.instrument(self.span.clone()).await;
            let failure = match &outcome {
                Ok(result) => tool_error(result).map(|result| Failure::Tool(error_text(result))),
                Err(error) => Some(Failure::Rpc(error)),
            };
            self.end(failure.as_ref());
            outcome
        }
    }

    fn end(self, failure: Option<&Failure<'_>>) {
        let error_type = failure.map(Failure::error_type);
        if let (Some(note), Some(kind)) = (&self.note, &error_type) {
            note.error(kind);
        }
        #[cfg(feature = "otel")]
        self.metric.finish(failure.map(|f| (f.error_type(), f.code())));
        if self.span.is_disabled() {
            return;
        }
        let Some(failure) = failure else { return };
        self.span.record("error.type", failure.error_type().as_ref());
        match failure {
            Failure::Rpc(error) => {
                self.span.record("rpc.response.status_code", error.code.0.to_string().as_str());
                self.span.record("otel.status_description", &*cut(&error.message, 256));
            }
            Failure::Tool(text) => {
                let description = match text {
                    Some(text) if captures_content() => cut(text, 256).into_owned(),
                    _ => "tool_error".to_owned(),
                };
                self.span.record("otel.status_description", description.as_str());
            }
        }
    }
}

/// How a request failed.
enum Failure<'a> {
    /// With a JSON-RPC error.
    Rpc(&'a ErrorData),
    /// With a tool's error result (`isError`), and its text.
    Tool(Option<String>),
}

impl Failure<'_> {
    /// The conventions' `error.type`: the JSON-RPC error code, or `tool_error`.
    fn error_type(&self) -> std::borrow::Cow<'static, str> {
        match self {
            Failure::Rpc(error) => error.code.0.to_string().into(),
            Failure::Tool(_) => "tool_error".into(),
        }
    }

    /// The JSON-RPC error code, when there is one.
    #[cfg(feature = "otel")]
    fn code(&self) -> Option<i32> {
        match self {
            Failure::Rpc(error) => Some(error.code.0),
            Failure::Tool(_) => None,
        }
    }
}

/// The text of a tool's error result, when content is captured (it may quote arguments).
fn error_text(result: &CallToolResult) -> Option<String> {
    if !captures_content() {
        return None;
    }
    Some(
        result
            .content
            .iter()
            .filter_map(|c| c.as_text())
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// A session id as the span records it: the first 16 bytes of its SHA-256, in hex. The
/// id is the session's key (with it, a client without tokens may use the session), so it
/// never leaves the server; its digest still tells sessions apart.
fn session_digest(id: &[u8]) -> String {
    use sha2::Digest as _;
    use std::fmt::Write as _;
    let digest = sha2::Sha256::digest(id);
    digest.iter().take(16).fold(String::with_capacity(32), |mut hex, byte| {
        let _ = write!(hex, "{byte:02x}");
        hex
    })
}

/// `span`, or [`tracing::Span::none`] when no subscriber records it. A disabled span made
/// by `info_span!` keeps its metadata when tracing's `log` feature is on (a dependency such
/// as sqlx turns it on), and until a tracing subscriber is set, each entry and exit of it
/// (two per poll of the future it instruments, two more when that future is dropped) asks
/// the `log` crate whether to write a line: about 30 instructions each, a dozen per call.
/// The span without metadata is entered and left with a test of a flag; nothing records
/// either.
fn unless_disabled(span: tracing::Span) -> tracing::Span {
    if span.is_disabled() { tracing::Span::none() } else { span }
}

/// The span of one call of tool `name` with `args`, to run the call in ([`tool_outcome`]
/// records how it ended). `description` gives the tool's, when it has one (asked only
/// when the span is recorded).
pub(crate) fn execute_tool<'a>(
    name: &str,
    args: &Value,
    description: impl FnOnce() -> Option<&'a str>,
) -> tracing::Span {
    let span = tracing::info_span!(
        target: TOOL_SPAN_TARGET,
        "execute_tool",
        otel.name = Empty,
        otel.kind = "internal",
        otel.status_description = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = name,
        "gen_ai.tool.type" = "function",
        gen_ai.tool.description = Empty,
        gen_ai.tool.call.id = Empty,
        gen_ai.tool.call.arguments = Empty,
        gen_ai.tool.call.result = Empty,
        "error.type" = Empty,
    );
    let span = unless_disabled(span);
    if !span.is_disabled() {
        span.record("otel.name", format!("execute_tool {name}").as_str());
        if let Some(description) = description().filter(|d| !d.is_empty()) {
            span.record("gen_ai.tool.description", &*cut(description, 1024));
        }
        if captures_content() {
            span.record("gen_ai.tool.call.arguments", &*cut(&args.to_string(), MAX_CAPTURED));
        }
    }
    span
}

/// Records how the call in `span` ([`execute_tool`]) ended: a tool error's kind
/// (`error.type`: `missing_argument`, `failed`, `timeout`, `busy`...), a JSON-RPC error's
/// code or `cancelled`; the result, when content is captured.
pub(crate) fn tool_outcome(span: &tracing::Span, outcome: &Result<CallToolResult, ErrorData>) {
    if span.is_disabled() {
        return;
    }
    let capture = captures_content();
    match outcome {
        Ok(result) if result.is_error == Some(true) => {
            let kind = crate::error::error_json(result)
                .and_then(|json| json.get("error"))
                .and_then(Value::as_str)
                .unwrap_or("tool_error");
            span.record("error.type", &*cut(kind, 64));
            let description = match error_text(result) {
                Some(text) => cut(&text, 256).into_owned(),
                None => kind.to_owned(),
            };
            span.record("otel.status_description", description.as_str());
        }
        Ok(result) => {
            if capture {
                let text = match &result.structured_content {
                    Some(value) => value.to_string(),
                    None => {
                        result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.as_str()).collect()
                    }
                };
                span.record("gen_ai.tool.call.result", &*cut(&text, MAX_CAPTURED));
            }
        }
        Err(error) => {
            let kind =
                if error.message == CANCELLED { "cancelled".to_owned() } else { error.code.0.to_string() };
            span.record("error.type", kind.as_str());
            span.record("otel.status_description", &*cut(&error.message, 256));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without a subscriber that records it, a call's span is entered and left without
    /// asking the `log` crate anything: it carries no metadata (tracing's `log` feature is
    /// on in this crate's tests, as sqlx turns it on in an application's build).
    #[test]
    fn a_span_nothing_records_is_entered_as_no_span() {
        let no_one = tracing::subscriber::NoSubscriber::default();
        tracing::subscriber::with_default(no_one, || {
            let span = execute_tool("add", &Value::Null, || None);
            assert!(span.is_disabled());
            assert!(span.metadata().is_none(), "a disabled span keeps its metadata: {:?}", span.metadata());
        });
    }
}
