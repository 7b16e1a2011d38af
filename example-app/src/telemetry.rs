//! Traces, metrics and the request log of the app, set up once in `main`
//! ([`Telemetry::init`]).
//!
//! Always: the request log, one line per HTTP request on stderr (`serve --http`), made from
//! toolcall-mcp's request events ([`toolcall_mcp::telemetry::REQUEST_LOG_TARGET`]): the
//! method, path, status, MCP method, tool, error type, caller's id and duration, never
//! arguments, results or tokens. Nothing else is subscribed to, so every other span and
//! event is off and costs nothing.
//!
//! When `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` /
//! `..._METRICS_ENDPOINT`) is set, and `OTEL_SDK_DISABLED` is not `true`: the spans of
//! toolcall-mcp (and of the app) go to an OpenTelemetry tracer, whose batches are exported
//! over OTLP/HTTP in protobuf; the metrics (`mcp.server.operation.duration`) go to a
//! periodic reader exporting the same way; a client's `traceparent` is read with the W3C
//! trace-context and baggage propagators. The SDK reads the standard variables itself:
//! `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` (the resource),
//! `OTEL_EXPORTER_OTLP_HEADERS` and `OTEL_EXPORTER_OTLP_TIMEOUT` (and their per-signal
//! forms), `OTEL_TRACES_SAMPLER`, `OTEL_BSP_*` (the batches), `OTEL_METRIC_EXPORT_INTERVAL`.
//! `OTEL_TRACES_EXPORTER=none` or `OTEL_METRICS_EXPORTER=none` turns one signal off.
//! Tool arguments and results stay out unless
//! `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`.
//!
//! Dropping the [`Telemetry`] flushes what is buffered and stops the exporters' threads.

use std::fmt::Write as _;
use std::io::Write as _;

use opentelemetry::propagation::TextMapCompositePropagator;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{MetricExporter, Protocol, SpanExporter, WithExportConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use opentelemetry_sdk::trace::SdkTracerProvider;
use toolcall_mcp::telemetry::REQUEST_LOG_TARGET;
use tracing::field::{Field, Visit};
use tracing_subscriber::Layer as _;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt as _;

/// The name of the app's tracer (its instrumentation scope).
pub const TRACER_NAME: &str = "example-app";

/// The crates whose spans are exported: toolcall's and the app's. rmcp's own spans and
/// events are not (its debug events quote whole messages, arguments included).
const TRACED: [&str; 4] = ["toolcall_mcp", "toolcall_agent", "toolcall_runtime", "example_app"];

/// What [`Telemetry::init`] installed; dropping it flushes and stops the exporters.
#[derive(Debug, Default)]
pub struct Telemetry {
    tracer_provider: Option<SdkTracerProvider>,
    meter_provider: Option<SdkMeterProvider>,
}

/// Which signals the environment asks to export, and to where.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Export {
    /// Export traces.
    pub traces: bool,
    /// Export metrics.
    pub metrics: bool,
}

impl Export {
    /// What `var` (the environment, or a test's map) asks for: a signal is exported when
    /// an OTLP endpoint is set for it (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the signal's own)
    /// and its exporter is not `none`; nothing when `OTEL_SDK_DISABLED` is `true`.
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Export {
        let set = |name: &str| var(name).is_some_and(|value| !value.trim().is_empty());
        if var("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
            return Export::default();
        }
        let general = set("OTEL_EXPORTER_OTLP_ENDPOINT");
        let wanted = |endpoint: &str, exporter: &str| {
            (general || set(endpoint))
                && !var(exporter).is_some_and(|v| v.trim().eq_ignore_ascii_case("none"))
        };
        Export {
            traces: wanted("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER"),
            metrics: wanted("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_METRICS_EXPORTER"),
        }
    }
}

impl Telemetry {
    /// Installs the request log, and the OTLP exporters the environment asks for
    /// ([`Export::from_env`]). Call it once, before any runtime starts and before the
    /// first request (the metric's instrument is made then). An exporter that cannot be
    /// built is a warning on stderr; the app runs on without it.
    pub fn init() -> Telemetry {
        let export = Export::from_env(|name| std::env::var(name).ok());
        let mut telemetry = Telemetry::default();
        let log = RequestLog.with_filter(Targets::new().with_target(REQUEST_LOG_TARGET, LevelFilter::INFO));
        if export.traces || export.metrics {
            opentelemetry::global::set_text_map_propagator(TextMapCompositePropagator::new(vec![
                Box::new(TraceContextPropagator::new()),
                Box::new(BaggagePropagator::new()),
            ]));
        }
        let resource = || Resource::builder().build();
        if export.metrics {
            match MetricExporter::builder().with_http().with_protocol(Protocol::HttpBinary).build() {
                Ok(exporter) => {
                    let provider = SdkMeterProvider::builder()
                        .with_periodic_exporter(exporter)
                        .with_resource(resource())
                        .build();
                    opentelemetry::global::set_meter_provider(provider.clone());
                    telemetry.meter_provider = Some(provider);
                }
                Err(error) => eprintln!("warning: no metrics are exported: {error}"),
            }
        }
        let tracer = if export.traces {
            match SpanExporter::builder().with_http().with_protocol(Protocol::HttpBinary).build() {
                Ok(exporter) => {
                    let provider = SdkTracerProvider::builder()
                        .with_batch_exporter(exporter)
                        .with_resource(resource())
                        .build();
                    let tracer = provider.tracer(TRACER_NAME);
                    telemetry.tracer_provider = Some(provider);
                    Some(tracer)
                }
                Err(error) => {
                    eprintln!("warning: no traces are exported: {error}");
                    None
                }
            }
        } else {
            None
        };
        // The operator's log's `tracing` half: warnings and errors of any target.
        let warnings = crate::oplog::TracingWarnings.with_filter(LevelFilter::WARN);
        let installed = match tracer {
            Some(tracer) => {
                let traced = TRACED
                    .iter()
                    .fold(Targets::new(), |targets, target| targets.with_target(*target, LevelFilter::INFO));
                let spans = tracing_opentelemetry::layer()
                    .with_tracer(tracer)
                    .with_threads(false)
                    .with_location(false)
                    .with_tracked_inactivity(false)
                    .with_target(false)
                    .with_filter(traced);
                tracing::subscriber::set_global_default(
                    tracing_subscriber::registry().with(log).with(warnings).with(spans),
                )
            }
            None => tracing::subscriber::set_global_default(
                tracing_subscriber::registry().with(log).with(warnings),
            ),
        };
        if installed.is_err() {
            eprintln!("warning: a tracing subscriber was already installed; telemetry is off");
        }
        telemetry
    }

    /// Whether traces are exported.
    pub fn exports_traces(&self) -> bool {
        self.tracer_provider.is_some()
    }

    /// Whether metrics are exported.
    pub fn exports_metrics(&self) -> bool {
        self.meter_provider.is_some()
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Some(provider) = self.tracer_provider.take()
            && let Err(error) = provider.shutdown()
        {
            eprintln!("warning: traces not all exported: {error}");
        }
        if let Some(provider) = self.meter_provider.take()
            && let Err(error) = provider.shutdown()
        {
            eprintln!("warning: metrics not all exported: {error}");
        }
    }
}

/// Writes each request event as one line on stderr: `request` and its fields as
/// `key=value`, a value with spaces, quotes or control characters quoted and escaped (a
/// tool name is the client's text: it cannot break the line).
struct RequestLog;

/// The fields of one event, as `key=value` pairs.
struct Line(String);

impl Line {
    fn push(&mut self, key: &str, value: &str) {
        let plain =
            !value.is_empty() && !value.chars().any(|c| c.is_whitespace() || c.is_control() || c == '"');
        if key == "message" {
            self.0.insert_str(0, value);
        } else if plain {
            let _ = write!(self.0, " {key}={value}");
        } else {
            let _ = write!(self.0, " {key}={value:?}");
        }
    }
}

impl Visit for Line {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.push(field.name(), value);
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.push(field.name(), &format!("{value:?}"));
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for RequestLog {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: tracing_subscriber::layer::Context<'_, S>) {
        let mut line = Line(String::new());
        event.record(&mut line);
        line.0.push('\n');
        // One write of the whole line: lines of requests ending at once do not interleave.
        let _ = std::io::stderr().lock().write_all(line.0.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn export(vars: &[(&str, &str)]) -> Export {
        Export::from_env(|name| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v).to_owned()))
    }

    #[test]
    fn nothing_is_exported_without_an_endpoint() {
        assert_eq!(export(&[]), Export { traces: false, metrics: false });
        assert_eq!(
            export(&[("OTEL_SERVICE_NAME", "x"), ("OTEL_EXPORTER_OTLP_ENDPOINT", " ")]),
            Export::default()
        );
    }

    #[test]
    fn an_endpoint_exports_both_unless_a_signal_is_off() {
        let all = [("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")];
        assert_eq!(export(&all), Export { traces: true, metrics: true });
        let traces_only = [("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://127.0.0.1:4318/v1/traces")];
        assert_eq!(export(&traces_only), Export { traces: true, metrics: false });
        let no_metrics = [all[0], ("OTEL_METRICS_EXPORTER", "none")];
        assert_eq!(export(&no_metrics), Export { traces: true, metrics: false });
        let disabled = [all[0], ("OTEL_SDK_DISABLED", "TRUE")];
        assert_eq!(export(&disabled), Export::default());
    }

    #[test]
    fn a_log_line_cannot_be_broken_by_a_value() {
        let mut line = Line(String::new());
        line.push("url.path", "/mcp");
        line.push("gen_ai.tool.name", "evil\nrequest user.id=admin");
        line.push("message", "request");
        assert_eq!(line.0, r#"request url.path=/mcp gen_ai.tool.name="evil\nrequest user.id=admin""#);
    }
}
