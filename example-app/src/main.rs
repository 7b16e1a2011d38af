//! `example-app`: a demo of the seed's tools, a schema exporter, a one-shot caller and an
//! MCP server. See [`example_app::cli`] for the commands, or `example-app --help`.

use std::process::ExitCode;

fn main() -> ExitCode {
    example_app::cli::main(std::env::args_os().skip(1))
}
