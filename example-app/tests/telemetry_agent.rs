//! One agent run through MCP, traced end to end (toolcall-agent and toolcall-mcp with
//! their feature `otel`, tracing-opentelemetry over the SDK's in-memory exporters): the
//! run's `invoke_agent` span, its `chat {model}` spans (whose context the provider
//! requests carry as `traceparent`), its `execute_tool` span of the MCP server's tool,
//! whose context the `tools/call` carries in `params._meta`, so the server's
//! `tools/call get_weather` span is its child and the server's `execute_tool get_weather`
//! a grandchild, all in one trace; and the agent's metrics `gen_ai.client.operation.duration`
//! and `gen_ai.client.token.usage`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;

use example_app::{App, toolset};
use opentelemetry::trace::{SpanId, SpanKind, TraceId, TracerProvider as _};
use opentelemetry::{KeyValue, Value as OtelValue};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use toolcall_agent::{Agent, McpToolset};
use toolcall_mcp::McpServer;
use tracing_subscriber::layer::SubscriberExt as _;

#[path = "../../toolcall-agent/tests/common/mod.rs"]
mod common;
use common::{Server, answer, tool_calls};

fn text(span: &SpanData, key: &str) -> Option<String> {
    span.attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| kv.value.as_str().into_owned())
}

fn int(span: &SpanData, key: &str) -> Option<i64> {
    match span.attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| &kv.value) {
        Some(OtelValue::I64(value)) => Some(*value),
        _ => None,
    }
}

/// `traceparent`'s trace and span ids.
fn ids(traceparent: &str) -> (TraceId, SpanId) {
    let parts: Vec<&str> = traceparent.split('-').collect();
    (TraceId::from_hex(parts[1]).unwrap(), SpanId::from_hex(parts[2]).unwrap())
}

/// The SDK behind this test binary's global subscriber, propagator and meter provider,
/// installed once, before any request.
struct Otel {
    spans: InMemorySpanExporter,
    metrics: InMemoryMetricExporter,
    meter_provider: SdkMeterProvider,
    _tracer_provider: SdkTracerProvider,
}

fn otel() -> &'static Otel {
    static OTEL: std::sync::OnceLock<Otel> = std::sync::OnceLock::new();
    OTEL.get_or_init(|| {
        opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
        let spans = InMemorySpanExporter::default();
        let tracer_provider = SdkTracerProvider::builder().with_simple_exporter(spans.clone()).build();
        let metrics = InMemoryMetricExporter::default();
        let meter_provider =
            SdkMeterProvider::builder().with_reader(PeriodicReader::builder(metrics.clone()).build()).build();
        opentelemetry::global::set_meter_provider(meter_provider.clone());
        let layer =
            tracing_opentelemetry::layer().with_tracer(tracer_provider.tracer("test")).with_target(false);
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer)).unwrap();
        Otel { spans, metrics, meter_provider, _tracer_provider: tracer_provider }
    })
}

/// A provider error ends the run: its `chat` span and the run's carry the HTTP status as
/// `error.type`, and status error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_request_is_an_error_on_its_spans() {
    let otel = otel();
    let model = Server::start(vec![common::status(400, r#"{"error":{"message":"bad model"}}"#)]).await;
    let agent = Agent::new(&toolset::ALL, App::demo(), model.base_url.clone()).model("gpt-missing");
    assert!(agent.run("hi", |_| {}).await.is_err());
    let finished = otel.spans.get_finished_spans().unwrap();
    let chat = finished.iter().find(|s| s.name == "chat gpt-missing").unwrap();
    let run = finished.iter().find(|s| s.span_context.span_id() == chat.parent_span_id).unwrap();
    assert_eq!(run.name, "invoke_agent");
    for span in [chat, run] {
        assert_eq!(text(span, "error.type").as_deref(), Some("400"), "{span:#?}");
        assert!(
            matches!(&span.status, opentelemetry::trace::Status::Error { description } if description.contains("bad model"))
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_agent_run_through_mcp_is_one_trace() {
    let Otel { spans, metrics, meter_provider, .. } = otel();

    // The MCP server, and the model, which asks for the server's get_weather once.
    let uri = {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(McpServer::new(&toolset::ALL, App::demo()).serve_http_on(listener));
        format!("http://{addr}/mcp")
    };
    let model = Server::start(vec![
        tool_calls(&[("call_1", "remote_get_weather", r#"{"city":"Oslo"}"#)]),
        answer("It is 21.5 °C in Oslo."),
    ])
    .await;
    let remote = McpToolset::http(uri).prefix("remote").connect().await.unwrap();
    let agent = Agent::new(&toolset::ALL, App::demo(), model.base_url.clone()).model("gpt-test").mcp(remote);
    let outcome = agent.run("What is the weather in Oslo?", |_| {}).await.unwrap();
    assert_eq!(outcome.answer, "It is 21.5 °C in Oslo.");

    let finished = spans.get_finished_spans().unwrap();
    let named = |name: &str| -> Vec<&SpanData> { finished.iter().filter(|s| s.name == name).collect() };
    let one = |name: &str| -> &SpanData {
        let found = named(name);
        assert_eq!(found.len(), 1, "{name}: {:#?}", finished.iter().map(|s| &s.name).collect::<Vec<_>>());
        found[0]
    };
    let run = named("invoke_agent")
        .into_iter()
        .find(|s| text(s, "gen_ai.request.model").as_deref() == Some("gpt-test"))
        .unwrap();
    let trace = run.span_context.trace_id();
    assert_eq!(run.parent_span_id, SpanId::INVALID, "the run is the root");
    assert_eq!(run.span_kind, SpanKind::Internal);
    assert_eq!(text(run, "gen_ai.operation.name").as_deref(), Some("invoke_agent"));
    assert_eq!(text(run, "gen_ai.provider.name").as_deref(), Some("openai"));
    assert_eq!(text(run, "gen_ai.request.model").as_deref(), Some("gpt-test"));
    assert_eq!(int(run, "gen_ai.usage.input_tokens"), Some(20), "two requests of 10");
    assert_eq!(int(run, "gen_ai.usage.output_tokens"), Some(10));

    let chats = named("chat gpt-test");
    assert_eq!(chats.len(), 2);
    for chat in &chats {
        assert_eq!(chat.span_kind, SpanKind::Client);
        assert_eq!(chat.parent_span_id, run.span_context.span_id());
        assert_eq!(chat.span_context.trace_id(), trace);
        assert_eq!(text(chat, "gen_ai.operation.name").as_deref(), Some("chat"));
        assert_eq!(text(chat, "gen_ai.provider.name").as_deref(), Some("openai"));
        assert_eq!(text(chat, "gen_ai.request.model").as_deref(), Some("gpt-test"));
        assert_eq!(text(chat, "server.address").as_deref(), Some("127.0.0.1"));
        assert_eq!(int(chat, "gen_ai.usage.input_tokens"), Some(10));
        assert_eq!(int(chat, "gen_ai.usage.output_tokens"), Some(5));
    }
    let reasons: Vec<String> =
        chats.iter().map(|chat| text(chat, "gen_ai.response.finish_reasons").unwrap()).collect();
    assert_eq!(reasons, [r#"["tool_calls"]"#, r#"["stop"]"#]);
    // Each provider request carried its chat span's context.
    let sent: Vec<(TraceId, SpanId)> = model
        .requests()
        .iter()
        .map(|request| {
            let traceparent = request.headers.iter().find(|(name, _)| name == "traceparent").unwrap();
            ids(&traceparent.1)
        })
        .collect();
    let chat_ids: Vec<(TraceId, SpanId)> = chats.iter().map(|c| (trace, c.span_context.span_id())).collect();
    assert_eq!(sent, chat_ids);

    let call = one("execute_tool remote_get_weather");
    assert_eq!(call.parent_span_id, run.span_context.span_id());
    assert_eq!(text(call, "gen_ai.tool.call.id").as_deref(), Some("call_1"));
    assert_eq!(text(call, "gen_ai.tool.type").as_deref(), Some("extension"), "{call:#?}");
    assert_eq!(text(call, "mcp.method.name").as_deref(), Some("tools/call"));
    assert!(text(call, "gen_ai.tool.call.arguments").is_none(), "arguments only on opt-in");

    // Across the MCP hop: the server's span is the agent's call's child.
    let served = one("tools/call get_weather");
    assert_eq!(served.span_kind, SpanKind::Server);
    assert_eq!(served.span_context.trace_id(), trace);
    assert_eq!(served.parent_span_id, call.span_context.span_id());
    assert!(served.parent_span_is_remote);
    let executed = one("execute_tool get_weather");
    assert_eq!(executed.parent_span_id, served.span_context.span_id());
    assert_eq!(executed.span_context.trace_id(), trace);

    // The run's tree as text (`-- --nocapture`), for the docs.
    let ids_seen: HashSet<SpanId> = finished.iter().map(|s| s.span_context.span_id()).collect();
    fn print(span: &SpanData, depth: usize, all: &[SpanData]) {
        let millis = span.end_time.duration_since(span.start_time).unwrap_or_default().as_secs_f64() * 1000.0;
        eprintln!("{}{} ({:?}, {millis:.1} ms)", "  ".repeat(depth), span.name, span.span_kind);
        for child in all.iter().filter(|s| s.parent_span_id == span.span_context.span_id()) {
            print(child, depth + 1, all);
        }
    }
    let in_trace: Vec<SpanData> =
        finished.iter().filter(|s| s.span_context.trace_id() == trace).cloned().collect();
    print(run, 0, &in_trace);
    assert!(
        in_trace.iter().all(|s| s.parent_span_id == SpanId::INVALID || ids_seen.contains(&s.parent_span_id))
    );

    // The agent's metrics.
    meter_provider.force_flush().unwrap();
    let mut points: Vec<(String, String, Vec<KeyValue>)> = Vec::new();
    for resource in metrics.get_finished_metrics().unwrap() {
        for scope in
            resource.scope_metrics().filter(|s| s.scope().name() == toolcall_agent::telemetry::METER_NAME)
        {
            for metric in scope.metrics() {
                let attributes: Vec<Vec<KeyValue>> = match metric.data() {
                    AggregatedMetrics::F64(MetricData::Histogram(h)) => {
                        h.data_points().map(|p| p.attributes().cloned().collect()).collect()
                    }
                    AggregatedMetrics::U64(MetricData::Histogram(h)) => {
                        h.data_points().map(|p| p.attributes().cloned().collect()).collect()
                    }
                    other => panic!("{other:?}"),
                };
                for attributes in attributes {
                    points.push((metric.name().to_owned(), metric.unit().to_owned(), attributes));
                }
            }
        }
    }
    let has = |name: &str, unit: &str, wanted: &[(&str, &str)]| {
        points.iter().any(|(n, u, attributes)| {
            n == name
                && u == unit
                && wanted.iter().all(|(k, v)| {
                    attributes.iter().any(|kv| kv.key.as_str() == *k && kv.value.as_str() == *v)
                })
        })
    };
    let chat = [
        ("gen_ai.operation.name", "chat"),
        ("gen_ai.provider.name", "openai"),
        ("gen_ai.request.model", "gpt-test"),
    ];
    assert!(has("gen_ai.client.operation.duration", "s", &chat), "{points:#?}");
    for kind in ["input", "output"] {
        let mut wanted = chat.to_vec();
        wanted.push(("gen_ai.token.type", kind));
        assert!(has("gen_ai.client.token.usage", "{token}", &wanted), "{points:#?}");
    }
}
