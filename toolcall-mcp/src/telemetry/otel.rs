//! Feature `otel`: the server span's remote parent (`params._meta`, else the HTTP
//! headers, read with the global propagator) and the metric
//! `mcp.server.operation.duration`, through the `opentelemetry` API.

use std::sync::OnceLock;
use std::time::Instant;

use http::HeaderMap;
use http::request::Parts;
use opentelemetry::propagation::Extractor;
use opentelemetry::trace::TraceContextExt as _;
use opentelemetry::{Context, InstrumentationScope, KeyValue, StringValue, global};
use rmcp::model::{ProtocolVersion, RequestMetaObject};
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

use super::METER_NAME;

/// The bucket boundaries the conventions advise for `mcp.server.operation.duration`, in
/// seconds.
const BOUNDARIES: [f64; 14] =
    [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0];

/// A request's `params._meta`, as a propagator reads it (string values only).
struct Meta<'a>(&'a RequestMetaObject);

impl Extractor for Meta<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        crate::meta::entry(self.0, key).and_then(serde_json::Value::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// A request's HTTP headers, as a propagator reads them.
struct Headers<'a>(&'a HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|name| name.as_str()).collect()
    }
}

/// Parents `span` (not yet entered) on the trace context in `meta` (SEP-414), else on the
/// one in the HTTP headers of `parts`; with both, the headers' is a link (the transport's
/// context, as the conventions say). With neither, the span stays a root.
pub(super) fn parent(span: &tracing::Span, meta: &RequestMetaObject, parts: Option<&Parts>) {
    // Extracted onto an empty context: `extract` would start from the current one, and a
    // carrier without a trace context would hand that back as if it were the client's.
    let extract = |carrier: &dyn Extractor| {
        global::get_text_map_propagator(|propagator| {
            propagator.extract_with_context(&Context::new(), carrier)
        })
    };
    let from_meta = extract(&Meta(meta));
    let from_headers = parts.map(|parts| extract(&Headers(&parts.headers)));
    let from_headers = from_headers.filter(|cx| cx.span().span_context().is_valid());
    if from_meta.span().span_context().is_valid() {
        let meta_span = from_meta.span().span_context().clone();
        // No layer of tracing-opentelemetry, or a span already started: nothing to parent.
        let _ = span.set_parent(from_meta);
        if let Some(headers) = from_headers {
            let link = headers.span().span_context().clone();
            if link.span_id() != meta_span.span_id() {
                span.add_link(link);
            }
        }
    } else if let Some(headers) = from_headers {
        let _ = span.set_parent(headers);
    }
}

/// The histogram, made once from the global meter provider.
fn duration() -> &'static opentelemetry::metrics::Histogram<f64> {
    static DURATION: OnceLock<opentelemetry::metrics::Histogram<f64>> = OnceLock::new();
    DURATION.get_or_init(|| {
        let scope = InstrumentationScope::builder(METER_NAME).with_version(env!("CARGO_PKG_VERSION")).build();
        global::meter_with_scope(scope)
            .f64_histogram("mcp.server.operation.duration")
            .with_unit("s")
            .with_description(
                "MCP request or notification duration as observed on the receiver from the time it was \
                 received until the result or ack is sent.",
            )
            .with_boundaries(BOUNDARIES.to_vec())
            .build()
    })
}

/// One request's measurement of `mcp.server.operation.duration` and what its attributes
/// say, kept as the values themselves: the attributes are written when the duration is
/// recorded, and a thread's next request described the same way takes them as they are
/// (writing them for every request cost three allocations and ~1,000 instructions).
pub(super) struct Metric {
    started: Instant,
    described: Described,
}

impl Metric {
    /// Starts measuring a request of `method`.
    pub(super) fn start(method: &'static str) -> Metric {
        let described = Described { method, protocol: None, http: None, tool: None, prompt: None };
        Metric { started: Instant::now(), described }
    }

    /// The protocol version and the transport of the request.
    pub(super) fn transport(&mut self, version: Option<&ProtocolVersion>, parts: Option<&Parts>) {
        if let Some(version) = version {
            self.protocol(version);
        }
        self.described.http = parts.map(|parts| super::http_version(parts.version));
    }

    /// The protocol version (`initialize`'s, asked for), replacing any other.
    pub(super) fn protocol(&mut self, version: &ProtocolVersion) {
        self.described.protocol = Some(version.clone());
    }

    /// A `tools/call`, of a tool the server has (`Some(name)`) or not.
    pub(super) fn tool(&mut self, name: Option<std::borrow::Cow<'static, str>>) {
        self.described.tool = Some(name.map(StringValue::from));
    }

    /// A `prompts/get`, of a prompt the server has (`Some(name)`) or not.
    #[cfg(feature = "prompts")]
    pub(super) fn prompt(&mut self, name: Option<&str>) {
        self.described.prompt = name.map(|name| StringValue::from(name.to_owned()));
    }

    /// Records the duration, with `error.type` and `rpc.response.status_code` of a failure.
    /// A request described as the thread's previous one was (the same method, revision,
    /// transport and tool, no failure: most requests) is recorded with the attributes
    /// written for that one.
    pub(super) fn finish(self, failure: Option<(std::borrow::Cow<'static, str>, Option<i32>)>) {
        let seconds = self.started.elapsed().as_secs_f64();
        let described = self.described;
        if failure.is_some() {
            duration().record(seconds, &described.attributes(failure));
            return;
        }
        LAST.with_borrow_mut(|last| {
            let attributes = match last {
                Some((previous, attributes)) if *previous == described => attributes,
                _ => {
                    let attributes = described.attributes(None);
                    &last.insert((described, attributes)).1
                }
            };
            duration().record(seconds, attributes);
        });
    }
}

thread_local! {
    /// The description of the thread's last request measured without a failure, and its
    /// attributes.
    static LAST: std::cell::RefCell<Option<(Described, Vec<KeyValue>)>> =
        const { std::cell::RefCell::new(None) };
}

/// What one measurement's attributes say, kept as the values themselves.
#[derive(PartialEq)]
struct Described {
    method: &'static str,
    /// The protocol version (a known revision's without an allocation).
    protocol: Option<ProtocolVersion>,
    /// The HTTP version when over HTTP; `None` over a pipe (stdio).
    http: Option<&'static str>,
    /// A `tools/call`: the tool's name when the server has it.
    tool: Option<Option<StringValue>>,
    /// A `prompts/get` of a prompt the server has.
    prompt: Option<StringValue>,
}

impl Described {
    /// The attributes, with `error.type` and `rpc.response.status_code` of a failure.
    fn attributes(&self, failure: Option<(std::borrow::Cow<'static, str>, Option<i32>)>) -> Vec<KeyValue> {
        let mut attributes = Vec::with_capacity(MOST_ATTRIBUTES);
        let mut push = |key: &'static str, value: StringValue| {
            attributes.push(KeyValue::new(key, opentelemetry::Value::String(value)));
        };
        push("mcp.method.name", self.method.into());
        if let Some(version) = &self.protocol {
            let name = match crate::revision::known_name(version.as_str()) {
                Some(name) => StringValue::from(name),
                None => StringValue::from(version.as_str().to_owned()),
            };
            push("mcp.protocol.version", name);
        }
        match self.http {
            None => push("network.transport", "pipe".into()),
            Some(version) => {
                push("network.transport", "tcp".into());
                push("network.protocol.name", "http".into());
                push("network.protocol.version", version.into());
            }
        }
        if let Some(tool) = &self.tool {
            push("gen_ai.operation.name", "execute_tool".into());
            if let Some(name) = tool {
                push("gen_ai.tool.name", name.clone());
            }
        }
        if let Some(name) = &self.prompt {
            push("gen_ai.prompt.name", name.clone());
        }
        if let Some((kind, code)) = failure {
            push("error.type", kind.into());
            if let Some(code) = code {
                push("rpc.response.status_code", code.to_string().into());
            }
        }
        attributes
    }
}

/// The most attributes one measurement has: the method, the protocol version, three of
/// the transport, two of a tool (or one of a prompt), two of a failure.
const MOST_ATTRIBUTES: usize = 9;
