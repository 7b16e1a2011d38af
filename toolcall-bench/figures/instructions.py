#!/usr/bin/env python3
"""Instructions per call by entry point, toolcall against hand-written serde, from
callgrind: written to toolcall-bench/figures/data/instructions.csv for draw.py.

    python3 toolcall-bench/figures/instructions.py             # build, measure, write the CSV
    python3 toolcall-bench/figures/instructions.py --csv -     # print it instead
    python3 toolcall-bench/figures/instructions.py --no-build  # use the last release build

The method is report.py's (BENCHMARKS.md, "Instructions per call"):
`valgrind --tool=callgrind` on the release build of toolcall-bench/examples/profile.rs,
each case run with N iterations and with 0, the difference divided by N, so start-up and
the case's set-up cancel out. Instruction counts do not depend on the machine's load.

Cases (profile.rs's names): for each tool (`add`, `get_weather`, `create_order`),
`run_<tool>` and `run_json_<tool>` (toolcall's generated dispatcher: `ALL.run` on a
`Value`, `ALL.run_json` on the text) against `serde_run_<tool>` and `serde_run_json_<tool>`
(a hand-written dispatcher over `#[derive(Deserialize)]` argument structs,
toolcall-bench/src/baseline.rs), and `call_<tool>` (`ALL.call`, polled once; serde has no
such entry point). A `call_<tool>` case profile.rs does not know is left out of the CSV
(it knows `call_add` today), so the figure fills in when profile.rs learns the others.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import draw  # the figures' own module: the CSV schemas it reads

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TARGET = Path(os.environ["CARGO_TARGET_DIR"]).resolve() if os.environ.get("CARGO_TARGET_DIR") else ROOT / "target"
PROFILE = TARGET / "release" / "examples" / "profile"
DEFAULT_CSV = HERE / "data" / "instructions.csv"
TOOLS = ("add", "get_weather", "create_order")
COLUMNS = ["entry_point", "tool", "implementation", "instructions_per_call", "iterations", "date", "commit"]
ITERATIONS = 2000


class UnknownCase(Exception):
    """profile.rs does not know the case."""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def cases() -> list[tuple[str, str, str, str]]:
    """(entry point, tool, implementation, profile.rs case), in the figure's order."""
    out = []
    for tool in TOOLS:
        for entry in ("run", "run_json"):
            out.append((entry, tool, "toolcall", f"{entry}_{tool}"))
            out.append((entry, tool, "serde derive", f"serde_{entry}_{tool}"))
        out.append(("call", tool, "toolcall", f"call_{tool}"))
    return out


def build() -> None:
    command = ["cargo", "build", "--release", "--quiet", "-p", "toolcall-bench", "--example", "profile"]
    log("$ " + " ".join(command))
    if subprocess.run(command, cwd=ROOT).returncode != 0:
        sys.exit("error: building toolcall-bench's profile example failed")


def total(binary: Path, case: str, iterations: int, out: Path) -> int:
    """callgrind's instruction total for one run of `profile <case> <iterations>`."""
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(binary), case, str(iterations)],
        capture_output=True, text=True,
    )
    if "unknown case" in run.stderr:
        raise UnknownCase(case)
    match = re.search(r"Collected : (\d+)", run.stderr)
    if run.returncode != 0 or not match:
        sys.exit(f"error: callgrind on `profile {case} {iterations}` failed:\n{run.stderr[-1500:]}")
    return int(match.group(1))


def per_call(binary: Path, case: str, iterations: int, out: Path) -> float:
    """Instructions per iteration of `case`: (total at N - total at 0) / N."""
    return (total(binary, case, iterations, out) - total(binary, case, 0, out)) / iterations


def head() -> str:
    """The commit measured, `+dirty` when toolcall-runtime/toolcall-build have changes (as report.py)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()

    return git("rev-parse", "--short", "HEAD") + ("+dirty" if git("status", "--porcelain", "toolcall-runtime", "toolcall-build") else "")


def measure(binary: Path, iterations: int) -> list[list[str]]:
    date, commit = datetime.date.today().isoformat(), head()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        for entry, tool, implementation, case in cases():
            try:
                count = per_call(binary, case, iterations, out)
            except UnknownCase:
                log(f"  {case}: profile.rs does not know it; left out")
                continue
            log(f"  {case}: {count:,.1f} instructions per call")
            rows.append([entry, tool, implementation, f"{count:.1f}", str(iterations), date, commit])
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--csv", default=str(DEFAULT_CSV), help="where to write the CSV ('-': stdout)")
    parser.add_argument("--iterations", type=int, default=ITERATIONS, help=f"N per case ({ITERATIONS})")
    parser.add_argument("--no-build", action="store_true", help="use the last release build of the profile example")
    parser.add_argument("--binary", type=Path, default=PROFILE,
                        help="the profile binary (a copy, when others rebuild the target dir; implies --no-build)")
    args = parser.parse_args()
    if args.iterations < 1:
        sys.exit("error: --iterations must be at least 1")
    if not args.no_build and args.binary == PROFILE:
        build()
    if not args.binary.exists():
        sys.exit(f"error: {args.binary} does not exist; build it (cargo build --release -p toolcall-bench --example profile)")
    draw.write_csv(args.csv, COLUMNS, measure(args.binary, args.iterations))
    return 0


if __name__ == "__main__":
    sys.exit(main())
