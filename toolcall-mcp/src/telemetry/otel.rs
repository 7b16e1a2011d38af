//! Feature `otel`: the server span's remote parent (`params._meta`, else the HTTP
//! headers, read with the global propagator) and the metric
//! `mcp.server.operation.duration`, through the `opentelemetry` API.

use std::sync::OnceLock;
use std::time::Instant;

use http::HeaderMap;
use http::request::Parts;
use opentelemetry::propagation::Extractor;
use opentelemetry::trace::TraceContextExt as _;
use opentelemetry::{Context, InstrumentationScope, KeyValue, global};
use rmcp::model::RequestMetaObject;
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

/// One request's measurement of `mcp.server.operation.duration` and its attributes.
pub(super) struct Metric {
    started: Instant,
    attributes: Vec<KeyValue>,
}

impl Metric {
    /// Starts measuring a request of `method`.
    pub(super) fn start(method: &'static str) -> Metric {
        let mut attributes = Vec::with_capacity(8);
        attributes.push(KeyValue::new("mcp.method.name", method));
        Metric { started: Instant::now(), attributes }
    }

    /// The protocol version and the transport of the request.
    pub(super) fn transport(&mut self, version: Option<&str>, parts: Option<&Parts>) {
        if let Some(version) = version {
            self.protocol(version);
        }
        match parts {
            None => self.attributes.push(KeyValue::new("network.transport", "pipe")),
            Some(parts) => {
                self.attributes.push(KeyValue::new("network.transport", "tcp"));
                self.attributes.push(KeyValue::new("network.protocol.name", "http"));
                self.attributes
                    .push(KeyValue::new("network.protocol.version", super::http_version(parts.version)));
            }
        }
    }

    /// The protocol version (`initialize`'s, asked for), replacing any other.
    pub(super) fn protocol(&mut self, version: &str) {
        self.attributes.retain(|kv| kv.key.as_str() != "mcp.protocol.version");
        self.attributes.push(KeyValue::new("mcp.protocol.version", version.to_owned()));
    }

    /// A `tools/call`, of a tool the server has (`Some(name)`) or not.
    pub(super) fn tool(&mut self, name: Option<&str>) {
        self.attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
        if let Some(name) = name {
            self.attributes.push(KeyValue::new("gen_ai.tool.name", name.to_owned()));
        }
    }

    /// A `prompts/get`, of a prompt the server has (`Some(name)`) or not.
    #[cfg(feature = "prompts")]
    pub(super) fn prompt(&mut self, name: Option<&str>) {
        if let Some(name) = name {
            self.attributes.push(KeyValue::new("gen_ai.prompt.name", name.to_owned()));
        }
    }

    /// Records the duration, with `error.type` and `rpc.response.status_code` of a failure.
    pub(super) fn finish(mut self, failure: Option<(std::borrow::Cow<'static, str>, Option<i32>)>) {
        let seconds = self.started.elapsed().as_secs_f64();
        if let Some((kind, code)) = failure {
            self.attributes.push(KeyValue::new("error.type", kind));
            if let Some(code) = code {
                self.attributes.push(KeyValue::new("rpc.response.status_code", code.to_string()));
            }
        }
        duration().record(seconds, &self.attributes);
    }
}
