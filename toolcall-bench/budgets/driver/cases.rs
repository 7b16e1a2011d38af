//! The operations that profilers and the CI budgets measure, each `N` times with nothing
//! else in the loop, so `valgrind --tool=callgrind` (or `perf`) sees only that operation.
//! One copy, compiled into two binaries: the budget driver (`main.rs` beside this file,
//! built from toolcall-bench's normal dependencies alone) and `examples/profile.rs`
//! (which adds the generator's cases, whose crate is a dev-dependency).
//!
//! Cases: `run_<tool>`, `run_json_<tool>`, `serde_run_<tool>`, `serde_run_json_<tool>`
//! (tool = `add`, `get_weather`, `create_order`), `parse_<tool>` (the arguments text to a
//! `serde_json::Value` only), `render`, `dispatch_10`, `dispatch_1000`,
//! `call_add` (`ALL.call(&(), "add")` polled once), `call_add_async` (`add_async`) and
//! `mcp_call_<tool>`: one MCP `tools/call` round trip in process, rmcp's client against
//! toolcall-mcp's server over a duplex pipe on a current-thread runtime (as
//! `examples/mcp_calls.rs`; its start-up, the `initialize` handshake among it, is the same
//! at any `N`, and so are 16 warm-up calls, after which the tool's first polls run inline).
//! `toolcall-bench/budgets/check.py` holds CI to the counts of some of them
//! (`toolcall-bench/budgets/budgets.json`).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a profiling driver fails loudly")]

use std::future::Future;
use std::hint::black_box;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::Value;
use toolcall_bench::{baseline, big_toolset, small_toolset, synth, toolset};
use toolcall_runtime::Format;

/// A case neither binary knows.
#[derive(Debug)]
pub struct UnknownCase;

/// Calls made before the `n` measured ones, at any `n`: more than toolcall-mcp's `LEARN`
/// (8), the cheap first polls on the blocking pool after which a tool's calls run inline.
const MCP_WARM_UP: usize = 16;

/// `n` `tools/call` round trips of `tool` through toolcall-mcp's server in process, in
/// the steady state of a cheap tool: its first poll inline. Where a first poll runs
/// depends on how long earlier ones took (`toolcall_mcp::inline`), and under callgrind a
/// poll takes some 50 times as long as natively and longer still on a loaded machine, so
/// the server's inline budget is set past any poll here (the place then no longer depends
/// on the clock) and the calls that learn it are made before the measured ones.
fn mcp_calls(tool: &str, args: &Value, n: usize) {
    let params =
        CallToolRequestParams::new(tool.to_owned()).with_arguments(args.as_object().cloned().unwrap());
    // One blocking thread that never leaves: the warm-up's first polls run on it, and how
    // many threads they would start and whether one left by the end (as timing has it)
    // changed the heap's state and the count of every later call by up to 0.4%.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(1)
        .thread_keep_alive(Duration::from_secs(3600))
        .build()
        .unwrap();
    runtime.block_on(async move {
        let (server_side, client_side) = tokio::io::duplex(1 << 16);
        let server = toolcall_bench::mcp::toolcall_server().inline_budget(Duration::from_secs(3600));
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_side).await {
                let _ = running.waiting().await;
            }
        });
        let client = ().serve(client_side).await.unwrap();
        for _ in 0..MCP_WARM_UP + n {
            let result = client.call_tool(black_box(params.clone())).await.unwrap();
            assert_eq!(result.is_error, Some(false));
        }
        client.cancel().await.unwrap();
    });
}

/// Runs `case` `n` times; [`UnknownCase`] when it is none of the module's cases.
pub fn run(case: &str, n: usize) -> Result<(), UnknownCase> {
    let tool =
        ["add", "get_weather", "create_order"].into_iter().find(|t| case.ends_with(t)).unwrap_or("add");
    let text = toolcall_bench::sample_arguments(tool);
    let value: Value = serde_json::from_str(text).unwrap();
    match case {
        c if c.starts_with("serde_run_json_") => {
            (0..n).for_each(|_| drop(black_box(baseline::run_json(black_box(tool), black_box(text)))));
        }
        c if c.starts_with("serde_run_") => {
            (0..n).for_each(|_| drop(black_box(baseline::run(black_box(tool), black_box(&value)))));
        }
        "call_add" | "call_add_async" => {
            let name = if case == "call_add" { "add" } else { "add_async" };
            let waker = std::task::Waker::noop();
            (0..n).for_each(|_| {
                let mut call = toolset::ALL.call(&(), black_box(name), black_box(&value));
                let polled = std::pin::Pin::new(&mut call).poll(&mut std::task::Context::from_waker(waker));
                drop(black_box(polled));
            });
        }
        c if c.starts_with("mcp_call_") => mcp_calls(tool, &value, n),
        c if c.starts_with("run_json_") => {
            (0..n).for_each(|_| drop(black_box(toolset::ALL.run_json(black_box(tool), black_box(text)))));
        }
        c if c.starts_with("run_") => {
            (0..n).for_each(|_| drop(black_box(toolset::ALL.run(black_box(tool), black_box(&value)))));
        }
        c if c.starts_with("parse_") => {
            (0..n).for_each(|_| drop(black_box(serde_json::from_str::<Value>(black_box(text)))));
        }
        "render" => {
            let tool = toolcall_bench::weather_tool();
            (0..n).for_each(|_| {
                black_box(toolcall_runtime::render::render_tool(black_box(&tool), Format::OpenAi, true));
            });
        }
        "dispatch_10" | "dispatch_1000" => {
            let set = if case == "dispatch_10" { &small_toolset::ALL } else { &big_toolset::ALL };
            let name = synth::last_tool_name(set.len());
            let args: Value = serde_json::from_str(synth::PROBE_ARGS).unwrap();
            (0..n).for_each(|_| drop(black_box(set.run(black_box(&name), black_box(&args)))));
        }
        _ => return Err(UnknownCase),
    }
    Ok(())
}

/// `case` and `N` from the command line (`<case> <iterations>`), or `None`.
pub fn arguments() -> Option<(String, usize)> {
    let mut argv = std::env::args().skip(1);
    let case = argv.next()?;
    let n = argv.next()?.parse::<usize>().ok()?;
    Some((case, n))
}
