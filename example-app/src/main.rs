//! `example-app`: a demo of the seed's tools, a schema exporter, a one-shot caller and an
//! MCP server. See [`example_app::cli`] for the commands, or `example-app --help`.

use std::process::ExitCode;

/// jemalloc, with background threads that give freed memory back to the system: a server
/// that parsed a large request returns to its resting size within seconds.
#[cfg(all(unix, not(target_env = "musl")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    // The request log, and traces and metrics when OTEL_EXPORTER_OTLP_ENDPOINT is set;
    // flushed when dropped, after the command.
    let _telemetry = example_app::telemetry::Telemetry::init();
    // The operator's log: warnings and the server's life events on stderr, as text or,
    // with `--log-json`, JSON lines.
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    example_app::oplog::install(example_app::oplog::LogFormat::from_args(&args));
    example_app::cli::main(args)
}
