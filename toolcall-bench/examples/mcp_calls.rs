//! A driver for callgrind: `N` `tools/call` round trips of one tool through toolcall-mcp's
//! in-process path (rmcp's client over a duplex pipe, a current-thread runtime), with
//! nothing else in the loop. What the server adds per call (its spans among it) shows as
//! the difference between two runs of different `N`, which takes out the start-up.
//!
//! ```text
//! cargo build --release -p toolcall-bench --example mcp_calls
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/mcp_calls add 2000
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/mcp_calls add 200
//! ```
//!
//! (instructions of the first, less those of the second, over 1,800.) Tools: `add`,
//! `get_weather`, `create_order`. No tracing subscriber is installed.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a profiling driver fails loudly")]

use std::process::ExitCode;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::Value;
use toolcall_bench::mcp::toolcall_server;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    let (Some(tool), Some(n)) = (argv.get(1), argv.get(2).and_then(|n| n.parse::<usize>().ok())) else {
        eprintln!("usage: mcp_calls <add|get_weather|create_order> <calls>");
        return ExitCode::FAILURE;
    };
    let args: Value = serde_json::from_str(toolcall_bench::sample_arguments(tool)).unwrap();
    let params = CallToolRequestParams::new(tool.clone()).with_arguments(args.as_object().cloned().unwrap());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async move {
        let (server_side, client_side) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            if let Ok(running) = toolcall_server().serve(server_side).await {
                let _ = running.waiting().await;
            }
        });
        let client = ().serve(client_side).await.unwrap();
        for _ in 0..n {
            let result = client.call_tool(params.clone()).await.unwrap();
            assert_eq!(result.is_error, Some(false));
        }
        client.cancel().await.unwrap();
    });
    ExitCode::SUCCESS
}
