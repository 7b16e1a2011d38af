//! `example-app serve --http` exporting traces and metrics over OTLP/HTTP to a receiver
//! this test runs (an HTTP server decoding the OpenTelemetry protocol's protobuf messages,
//! `ExportTraceServiceRequest` at `/v1/traces` and `ExportMetricsServiceRequest` at
//! `/v1/metrics`): the spans' names, kinds, attributes and parents (a `traceparent` sent
//! in a call's `_meta` is the parent of the server span), the resource from
//! `OTEL_SERVICE_NAME`, the metric `mcp.server.operation.duration`, and the request log
//! on stderr, which never holds an argument or a token. Without an endpoint nothing is
//! exported and the request log still is written.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use opentelemetry_proto::tonic::collector::metrics::v1::{
    ExportMetricsServiceRequest, ExportMetricsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::common::v1::{InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::metrics::v1::HistogramDataPoint;
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode as SpanStatus;
use prost::Message as _;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

#[path = "../../toolcall-mcp/tests/common/net.rs"]
#[allow(dead_code)]
mod net;

/// What the receiver got: every export request, decoded, and anything it could not take.
#[derive(Clone, Default)]
struct Received {
    traces: Arc<Mutex<Vec<ExportTraceServiceRequest>>>,
    metrics: Arc<Mutex<Vec<ExportMetricsServiceRequest>>>,
    refused: Arc<Mutex<Vec<String>>>,
}

impl Received {
    /// Every span received, with its scope's name.
    fn spans(&self) -> Vec<(String, Span)> {
        let traces = self.traces.lock().unwrap();
        let scopes = traces.iter().flat_map(|r| &r.resource_spans).flat_map(|r| &r.scope_spans);
        scopes
            .flat_map(|s| {
                let scope = s.scope.as_ref().map(|s| s.name.clone()).unwrap_or_default();
                s.spans.iter().map(move |span| (scope.clone(), span.clone()))
            })
            .collect()
    }

    /// The data points of histogram `name`, with their scope.
    fn histogram(&self, name: &str) -> Vec<(Option<InstrumentationScope>, String, HistogramDataPoint)> {
        let metrics = self.metrics.lock().unwrap();
        let mut points = Vec::new();
        for scope in metrics.iter().flat_map(|r| &r.resource_metrics).flat_map(|r| &r.scope_metrics) {
            for metric in scope.metrics.iter().filter(|m| m.name == name) {
                if let Some(Data::Histogram(histogram)) = &metric.data {
                    for point in &histogram.data_points {
                        points.push((scope.scope.clone(), metric.unit.clone(), point.clone()));
                    }
                }
            }
        }
        points
    }
}

fn protobuf(headers: &HeaderMap) -> bool {
    headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()) == Some("application/x-protobuf")
}

fn answer(message: &impl prost::Message) -> axum::response::Response {
    ([(header::CONTENT_TYPE, "application/x-protobuf")], message.encode_to_vec()).into_response()
}

async fn traces(
    State(received): State<Received>,
    headers: HeaderMap,
    body: Bytes,
) -> axum::response::Response {
    match ExportTraceServiceRequest::decode(body) {
        Ok(request) if protobuf(&headers) => {
            received.traces.lock().unwrap().push(request);
            answer(&ExportTraceServiceResponse::default())
        }
        other => {
            received.refused.lock().unwrap().push(format!("/v1/traces: {other:?} {headers:?}"));
            StatusCode::BAD_REQUEST.into_response()
        }
    }
}

async fn metrics(
    State(received): State<Received>,
    headers: HeaderMap,
    body: Bytes,
) -> axum::response::Response {
    match ExportMetricsServiceRequest::decode(body) {
        Ok(request) if protobuf(&headers) => {
            received.metrics.lock().unwrap().push(request);
            answer(&ExportMetricsServiceResponse::default())
        }
        other => {
            received.refused.lock().unwrap().push(format!("/v1/metrics: {other:?} {headers:?}"));
            StatusCode::BAD_REQUEST.into_response()
        }
    }
}

/// An OTLP/HTTP receiver on 127.0.0.1: its base URL and what it receives.
async fn receiver() -> (String, Received) {
    let received = Received::default();
    let refused = received.clone();
    let router = axum::Router::new()
        .route("/v1/traces", axum::routing::post(traces))
        .route("/v1/metrics", axum::routing::post(metrics))
        .fallback(move |request: axum::extract::Request| async move {
            refused.refused.lock().unwrap().push(format!("{} {}", request.method(), request.uri()));
            StatusCode::NOT_FOUND
        })
        .with_state(received.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    (format!("http://{addr}"), received)
}

/// A running `serve --http`, its stderr lines kept.
struct Server {
    child: tokio::process::Child,
    uri: String,
    stderr: Arc<Mutex<Vec<String>>>,
}

const TOKEN: &str = "ada-token-NEVER-LOGGED";

/// Starts `serve --http 127.0.0.1:0 --token TOKEN` with `env` (and no other `OTEL_*`).
async fn serve(env: &[(&str, &str)]) -> Server {
    serve_with(&[], env).await
}

/// [`serve`], with `extra` arguments.
async fn serve_with(extra: &[&str], env: &[(&str, &str)]) -> Server {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_example-app"));
    command
        .args(["serve", "--http", "127.0.0.1:0", "--drain-delay", "0", "--token", TOKEN])
        .args(extra)
        .env_remove("TOOLCALL_MCP_TOKEN");
    for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("OTEL_")) {
        command.env_remove(name);
    }
    command.envs(env.iter().copied());
    command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).kill_on_drop(true);
    let mut child = command.spawn().expect("spawn example-app");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let line = lines.next_line().await.unwrap().expect("a line on stderr");
    let addr: SocketAddr = line
        .strip_prefix("listening on http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("{line}"))
        .parse()
        .unwrap();
    let stderr = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&stderr);
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            kept.lock().unwrap().push(line);
        }
    });
    Server { child, uri: format!("http://{addr}/mcp"), stderr }
}

impl Server {
    /// SIGTERM, then the exit status (0: drained, telemetry flushed).
    async fn stop(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().unwrap().to_string();
        let killed = std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(killed.success());
        tokio::time::timeout(Duration::from_secs(30), self.child.wait()).await.expect("exits").unwrap()
    }

    fn stderr(&self) -> Vec<String> {
        self.stderr.lock().unwrap().clone()
    }
}

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN: &str = "00f067aa0ba902b7";
const SECRET_CITY: &str = "Secret-City-Argument";

/// A stateless (2026-07-28) `tools/call` of `tool` with `arguments`, with `meta` in its
/// `_meta`: the response's body.
async fn call(uri: &str, id: u64, tool: &str, arguments: Value, meta: Value) -> String {
    let mut meta_object = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    meta_object.as_object_mut().unwrap().extend(meta.as_object().cloned().unwrap_or_default());
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": meta_object}
    });
    let bearer = format!("Bearer {TOKEN}");
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
        ("authorization", bearer.as_str()),
    ];
    let (status, _, text) = net::post(uri, body.to_string(), &headers).await;
    assert_eq!(status, 200, "{text}");
    text
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attribute<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a AnyValue> {
    attributes.iter().find(|kv| kv.key == key).and_then(|kv| kv.value.as_ref()).and_then(|v| v.value.as_ref())
}

fn string(attributes: &[KeyValue], key: &str) -> Option<String> {
    match attribute(attributes, key) {
        Some(AnyValue::StringValue(text)) => Some(text.clone()),
        _ => None,
    }
}

/// Waits (at most 20 s) until `done` says what arrived is enough.
async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn traces_and_metrics_reach_an_otlp_receiver() {
    let (endpoint, received) = receiver().await;
    let server = serve(&[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
        ("OTEL_SERVICE_NAME", "toolcall-telemetry-test"),
        ("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=test"),
        ("OTEL_BSP_SCHEDULE_DELAY", "100"),
        ("OTEL_METRIC_EXPORT_INTERVAL", "300"),
    ])
    .await;
    let traceparent = format!("00-{TRACE}-{CLIENT_SPAN}-01");
    let ok = call(
        &server.uri,
        21,
        "get_weather",
        json!({"city": SECRET_CITY}),
        json!({"traceparent": traceparent}),
    )
    .await;
    assert!(ok.contains("temp"), "{ok}");
    let failed = call(&server.uri, 22, "add", json!({"a": 1}), json!({})).await;
    assert!(failed.contains("isError"), "{failed}");

    until("the spans", || {
        let names: Vec<String> = received.spans().into_iter().map(|(_, s)| s.name).collect();
        ["tools/call get_weather", "execute_tool get_weather", "tools/call add", "execute_tool add"]
            .iter()
            .all(|name| names.iter().any(|n| n == name))
    })
    .await;
    until("the metric", || received.histogram("mcp.server.operation.duration").len() >= 2).await;
    let stderr = server.stderr();
    let status = server.stop().await;
    assert!(status.success(), "{status:?}; stderr: {stderr:#?}");
    assert!(received.refused.lock().unwrap().is_empty(), "{:?}", received.refused.lock().unwrap());

    // The resource: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
    let traces = received.traces.lock().unwrap().clone();
    let resource = traces[0].resource_spans[0].resource.clone().unwrap();
    assert_eq!(string(&resource.attributes, "service.name").as_deref(), Some("toolcall-telemetry-test"));
    assert_eq!(string(&resource.attributes, "deployment.environment.name").as_deref(), Some("test"));

    let spans = received.spans();
    let find = |name: &str| spans.iter().find(|(_, s)| s.name == name).cloned().unwrap().1;
    // Only toolcall's spans: rmcp's own (its session span) are not exported.
    for (scope, span) in &spans {
        assert_eq!(scope, example_app::telemetry::TRACER_NAME);
        assert!(
            span.name.starts_with("tools/call") || span.name.starts_with("execute_tool"),
            "{}",
            span.name
        );
    }

    let server_span = find("tools/call get_weather");
    assert_eq!(server_span.kind, SpanKind::Server as i32);
    assert_eq!(hex(&server_span.trace_id), TRACE, "the client's trace");
    assert_eq!(hex(&server_span.parent_span_id), CLIENT_SPAN, "the _meta traceparent is the parent");
    let attributes = &server_span.attributes;
    assert_eq!(string(attributes, "mcp.method.name").as_deref(), Some("tools/call"));
    assert_eq!(string(attributes, "gen_ai.tool.name").as_deref(), Some("get_weather"));
    assert_eq!(string(attributes, "gen_ai.operation.name").as_deref(), Some("execute_tool"));
    assert_eq!(string(attributes, "mcp.protocol.version").as_deref(), Some("2026-07-28"));
    assert_eq!(string(attributes, "jsonrpc.request.id").as_deref(), Some("21"));
    assert_eq!(string(attributes, "network.transport").as_deref(), Some("tcp"));
    assert_eq!(string(attributes, "network.protocol.name").as_deref(), Some("http"));
    assert_eq!(string(attributes, "client.address").as_deref(), Some("127.0.0.1"));
    assert!(attribute(attributes, "error.type").is_none());
    assert_ne!(server_span.status.clone().unwrap_or_default().code, SpanStatus::Error as i32);

    let tool_span = find("execute_tool get_weather");
    assert_eq!(tool_span.kind, SpanKind::Internal as i32);
    assert_eq!(tool_span.trace_id, server_span.trace_id);
    assert_eq!(tool_span.parent_span_id, server_span.span_id, "execute_tool is under the request's span");
    assert_eq!(string(&tool_span.attributes, "gen_ai.operation.name").as_deref(), Some("execute_tool"));
    assert_eq!(string(&tool_span.attributes, "gen_ai.tool.type").as_deref(), Some("function"));
    assert!(string(&tool_span.attributes, "gen_ai.tool.description").is_some());
    assert!(attribute(&tool_span.attributes, "gen_ai.tool.call.arguments").is_none());

    let failed_server = find("tools/call add");
    assert!(failed_server.parent_span_id.is_empty(), "no traceparent: a root");
    assert_eq!(string(&failed_server.attributes, "error.type").as_deref(), Some("tool_error"));
    assert_eq!(failed_server.status.clone().unwrap().code, SpanStatus::Error as i32);
    let failed_tool = find("execute_tool add");
    assert_eq!(failed_tool.parent_span_id, failed_server.span_id);
    assert_eq!(string(&failed_tool.attributes, "error.type").as_deref(), Some("missing_argument"));

    // The call's trace as text (`-- --nocapture`), as the README shows it.
    for span in [&server_span, &tool_span] {
        let micros = span.end_time_unix_nano.saturating_sub(span.start_time_unix_nano) / 1000;
        let attributes: Vec<String> = span
            .attributes
            .iter()
            .map(|kv| format!("{}={:?}", kv.key, kv.value.as_ref().and_then(|v| v.value.as_ref())))
            .collect();
        eprintln!(
            "{} kind={} {micros} µs parent={}\n  {}",
            span.name,
            span.kind,
            hex(&span.parent_span_id),
            attributes.join("\n  ")
        );
    }

    let everything = format!("{traces:?}");
    assert!(!everything.contains(SECRET_CITY), "no argument is exported without opt-in");
    assert!(!everything.contains(TOKEN), "no token is exported");

    // The metric: toolcall-mcp's histogram, in seconds, one series per outcome.
    let points = received.histogram("mcp.server.operation.duration");
    let series = |wanted: &[(&str, &str)]| {
        points.iter().any(|(scope, unit, point)| {
            scope.as_ref().is_some_and(|s| s.name == toolcall_mcp::telemetry::METER_NAME)
                && unit == "s"
                && point.count >= 1
                && point.explicit_bounds.first() == Some(&0.01)
                && point.explicit_bounds.last() == Some(&300.0)
                && wanted.iter().all(|(k, v)| string(&point.attributes, k).as_deref() == Some(v))
        })
    };
    let call_series = [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "get_weather"),
        ("gen_ai.operation.name", "execute_tool"),
        ("mcp.protocol.version", "2026-07-28"),
        ("network.transport", "tcp"),
        ("network.protocol.name", "http"),
    ];
    assert!(series(&call_series), "{points:#?}");
    assert!(series(&[("gen_ai.tool.name", "add"), ("error.type", "tool_error")]), "{points:#?}");

    // The request log: one line per request, its caller, never an argument or the token.
    let log: Vec<&String> = stderr.iter().filter(|line| line.starts_with("request ")).collect();
    assert_eq!(log.len(), 2, "{stderr:#?}");
    for (line, tool) in log.iter().zip(["get_weather", "add"]) {
        for part in [
            "http.request.method=POST",
            "url.path=/mcp",
            "http.response.status_code=200",
            "mcp.method.name=tools/call",
            "user.id=user:1",
            "duration_ms=",
        ] {
            assert!(line.contains(part), "{part} in {line}");
        }
        assert!(line.contains(&format!("gen_ai.tool.name={tool}")), "{line}");
    }
    assert!(log[1].contains("error.type=tool_error"), "{}", log[1]);
    let all = stderr.join("\n");
    assert!(!all.contains(SECRET_CITY) && !all.contains(TOKEN), "{all}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_an_endpoint_only_the_request_log_is_written() {
    let server = serve(&[("OTEL_SERVICE_NAME", "not-exported")]).await;
    call(&server.uri, 1, "add", json!({"a": 1, "b": 2}), json!({})).await;
    let stderr = Arc::clone(&server.stderr);
    until("the request log", || stderr.lock().unwrap().iter().any(|l| l.starts_with("request "))).await;
    let status = server.stop().await;
    assert!(status.success());
    let lines = stderr.lock().unwrap().clone();
    let log: Vec<&String> = lines.iter().filter(|l| l.starts_with("request ")).collect();
    assert_eq!(log.len(), 1, "{lines:#?}");
    assert!(log[0].contains("gen_ai.tool.name=add") && log[0].contains("user.id=user:1"), "{}", log[0]);
    assert!(!lines.iter().any(|l| l.contains("warning")), "nothing tried to export: {lines:#?}");
}

/// The operator's log: each step of a drain is one line on stderr, as text by default and
/// as a JSON object per line with `--log-json`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operators_log_says_each_drain_step_once() {
    let text = serve(&[]).await;
    let stderr = Arc::clone(&text.stderr);
    assert!(text.stop().await.success());
    let lines = stderr.lock().unwrap().clone();
    let steps: Vec<&String> =
        lines.iter().filter(|l| l.starts_with("INFO toolcall_mcp::lifecycle: ")).collect();
    assert_eq!(steps.len(), 3, "told to stop, refusing, drained: {lines:#?}");
    assert!(steps[0].contains("draining: /readyz answers 503") && steps[2].contains("drained"), "{steps:#?}");
    let json = serve_with(&["--log-json"], &[]).await;
    let stderr = Arc::clone(&json.stderr);
    assert!(json.stop().await.success());
    let lines = stderr.lock().unwrap().clone();
    let steps: Vec<Value> = lines
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["target"] == "toolcall_mcp::lifecycle")
        .collect();
    assert_eq!(steps.len(), 3, "{lines:#?}");
    assert!(steps.iter().all(|v| v["level"] == "INFO" && v["message"].is_string()), "{steps:#?}");
}
