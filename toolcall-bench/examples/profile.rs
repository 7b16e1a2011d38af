//! A driver for profilers: runs one benchmarked operation `N` times, with nothing else in
//! the loop, so `valgrind --tool=callgrind` (or `perf`) sees only that operation.
//!
//! ```text
//! cargo build --release -p toolcall-bench --example profile
//! valgrind --tool=callgrind target/release/examples/profile run_json_add 100000
//! ```
//!
//! Its cases are those of `toolcall-bench/budgets/driver/cases.rs` (listed there; the
//! budget driver, `budgets/driver/main.rs`, runs the same code and builds without this
//! crate's dev-dependencies), plus `generate_<tools>` (`generate_20`, `generate_1000`):
//! the generator over synthetic sources, as the `generate` bench.

use std::hint::black_box;
use std::path::PathBuf;
use std::process::ExitCode;

use toolcall_bench::synth;
use toolcall_build::{Builder, SourceFile};

#[path = "../budgets/driver/cases.rs"]
mod cases;

/// `n` runs of the generator over `tools` synthetic tools (20 tools in 2 modules, 1,000
/// in 10, as the `generate` bench).
fn generate(tools: usize, n: usize) {
    let sources: Vec<SourceFile> = synth::sources(tools, if tools >= 1000 { 10 } else { 2 })
        .into_iter()
        .map(|(file, text)| SourceFile {
            path: PathBuf::from("src/tools").join(&file),
            relative: PathBuf::from(file),
            text,
        })
        .collect();
    let builder = Builder::new();
    (0..n).for_each(|_| drop(black_box(builder.generate_from(sources.clone()))));
}

fn main() -> ExitCode {
    let Some((case, n)) = cases::arguments() else {
        eprintln!("usage: profile <case> <iterations>");
        return ExitCode::FAILURE;
    };
    if let Some(tools) = case.strip_prefix("generate_") {
        let Ok(tools) = tools.parse::<usize>() else {
            eprintln!("unknown case `{case}`");
            return ExitCode::FAILURE;
        };
        generate(tools, n);
        return ExitCode::SUCCESS;
    }
    match cases::run(&case, n) {
        Ok(()) => ExitCode::SUCCESS,
        Err(cases::UnknownCase) => {
            eprintln!("unknown case `{case}`");
            ExitCode::FAILURE
        }
    }
}
