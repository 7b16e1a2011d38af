//! Feature `otel`: the spans as OpenTelemetry spans (tracing-opentelemetry over the SDK,
//! in-memory exporters), parented on the trace context a client sends in `params._meta`
//! or in the HTTP headers (a link when both), and the metric
//! `mcp.server.operation.duration`. (`cargo test -p toolcall-mcp --features otel --test
//! telemetry_otel`; a workspace test run has the feature through example-app.)

#![cfg(feature = "otel")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use example_app::App;
use example_app::app::Store;
use example_app::models::{Role, User};
use opentelemetry::trace::{SpanId, SpanKind, Status, TraceId, TracerProvider as _};
use opentelemetry::{KeyValue, Value as OtelValue};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use rmcp::model::{CallToolRequestParams, ProtocolVersion, RequestParamsMeta as _};
use serde_json::json;
use toolcall_mcp::McpServer;
use tracing_subscriber::layer::SubscriberExt as _;

mod common;
use common::connect;
use common::net::post;

/// The SDK behind the global subscriber, propagator and meter provider of this test
/// binary, installed once (the metric's instrument is made at the first request).
struct Otel {
    spans: InMemorySpanExporter,
    metrics: InMemoryMetricExporter,
    meter_provider: SdkMeterProvider,
    _tracer_provider: SdkTracerProvider,
}

fn otel() -> &'static Otel {
    static OTEL: OnceLock<Otel> = OnceLock::new();
    OTEL.get_or_init(|| {
        opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
        let spans = InMemorySpanExporter::default();
        let tracer_provider = SdkTracerProvider::builder().with_simple_exporter(spans.clone()).build();
        let metrics = InMemoryMetricExporter::default();
        let meter_provider =
            SdkMeterProvider::builder().with_reader(PeriodicReader::builder(metrics.clone()).build()).build();
        opentelemetry::global::set_meter_provider(meter_provider.clone());
        let layer = tracing_opentelemetry::layer().with_tracer(tracer_provider.tracer("test"));
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer)).unwrap();
        Otel { spans, metrics, meter_provider, _tracer_provider: tracer_provider }
    })
}

/// The tests share the exporters: one at a time.
async fn serial() -> tokio::sync::MutexGuard<'static, ()> {
    static LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    LOCK.lock().await
}

fn app() -> App {
    let store = Arc::new(Store::seeded(Duration::ZERO));
    App::for_user(&store, User { id: 1, name: "Ada".into(), role: Role::Editor })
}

const TRACE: &str = "0af7651916cd43dd8448eb211c80319c";
const CLIENT_SPAN: &str = "b7ad6b7169203331";
const HTTP_SPAN: &str = "00f067aa0ba902b7";

fn traceparent(span: &str) -> String {
    format!("00-{TRACE}-{span}-01")
}

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a OtelValue> {
    span.attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| &kv.value)
}

fn text(span: &SpanData, key: &str) -> Option<String> {
    attribute(span, key).map(|v| v.as_str().into_owned())
}

/// The spans finished so far, named `name`.
fn named(name: &str) -> Vec<SpanData> {
    otel().spans.get_finished_spans().unwrap().into_iter().filter(|s| s.name == name).collect()
}

/// A `_meta` traceparent parents the server span (kind server, the conventions'
/// attributes), whose `execute_tool` span (kind internal) is its child; a tool error is
/// the status error `tool_error` on the one and the error kind on the other; without a
/// traceparent the server span is a root.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_traceparent_in_meta_parents_the_server_span() {
    let _serial = serial().await;
    otel().spans.reset();
    let client = connect(McpServer::new(&example_app::toolset::ALL, app())).await;
    let mut params = CallToolRequestParams::new("add")
        .with_arguments(json!({"a": 2, "b": 40}).as_object().cloned().unwrap());
    params.set_traceparent(&traceparent(CLIENT_SPAN));
    params.set_tracestate("vendor=abc");
    client.call_tool(params).await.unwrap();
    let unparented =
        CallToolRequestParams::new("add").with_arguments(json!({"a": 2}).as_object().cloned().unwrap());
    let failed = client.call_tool(unparented).await.unwrap();
    assert_eq!(failed.is_error, Some(true));

    let served = named("tools/call add");
    assert_eq!(served.len(), 2, "{served:#?}");
    let (call, failed_call) = (&served[0], &served[1]);
    assert_eq!(call.span_kind, SpanKind::Server);
    assert_eq!(call.span_context.trace_id(), TraceId::from_hex(TRACE).unwrap());
    assert_eq!(call.parent_span_id, SpanId::from_hex(CLIENT_SPAN).unwrap());
    assert!(call.parent_span_is_remote);
    assert_eq!(call.span_context.trace_state().header(), "vendor=abc");
    assert_eq!(text(call, "mcp.method.name").as_deref(), Some("tools/call"));
    assert_eq!(text(call, "gen_ai.tool.name").as_deref(), Some("add"));
    assert_eq!(text(call, "gen_ai.operation.name").as_deref(), Some("execute_tool"));
    assert_eq!(text(call, "network.transport").as_deref(), Some("pipe"));
    assert!(text(call, "jsonrpc.request.id").is_some());
    assert!(text(call, "mcp.protocol.version").is_some());
    assert_eq!(call.status, Status::Unset);

    assert_eq!(failed_call.parent_span_id, SpanId::INVALID, "no traceparent: a root");
    assert_ne!(failed_call.span_context.trace_id(), call.span_context.trace_id());
    assert_eq!(text(failed_call, "error.type").as_deref(), Some("tool_error"));
    assert_eq!(failed_call.status, Status::error("tool_error"));

    let tools = named("execute_tool add");
    assert_eq!(tools.len(), 2);
    for (tool, request) in tools.iter().zip(&served) {
        assert_eq!(tool.span_kind, SpanKind::Internal);
        assert_eq!(tool.parent_span_id, request.span_context.span_id());
        assert_eq!(tool.span_context.trace_id(), request.span_context.trace_id());
        assert_eq!(text(tool, "gen_ai.operation.name").as_deref(), Some("execute_tool"));
        assert_eq!(text(tool, "gen_ai.tool.name").as_deref(), Some("add"));
        assert_eq!(text(tool, "gen_ai.tool.type").as_deref(), Some("function"));
    }
    assert_eq!(text(&tools[1], "error.type").as_deref(), Some("missing_argument"));
    assert_eq!(tools[1].status, Status::error("missing_argument"));
    client.cancel().await.unwrap();
}

/// A stateless HTTP call of `tool` with `meta` in its `_meta` and `extra` headers.
async fn http_call(uri: &str, id: u64, meta: serde_json::Value, extra: &[(&str, &str)]) {
    let mut meta_object = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    meta_object.as_object_mut().unwrap().extend(meta.as_object().cloned().unwrap_or_default());
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "get_weather", "arguments": {"city": "Oslo"}, "_meta": meta_object}
    });
    let mut headers = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "get_weather"),
    ];
    headers.extend_from_slice(extra);
    let (status, _, text) = post(uri, body.to_string(), &headers).await;
    assert_eq!(status, 200, "{text}");
}

/// Over HTTP: a `traceparent` header parents the server span when `_meta` has none; with
/// both, `_meta`'s is the parent and the header's a link.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_headers_parent_the_span_or_link_to_it() {
    let _serial = serial().await;
    otel().spans.reset();
    let uri = common::net::serve(McpServer::new(&example_app::toolset::ALL, app())).await;
    let header_parent = traceparent(HTTP_SPAN);
    http_call(&uri, 11, json!({}), &[("traceparent", header_parent.as_str())]).await;
    http_call(
        &uri,
        12,
        json!({"traceparent": traceparent(CLIENT_SPAN)}),
        &[("traceparent", header_parent.as_str())],
    )
    .await;
    let served = named("tools/call get_weather");
    assert_eq!(served.len(), 2, "{served:#?}");
    let by_id =
        |id: &str| served.iter().find(|s| text(s, "jsonrpc.request.id").as_deref() == Some(id)).unwrap();
    let (headers_only, both) = (by_id("11"), by_id("12"));
    assert_eq!(headers_only.parent_span_id, SpanId::from_hex(HTTP_SPAN).unwrap());
    assert!(headers_only.links.is_empty());
    assert_eq!(both.parent_span_id, SpanId::from_hex(CLIENT_SPAN).unwrap());
    let links: Vec<SpanId> = both.links.iter().map(|link| link.span_context.span_id()).collect();
    assert_eq!(links, [SpanId::from_hex(HTTP_SPAN).unwrap()]);
    for span in [headers_only, both] {
        assert_eq!(span.span_kind, SpanKind::Server);
        assert_eq!(text(span, "network.transport").as_deref(), Some("tcp"));
        assert_eq!(text(span, "network.protocol.name").as_deref(), Some("http"));
        assert_eq!(text(span, "mcp.protocol.version").as_deref(), Some("2026-07-28"));
        assert!(matches!(attribute(span, "client.port"), Some(OtelValue::I64(port)) if *port > 0));
    }
}

/// `mcp.server.operation.duration`: a histogram in seconds with the conventions' bucket
/// boundaries, one series per method, tool, transport and error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operation_durations_are_recorded() {
    let _serial = serial().await;
    let otel = otel();
    let client = connect(McpServer::new(&example_app::toolset::ALL, app())).await;
    let args = |value: serde_json::Value| value.as_object().cloned().unwrap();
    // Two calls alike (the second is recorded with the attributes written for the first,
    // on its thread), one that fails between and after them.
    let add = || CallToolRequestParams::new("add").with_arguments(args(json!({"a": 1, "b": 2})));
    client.call_tool(add()).await.unwrap();
    client.call_tool(CallToolRequestParams::new("add").with_arguments(args(json!({"b": 2})))).await.unwrap();
    client.call_tool(add()).await.unwrap();
    client.call_tool(add()).await.unwrap();
    assert!(client.call_tool(CallToolRequestParams::new("nope")).await.is_err());
    client.cancel().await.unwrap();
    otel.meter_provider.force_flush().unwrap();

    let mut points: Vec<(Vec<KeyValue>, u64, Vec<f64>)> = Vec::new();
    for resource in otel.metrics.get_finished_metrics().unwrap() {
        for scope in resource.scope_metrics() {
            for metric in scope.metrics().filter(|m| m.name() == "mcp.server.operation.duration") {
                assert_eq!(scope.scope().name(), toolcall_mcp::telemetry::METER_NAME);
                assert_eq!(metric.unit(), "s");
                let AggregatedMetrics::F64(MetricData::Histogram(histogram)) = metric.data() else {
                    panic!("not an f64 histogram: {metric:?}");
                };
                for point in histogram.data_points() {
                    let mut attributes: Vec<KeyValue> = point.attributes().cloned().collect();
                    attributes.sort_by(|a, b| a.key.as_str().cmp(b.key.as_str()));
                    points.push((attributes, point.count(), point.bounds().collect()));
                }
            }
        }
    }
    let has = |wanted: &[(&str, &str)], absent: &[&str]| {
        points.iter().any(|(attributes, count, bounds)| {
            *count >= 1
                && bounds.first() == Some(&0.01)
                && bounds.last() == Some(&300.0)
                && wanted.iter().all(|(k, v)| {
                    attributes.iter().any(|kv| kv.key.as_str() == *k && kv.value.as_str() == *v)
                })
                && absent.iter().all(|k| attributes.iter().all(|kv| kv.key.as_str() != *k))
        })
    };
    let call = [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "add"),
        ("gen_ai.operation.name", "execute_tool"),
        ("network.transport", "pipe"),
    ];
    assert!(has(&call, &["error.type", "rpc.response.status_code"]), "{points:#?}");
    let successes: u64 = points
        .iter()
        .filter(|(attributes, ..)| {
            call.iter()
                .all(|(k, v)| attributes.iter().any(|kv| kv.key.as_str() == *k && kv.value.as_str() == *v))
                && attributes.iter().all(|kv| kv.key.as_str() != "error.type")
        })
        .map(|(_, count, _)| count)
        .sum();
    // (The other tests of this file, on the same meter provider, call `add` too.)
    assert!(successes >= 3, "each successful call is measured, in its series: {successes}: {points:#?}");
    let mut failed = call.to_vec();
    failed.push(("error.type", "tool_error"));
    assert!(has(&failed, &["rpc.response.status_code"]), "{points:#?}");
    let unknown =
        [("mcp.method.name", "tools/call"), ("error.type", "-32602"), ("rpc.response.status_code", "-32602")];
    assert!(has(&unknown, &["gen_ai.tool.name"]), "an unknown tool's name is no series: {points:#?}");
    assert!(has(&[("mcp.method.name", "initialize")], &[]), "{points:#?}");
    // Each series names the revision spoken (the one `initialize` asked for, then agreed).
    let value = |attributes: &[KeyValue], key: &str| {
        attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| kv.value.as_str().into_owned())
    };
    for (attributes, ..) in &points {
        let version = value(attributes, "mcp.protocol.version");
        assert!(
            version
                .as_deref()
                .is_some_and(|v| ProtocolVersion::KNOWN_VERSIONS.iter().any(|k| k.as_str() == v)),
            "{attributes:?}"
        );
    }
}
