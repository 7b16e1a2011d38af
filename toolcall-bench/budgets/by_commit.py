#!/usr/bin/env python3
"""Instructions per call of a few calls, at several commits: what a round's changes cost
the call paths (BENCHMARKS.md, "Budgets of the round").

    python3 toolcall-bench/budgets/by_commit.py 8ff1edf 7490f15^ 7490f15 HEAD

For each commit it extracts the tree (`git archive`, so uncommitted edits are not
measured) into toolcall-bench/budgets/work/<commit>/ (git ignores work/), builds a small
probe crate against that tree's toolcall-runtime and toolcall-build (release, one target
directory for every commit, so only those crates rebuild) and counts instructions with
callgrind: the probe making N calls less the probe making none, divided by N. Counts do
not move with the machine's load, so commits measured at different times compare.

The probe's tools (`src/tools/probe.rs` below): `add(a: i64, b: i64) -> i64` and
`forecast(city: String) -> Forecast`, a 3-field struct. The cases: `run add` on
`{"a":2,"b":40}` (a decoded Value in, a number out) and `run_json forecast` on
`{"city":"Oslo"}` (text in, a struct encoded to a Value out).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORK = Path(__file__).resolve().parent / "work"
CALLS = 2000
CASES = {"run add": "add", "run_json forecast": "forecast"}

CARGO_TOML = """\
[package]
name = "probe"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
toolcall-runtime = {{ path = "{tree}/toolcall-runtime" }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"

[build-dependencies]
toolcall-build = {{ path = "{tree}/toolcall-build" }}

[workspace]
"""

TOOLS = '''\
/// Add two numbers.
///
/// # Arguments
///
/// * `a` - the first
/// * `b` - the second
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// A forecast.
#[derive(serde::Serialize)]
pub struct Forecast {
    /// The city.
    pub city: String,
    /// Days ahead.
    pub days: u32,
    /// Temperature.
    pub temp: f64,
}

/// Get the forecast for a city.
///
/// # Arguments
///
/// * `city` - city name
pub fn forecast(city: String) -> Forecast {
    Forecast { city, days: 3, temp: 21.5 }
}
'''

MAIN = '''\
mod tools;
mod toolset {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}

use std::hint::black_box;

fn main() {
    let case = std::env::args().nth(1).unwrap_or_default();
    let n: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(0);
    let args = serde_json::json!({"a": 2, "b": 40});
    let mut answered = 0usize;
    for _ in 0..n {
        let out = match case.as_str() {
            "add" => toolset::ALL.run(black_box("add"), black_box(&args)),
            _ => toolset::ALL.run_json(black_box("forecast"), black_box(r#"{"city":"Oslo"}"#)),
        };
        answered += usize::from(out.is_ok());
    }
    println!("{answered}");
}
'''


def run(args: list[str], cwd: Path | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True, **kw)


def extract(rev: str) -> tuple[str, Path]:
    """The tree of `rev` under work/<short commit>, extracted once."""
    commit = run(["git", "rev-parse", "--short", rev], cwd=ROOT).stdout.strip()
    dest = WORK / commit
    if not (dest / "Cargo.toml").exists():
        dest.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return commit, dest


def build_probe(tree: Path) -> Path:
    """The probe built against `tree`; returns its binary."""
    crate = WORK / "probe"
    (crate / "src" / "tools").mkdir(parents=True, exist_ok=True)
    (crate / "Cargo.toml").write_text(CARGO_TOML.format(tree=tree))
    (crate / "build.rs").write_text("fn main() {\n    toolcall_build::Builder::new().compile();\n}\n")
    (crate / "src" / "main.rs").write_text(MAIN)
    (crate / "src" / "tools" / "mod.rs").write_text("pub mod probe;\n")
    (crate / "src" / "tools" / "probe.rs").write_text(TOOLS)
    target = WORK / "target"
    subprocess.run(["cargo", "build", "--quiet", "--release"], cwd=crate, check=True,
                   env={**os.environ, "CARGO_TARGET_DIR": str(target)})
    return target / "release" / "probe"


def instructions(binary: Path, case: str, calls: int) -> int:
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", str(binary), case, str(calls)],
                         check=True, capture_output=True, text=True).stderr
    found = re.search(r"Collected : (\d+)", out)
    if not found:
        raise SystemExit(f"callgrind printed no count for {case}:\n{out}")
    return int(found.group(1))


def per_call(binary: Path, case: str) -> float:
    return (instructions(binary, case, CALLS) - instructions(binary, case, 0)) / CALLS


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("revs", nargs="+", help="commits to measure, in the order to print")
    parser.add_argument("--keep", action="store_true", help="keep work/ (the trees and the target) afterwards")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is needed (apt-get install valgrind)")
    print("| commit | " + " | ".join(f"`{name}`" for name in CASES) + " |")
    print("|---|" + "---:|" * len(CASES))
    try:
        for rev in args.revs:
            commit, tree = extract(rev)
            binary = build_probe(tree)
            counts = [per_call(binary, case) for case in CASES.values()]
            print(f"| `{commit}` ({rev}) | " + " | ".join(f"{c:,.1f}" for c in counts) + " |", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(WORK, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
