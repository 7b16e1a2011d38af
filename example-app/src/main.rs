//! `example-app`: a demo of the seed's tools, a schema exporter, a one-shot caller and an
//! MCP server. See [`example_app::cli`] for the commands, or `example-app --help`.

use std::process::ExitCode;

/// jemalloc, with background threads that give freed memory back to the system: a server
/// that parsed a large request returns to its resting size within seconds.
#[cfg(all(unix, not(target_env = "musl")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    example_app::cli::main(std::env::args_os().skip(1))
}
