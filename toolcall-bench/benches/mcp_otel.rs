//! What a call's telemetry costs (#46): `tools/call add` round trips over the in-process
//! duplex pipe (rmcp's client, a current-thread runtime), toolcall-mcp built with its
//! feature `otel`, in one of two set-ups, one per process (the metric's instrument is
//! made once, from the meter provider installed at the first request):
//!
//! - `TELEMETRY=none`: no subscriber and no meter provider (the spans are never built,
//!   the metric goes to the API's no-op);
//! - `TELEMETRY=export`: what example-app installs when `OTEL_EXPORTER_OTLP_ENDPOINT` is
//!   set: tracing-opentelemetry over the SDK's tracer, batches exported over OTLP/HTTP
//!   (protobuf, reqwest's blocking client), and the SDK's meter provider exporting every
//!   second the same way, to a sink on 127.0.0.1 that reads each request and answers 200.
//!
//! ```text
//! TELEMETRY=none   cargo bench -p toolcall-bench --features otel --bench mcp_otel
//! TELEMETRY=export cargo bench -p toolcall-bench --features otel --bench mcp_otel
//! ```

#![allow(missing_docs, reason = "criterion's macros generate undocumented items")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "benchmark setup should fail loudly")]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{MetricExporter, Protocol, SpanExporter, WithExportConfig as _};
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::SdkTracerProvider;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use tracing_subscriber::Layer as _;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt as _;

/// What the sink received: export requests and their bytes.
#[derive(Default)]
struct Sink {
    requests: AtomicU64,
    bytes: AtomicU64,
}

/// An OTLP/HTTP sink on 127.0.0.1, on a thread of its own: its base URL.
fn sink(counts: Arc<Sink>) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            let take = move |body: axum::body::Bytes| {
                let counts = Arc::clone(&counts);
                async move {
                    counts.requests.fetch_add(1, Ordering::Relaxed);
                    counts.bytes.fetch_add(body.len() as u64, Ordering::Relaxed);
                    ([("content-type", "application/x-protobuf")], Vec::<u8>::new())
                }
            };
            let router = axum::Router::new()
                .route("/v1/traces", axum::routing::post(take.clone()))
                .route("/v1/metrics", axum::routing::post(take));
            axum::serve(listener, router).await.unwrap();
        });
    });
    format!("http://{}", rx.recv().unwrap())
}

/// Installs example-app's export pipeline, to `endpoint`; the providers, to shut down.
fn export_to(endpoint: &str) -> (SdkTracerProvider, SdkMeterProvider) {
    opentelemetry::global::set_text_map_propagator(
        opentelemetry_sdk::propagation::TraceContextPropagator::new(),
    );
    let metrics = MetricExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(format!("{endpoint}/v1/metrics"))
        .build()
        .unwrap();
    let reader = PeriodicReader::builder(metrics).with_interval(Duration::from_secs(1)).build();
    let meter_provider = SdkMeterProvider::builder().with_reader(reader).build();
    opentelemetry::global::set_meter_provider(meter_provider.clone());
    let spans = SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(format!("{endpoint}/v1/traces"))
        .build()
        .unwrap();
    let tracer_provider = SdkTracerProvider::builder().with_batch_exporter(spans).build();
    let layer = tracing_opentelemetry::layer()
        .with_tracer(tracer_provider.tracer("bench"))
        .with_threads(false)
        .with_location(false)
        .with_tracked_inactivity(false)
        .with_target(false)
        .with_filter(Targets::new().with_target("toolcall_mcp", LevelFilter::INFO));
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer)).unwrap();
    (tracer_provider, meter_provider)
}

fn connect(runtime: &tokio::runtime::Runtime) -> RunningService<RoleClient, ()> {
    runtime.block_on(async {
        let (server_side, client_side) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            if let Ok(running) = toolcall_bench::mcp::toolcall_server().serve(server_side).await {
                let _ = running.waiting().await;
            }
        });
        ().serve(client_side).await.unwrap()
    })
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .sample_size(30)
        .nresamples(10_000)
}

fn telemetry(c: &mut Criterion) {
    let export = std::env::var("TELEMETRY").is_ok_and(|mode| mode == "export");
    let counts = Arc::new(Sink::default());
    let providers = export.then(|| export_to(&sink(Arc::clone(&counts))));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let client = connect(&runtime);
    let params = CallToolRequestParams::new("add")
        .with_arguments(serde_json::json!({"a": 2, "b": 40}).as_object().cloned().unwrap());
    let mut group = c.benchmark_group("mcp_add_telemetry");
    group.bench_function(if export { "export" } else { "none" }, |bench| {
        bench.iter(|| {
            let result = runtime.block_on(client.call_tool(params.clone())).unwrap();
            assert_eq!(result.is_error, Some(false));
        })
    });
    group.finish();
    if let Some((tracer_provider, meter_provider)) = providers {
        tracer_provider.shutdown().unwrap();
        meter_provider.shutdown().unwrap();
        eprintln!(
            "the sink received {} export requests, {} bytes",
            counts.requests.load(Ordering::Relaxed),
            counts.bytes.load(Ordering::Relaxed)
        );
    }
}

criterion_group! {
    name = benches;
    config = config();
    targets = telemetry
}
criterion_main!(benches);
