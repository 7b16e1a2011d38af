//! The trace context a request carries out (feature `otel`): the current span's
//! `traceparent`, `tracestate` and `baggage`, as the global propagator writes them, for the
//! provider requests' headers and the MCP requests' `_meta`.

use opentelemetry::global;
use opentelemetry::propagation::Injector;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

/// The trace context of the current span, as the global propagator writes it
/// (`traceparent`, `tracestate`, `baggage`), when it has one.
pub(crate) fn current() -> Vec<(String, String)> {
    struct Pairs(Vec<(String, String)>);
    impl Injector for Pairs {
        fn set(&mut self, key: &str, value: String) {
            self.0.push((key.to_owned(), value));
        }
    }
    let context = tracing::Span::current().context();
    let mut pairs = Pairs(Vec::new());
    global::get_text_map_propagator(|propagator| propagator.inject_context(&context, &mut pairs));
    pairs.0
}

/// `headers` with the current trace context added (a provider request's).
pub(crate) fn with_context(headers: &reqwest::header::HeaderMap) -> reqwest::header::HeaderMap {
    let mut headers = headers.clone();
    for (key, value) in current() {
        if let (Ok(name), Ok(value)) = (
            reqwest::header::HeaderName::from_bytes(key.as_bytes()),
            reqwest::header::HeaderValue::from_str(&value),
        ) {
            headers.insert(name, value);
        }
    }
    headers
}
