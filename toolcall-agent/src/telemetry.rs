//! Traces and metrics of a run, in OpenTelemetry's GenAI semantic conventions, through
//! the [`tracing`] crate.
//!
//! A run ([`Agent::run`](crate::Agent::run) and its kin) is a span `invoke_agent`; each
//! request to the model a span `chat {gen_ai.request.model}` of kind client under it, with
//! the provider, the model, the tokens and the finish reasons; each tool call a span
//! `execute_tool {gen_ai.tool.name}` under the run's, with the model's call id (and, for
//! an MCP server's tool, `mcp.method.name = tools/call`). Their attributes are tracing
//! fields named as the conventions name them, with `otel.name`, `otel.kind` and
//! `otel.status_description` for
//! [`tracing-opentelemetry`](https://docs.rs/tracing-opentelemetry). Without a
//! subscriber none of it is built.
//!
//! With the cargo feature `otel`: the trace context of the current span (the `chat` span,
//! the `execute_tool` span) is written, with the global propagator, into the headers of
//! each provider request and into the `params._meta` of each MCP `tools/call` (SEP-414),
//! so a server's spans join the run's trace; and the metrics
//! `gen_ai.client.operation.duration` (seconds) and `gen_ai.client.token.usage`
//! (tokens, per `gen_ai.token.type`) are recorded with the global meter provider,
//! installed before the first request (the instruments are made once).
//!
//! Tool arguments and results (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`)
//! are recorded only with [`capture_content`] or
//! `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`; prompts and answers never.

use std::future::Future;
#[cfg(feature = "otel")]
use std::time::Instant;

use tracing::Instrument as _;
use tracing::field::Empty;

use toolcall_runtime::capture::cut;

use crate::error::AgentError;
use crate::message::{ModelResponse, ToolCall, Usage};
use crate::providers::{Endpoint, Provider};

/// The tracing target of the run's span (`invoke_agent`).
pub const AGENT_SPAN_TARGET: &str = "toolcall_agent::agent";

/// The tracing target of the model requests' spans (`chat {model}`).
pub const CHAT_SPAN_TARGET: &str = "toolcall_agent::chat";

/// The tracing target of the tool calls' spans (`execute_tool {name}`).
pub const TOOL_SPAN_TARGET: &str = "toolcall_agent::tool";

/// The name of the instrumentation scope of this crate's metrics (feature `otel`).
pub const METER_NAME: &str = "toolcall-agent";

pub use toolcall_runtime::capture::{CAPTURE_CONTENT_ENV, MAX_CAPTURED, capture_content, captures_content};

/// A count of tokens as an attribute: an integer (tracing-opentelemetry writes a `u64` as
/// text).
fn tokens(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// The conventions' `gen_ai.provider.name` of `provider`.
fn provider_name(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAi | Provider::OpenAiResponses => "openai",
        Provider::Anthropic => "anthropic",
        Provider::Gemini => "gcp.gemini",
    }
}

/// `host` and `port` of an http(s) URL (the port the scheme's when not written).
fn server_of(url: &str) -> Option<(String, u16)> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    let default = if scheme.eq_ignore_ascii_case("https") { 443 } else { 80 };
    match authority.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(']') || authority.starts_with('[') => match port.parse() {
            Ok(port) => Some((host.to_owned(), port)),
            Err(_) => Some((authority.to_owned(), default)),
        },
        _ => Some((authority.to_owned(), default)),
    }
}

/// The conventions' `error.type` of a run's or a request's error: the HTTP status, or
/// the kind of failure.
fn error_type(error: &AgentError) -> String {
    match error {
        AgentError::Http { status, .. } | AgentError::RetryAfter { status, .. } => status.to_string(),
        AgentError::Connection { .. } => "connection".to_owned(),
        AgentError::Config(_) => "config".to_owned(),
        AgentError::Definitions(_) => "definitions".to_owned(),
        AgentError::Malformed { .. } => "malformed".to_owned(),
        AgentError::TurnLimit(_) => "turn_limit".to_owned(),
        AgentError::Request(_) => "request".to_owned(),
        AgentError::Provider(_) => "provider".to_owned(),
        AgentError::Model(_) => "model".to_owned(),
        AgentError::ToolRetries { .. } => "tool_retries".to_owned(),
        AgentError::Mcp { .. } => "mcp".to_owned(),
        AgentError::UsageLimit { .. } => "usage_limit".to_owned(),
        AgentError::Output { .. } => "output".to_owned(),
        _ => "_OTHER".to_owned(),
    }
}

/// What the spans and metrics say of the model: its provider, its name and where it is
/// (none of them for a [`Model`](crate::Model) of your own).
#[derive(Clone, Debug, Default)]
pub(crate) struct Backend {
    provider: Option<&'static str>,
    model: Option<String>,
    server: Option<(String, u16)>,
}

impl Backend {
    /// The backend of an agent over HTTP with `settings`.
    pub(crate) fn http(settings: &Endpoint) -> Backend {
        Backend {
            provider: Some(provider_name(settings.provider)),
            model: Some(settings.model.clone()),
            server: server_of(&settings.base_url),
        }
    }
}

/// The span of one run, `invoke_agent`, not yet entered.
pub(crate) fn invoke_agent(backend: &Backend) -> tracing::Span {
    let span = tracing::info_span!(
        target: AGENT_SPAN_TARGET,
        "invoke_agent",
        otel.kind = "internal",
        otel.status_description = Empty,
        gen_ai.operation.name = "invoke_agent",
        gen_ai.provider.name = Empty,
        gen_ai.request.model = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        "error.type" = Empty,
    );
    if !span.is_disabled() {
        if let Some(provider) = backend.provider {
            span.record("gen_ai.provider.name", provider);
        }
        if let Some(model) = &backend.model {
            span.record("gen_ai.request.model", model.as_str());
        }
    }
    span
}

/// Records how a run in `span` ([`invoke_agent`]) ended: its tokens, or its error.
pub(crate) fn agent_outcome(span: &tracing::Span, outcome: Result<Usage, &AgentError>) {
    if span.is_disabled() {
        return;
    }
    match outcome {
        Ok(usage) => {
            span.record("gen_ai.usage.input_tokens", tokens(usage.input_tokens));
            span.record("gen_ai.usage.output_tokens", tokens(usage.output_tokens));
        }
        Err(error) => {
            span.record("error.type", error_type(error).as_str());
            span.record("otel.status_description", &*cut(&error.to_string(), 256));
        }
    }
}

/// One request to the model: its span `chat {model}` and, with `otel`, its metrics.
pub(crate) struct Chat<'a> {
    span: tracing::Span,
    #[cfg_attr(not(feature = "otel"), allow(dead_code))]
    backend: &'a Backend,
    #[cfg(feature = "otel")]
    started: Instant,
}

impl<'a> Chat<'a> {
    /// The request's span, under the current one (the run's).
    pub(crate) fn start(backend: &'a Backend) -> Chat<'a> {
        let span = tracing::info_span!(
            target: CHAT_SPAN_TARGET,
            "chat",
            otel.name = Empty,
            otel.kind = "client",
            otel.status_description = Empty,
            gen_ai.operation.name = "chat",
            gen_ai.provider.name = Empty,
            gen_ai.request.model = Empty,
            gen_ai.usage.input_tokens = Empty,
            gen_ai.usage.output_tokens = Empty,
            gen_ai.response.finish_reasons = Empty,
            server.address = Empty,
            server.port = Empty,
            "error.type" = Empty,
        );
        if !span.is_disabled() {
            match &backend.model {
                Some(model) => {
                    span.record("otel.name", format!("chat {model}").as_str());
                    span.record("gen_ai.request.model", model.as_str());
                }
                None => {
                    span.record("otel.name", "chat");
                }
            }
            if let Some(provider) = backend.provider {
                span.record("gen_ai.provider.name", provider);
            }
            if let Some((host, port)) = &backend.server {
                span.record("server.address", host.as_str());
                span.record("server.port", i64::from(*port));
            }
        }
        Chat {
            span,
            backend,
            #[cfg(feature = "otel")]
            started: Instant::now(),
        }
    }

    /// Runs `request` in the span; records its tokens and finish reasons, or its error.
    pub(crate) async fn run(
        self,
        request: impl Future<Output = Result<ModelResponse, AgentError>>,
    ) -> Result<ModelResponse, AgentError> {
        let reply = request.instrument(self.span.clone()).await;
        #[cfg(feature = "otel")]
        otel::chat(self.backend, self.started, &reply);
        if self.span.is_disabled() {
            return reply;
        }
        match &reply {
            Ok(reply) => {
                self.span.record("gen_ai.usage.input_tokens", tokens(reply.usage.input_tokens));
                self.span.record("gen_ai.usage.output_tokens", tokens(reply.usage.output_tokens));
                if let Some(reason) = &reply.finish_reason {
                    let reasons = serde_json::json!([reason]).to_string();
                    self.span.record("gen_ai.response.finish_reasons", reasons.as_str());
                }
            }
            Err(error) => {
                self.span.record("error.type", error_type(error).as_str());
                self.span.record("otel.status_description", &*cut(&error.to_string(), 256));
            }
        }
        reply
    }
}

/// The span of the call `call` of a compiled tool (`external` false) or of an MCP server's
/// (`true`), under the current one (the run's), not yet entered.
pub(crate) fn execute_tool(call: &ToolCall, external: bool) -> tracing::Span {
    let span = tracing::info_span!(
        target: TOOL_SPAN_TARGET,
        "execute_tool",
        otel.name = Empty,
        otel.kind = "internal",
        otel.status_description = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = Empty,
        gen_ai.tool.call.id = Empty,
        "gen_ai.tool.type" = Empty,
        gen_ai.tool.call.arguments = Empty,
        gen_ai.tool.call.result = Empty,
        mcp.method.name = Empty,
        "error.type" = Empty,
    );
    if !span.is_disabled() {
        let name = cut(&call.name, 120);
        span.record("otel.name", format!("execute_tool {name}").as_str());
        span.record("gen_ai.tool.name", &*name);
        span.record("gen_ai.tool.call.id", &*cut(&call.id, 256));
        span.record("gen_ai.tool.type", if external { "extension" } else { "function" });
        if external {
            span.record("mcp.method.name", "tools/call");
        }
        if captures_content() {
            span.record("gen_ai.tool.call.arguments", &*cut(&call.arguments, MAX_CAPTURED));
        }
    }
    span
}

/// Records how the call in `span` ([`execute_tool`]) ended: the kind of its error
/// ([`ToolError::kind`](toolcall_runtime::ToolError::kind)) as `error.type`, or its
/// answer `content` when content is captured.
pub(crate) fn tool_outcome(span: &tracing::Span, error: Option<&'static str>, content: &str) {
    if span.is_disabled() {
        return;
    }
    match error {
        Some(kind) => {
            span.record("error.type", kind);
            span.record("otel.status_description", kind);
        }
        None if captures_content() => {
            span.record("gen_ai.tool.call.result", &*cut(content, MAX_CAPTURED));
        }
        None => {}
    }
}

/// Runs `work` in `span` when something records it.
pub(crate) async fn within<T>(span: &tracing::Span, work: impl Future<Output = T>) -> T {
    if span.is_disabled() { work.await } else { work.instrument(span.clone()).await }
}

/// Feature `otel`: the trace context written into requests, and the metrics.
#[cfg(feature = "otel")]
pub(crate) mod otel {
    use std::sync::OnceLock;
    use std::time::Instant;

    use opentelemetry::metrics::Histogram;
    use opentelemetry::{InstrumentationScope, KeyValue, global};

    use super::{Backend, METER_NAME, error_type};
    use crate::error::AgentError;
    use crate::message::ModelResponse;

    /// The buckets the conventions advise for `gen_ai.client.operation.duration`.
    const DURATION_BOUNDARIES: [f64; 14] =
        [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

    /// The buckets the conventions advise for `gen_ai.client.token.usage`.
    const TOKEN_BOUNDARIES: [f64; 14] = [
        1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0, 4194304.0,
        16777216.0, 67108864.0,
    ];

    struct Instruments {
        duration: Histogram<f64>,
        tokens: Histogram<u64>,
    }

    fn instruments() -> &'static Instruments {
        static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();
        INSTRUMENTS.get_or_init(|| {
            let scope =
                InstrumentationScope::builder(METER_NAME).with_version(env!("CARGO_PKG_VERSION")).build();
            let meter = global::meter_with_scope(scope);
            Instruments {
                duration: meter
                    .f64_histogram("gen_ai.client.operation.duration")
                    .with_unit("s")
                    .with_description("GenAI operation duration.")
                    .with_boundaries(DURATION_BOUNDARIES.to_vec())
                    .build(),
                tokens: meter
                    .u64_histogram("gen_ai.client.token.usage")
                    .with_unit("{token}")
                    .with_description("Number of input and output tokens used.")
                    .with_boundaries(TOKEN_BOUNDARIES.to_vec())
                    .build(),
            }
        })
    }

    /// Records one `chat` request's duration and, when it answered, its tokens.
    pub(crate) fn chat(backend: &Backend, started: Instant, reply: &Result<ModelResponse, AgentError>) {
        let seconds = started.elapsed().as_secs_f64();
        let mut attributes = vec![KeyValue::new("gen_ai.operation.name", "chat")];
        if let Some(provider) = backend.provider {
            attributes.push(KeyValue::new("gen_ai.provider.name", provider));
        }
        if let Some(model) = &backend.model {
            attributes.push(KeyValue::new("gen_ai.request.model", model.clone()));
        }
        if let Some((host, port)) = &backend.server {
            attributes.push(KeyValue::new("server.address", host.clone()));
            attributes.push(KeyValue::new("server.port", i64::from(*port)));
        }
        let instruments = instruments();
        match reply {
            Ok(reply) => {
                instruments.duration.record(seconds, &attributes);
                for (kind, count) in
                    [("input", reply.usage.input_tokens), ("output", reply.usage.output_tokens)]
                {
                    attributes.push(KeyValue::new("gen_ai.token.type", kind));
                    instruments.tokens.record(count, &attributes);
                    attributes.pop();
                }
            }
            Err(error) => {
                attributes.push(KeyValue::new("error.type", error_type(error)));
                instruments.duration.record(seconds, &attributes);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_are_read_from_base_urls() {
        let server = |url: &str| server_of(url);
        assert_eq!(server("https://api.openai.com/v1"), Some(("api.openai.com".into(), 443)));
        assert_eq!(server("http://127.0.0.1:11434/v1"), Some(("127.0.0.1".into(), 11434)));
        assert_eq!(server("http://[::1]:8080/v1"), Some(("[::1]".into(), 8080)));
        assert_eq!(server("http://user:pw@host/v1"), Some(("host".into(), 80)));
        assert_eq!(server("not a url"), None);
    }

    #[test]
    fn errors_have_low_cardinality_types() {
        let http = AgentError::Http { status: 429, message: "slow down".into() };
        assert_eq!(error_type(&http), "429");
        assert_eq!(error_type(&AgentError::TurnLimit(3)), "turn_limit");
    }
}
