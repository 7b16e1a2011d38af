//! The budget driver: runs one case of `cases.rs` (beside this file) `N` times, for
//! `toolcall-bench/budgets/check.py`, which runs it under callgrind for each case of
//! `budgets.json`.
//!
//! ```text
//! cargo build --release -p toolcall-bench --bin budget-driver
//! valgrind --tool=callgrind target/release/budget-driver run_json_add 100000
//! ```
//!
//! A binary of toolcall-bench rather than an example: a binary's release build compiles
//! the crate's normal dependencies only, not its dev-dependencies (criterion, jsonschema,
//! the load test's HTTP stacks), which CI's cold build would otherwise spend minutes on.
//! `examples/profile.rs` runs the same cases (this module, compiled into it) and the
//! generator's too.

use std::process::ExitCode;

mod cases;

fn main() -> ExitCode {
    let Some((case, n)) = cases::arguments() else {
        eprintln!("usage: budget-driver <case> <iterations>");
        return ExitCode::FAILURE;
    };
    match cases::run(&case, n) {
        Ok(()) => ExitCode::SUCCESS,
        Err(cases::UnknownCase) => {
            eprintln!("unknown case `{case}`");
            ExitCode::FAILURE
        }
    }
}
