//! `tools/call` round trips over an in-process transport (a duplex pipe, rmcp's client),
//! our server against an rmcp `#[tool_router]`/`#[tool]` server of the same three tools,
//! in the same run: `mcp_<tool>/toolcall` vs `mcp_<tool>/rmcp_macros`.
//!
//! And what rmcp's parse of a request costs a call (#48): `mcp_read_<tool>/rmcp_message`
//! reads a `tools/call` body as rmcp does (the whole message into its types, the arguments
//! into a `serde_json` map) and runs the tool on that value; `mcp_read_<tool>/raw_arguments`
//! reads it as toolcall-mcp's HTTP hot path does (the envelope borrowed, the arguments
//! left as their text) and runs the tool on the text.

#![allow(missing_docs, reason = "criterion's macros generate undocumented items")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "benchmark setup should fail loudly")]

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientJsonRpcMessage, ClientRequest};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::Value;
use toolcall_bench::mcp::{MacroServer, toolcall_server};

const CALLS: [(&str, &str); 3] = [
    ("add", r#"{"a":2,"b":40}"#),
    ("get_weather", r#"{"city":"Oslo"}"#),
    (
        "create_order",
        r#"{"order":{"customer":"Ada Lovelace","address":{"street":"Storgata 1","city":"Oslo","zip":"0155","country":"NO"},"items":[{"sku":"A-100","quantity":2,"unit_cents":1250},{"sku":"B-7","quantity":1,"unit_cents":499}],"note":"leave at the door"}}"#,
    ),
];

/// A client connected to `server` over a duplex pipe; the server runs on the runtime.
fn connect<S: ServerHandler>(runtime: &tokio::runtime::Runtime, server: S) -> RunningService<RoleClient, ()> {
    runtime.block_on(async move {
        let (server_side, client_side) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_side).await {
                let _ = running.waiting().await;
            }
        });
        ().serve(client_side).await.unwrap()
    })
}

fn call(
    runtime: &tokio::runtime::Runtime,
    client: &RunningService<RoleClient, ()>,
    name: &str,
    args: &Value,
) -> CallToolResult {
    let params = CallToolRequestParams::new(name.to_owned())
        .with_arguments(args.as_object().cloned().unwrap_or_default());
    runtime.block_on(client.call_tool(params)).unwrap()
}

/// A `tools/call` body of `name` with `args` (JSON text).
fn call_body(name: &str, args: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"{name}","arguments":{args}}}}}"#
    )
}

/// rmcp's reading of `body`: the whole message, the arguments a map; then the tool on it.
fn through_rmcp_message(body: &[u8]) -> Value {
    let message: ClientJsonRpcMessage = serde_json::from_slice(body).unwrap();
    let ClientJsonRpcMessage::Request(request) = message else { panic!("a request") };
    let ClientRequest::CallToolRequest(call) = request.request else { panic!("a call") };
    let args = Value::Object(call.params.arguments.unwrap_or_default());
    toolcall_bench::toolset::ALL.run(&call.params.name, &args).unwrap()
}

/// What toolcall-mcp's hot path reads of a call: the envelope, borrowed.
#[derive(serde::Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    method: &'a str,
    #[serde(borrow)]
    params: &'a serde_json::value::RawValue,
}

/// The params, the arguments left as text.
#[derive(serde::Deserialize)]
struct Params<'a> {
    #[serde(borrow)]
    name: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    arguments: &'a serde_json::value::RawValue,
}

/// The hot path's reading of `body`, then the tool on the arguments' text.
fn through_raw_arguments(body: &[u8]) -> Value {
    let envelope: Envelope<'_> = serde_json::from_slice(body).unwrap();
    assert_eq!(envelope.method, "tools/call");
    let params: Params<'_> = serde_json::from_str(envelope.params.get()).unwrap();
    toolcall_bench::toolset::ALL.run_json(&params.name, params.arguments.get()).unwrap()
}

fn reading(c: &mut Criterion) {
    for (name, args) in CALLS {
        let body = call_body(name, args);
        assert_eq!(through_rmcp_message(body.as_bytes()), through_raw_arguments(body.as_bytes()), "{name}");
        let mut group = c.benchmark_group(format!("mcp_read_{name}"));
        group.bench_function("rmcp_message", |bench| bench.iter(|| through_rmcp_message(body.as_bytes())));
        group.bench_function("raw_arguments", |bench| bench.iter(|| through_raw_arguments(body.as_bytes())));
        group.finish();
    }
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30)
        .nresamples(10_000)
}

fn mcp(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let ours = connect(&runtime, toolcall_server());
    let theirs = connect(&runtime, MacroServer::default());
    for (name, text) in CALLS {
        let args: Value = serde_json::from_str(text).unwrap();
        // Both servers must answer alike before they are timed.
        let (a, b) = (call(&runtime, &ours, name, &args), call(&runtime, &theirs, name, &args));
        assert_eq!(a.is_error, Some(false), "{name}: {a:?}");
        assert_eq!((a.content, a.structured_content), (b.content, b.structured_content), "{name}");
        let mut group = c.benchmark_group(format!("mcp_{name}"));
        group.bench_function("toolcall", |bench| bench.iter(|| call(&runtime, &ours, name, &args)));
        group.bench_function("rmcp_macros", |bench| bench.iter(|| call(&runtime, &theirs, name, &args)));
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = config();
    targets = mcp, reading
}
criterion_main!(benches);
