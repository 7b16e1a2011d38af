//! `example-app`: a demo of the seed's tools, a schema exporter and a one-shot caller.
//! See [`example_app::cli`] for the commands.

use std::process::ExitCode;

fn main() -> ExitCode {
    example_app::cli::main(std::env::args_os().skip(1))
}
