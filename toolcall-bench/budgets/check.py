#!/usr/bin/env python3
"""Instruction budgets per call, checked in CI (#66 item 2; BENCHMARKS.md, "Budgets
checked in CI").

    cargo build --release -p toolcall-bench --bin budget-driver
    python3 toolcall-bench/budgets/check.py                       # measure and compare
    python3 toolcall-bench/budgets/check.py --update 'run add' --why 'what costs it'
    python3 toolcall-bench/budgets/check.py --update              # every case
    python3 toolcall-bench/budgets/check.py --repeat 3            # each case 3 times: spread
    python3 toolcall-bench/budgets/check.py --self-test           # the comparison's own tests

Builds nothing: it runs the release build of the budget driver (driver/ beside this
script: main.rs runs one case of cases.rs, the code toolcall-bench/examples/profile.rs
profiles too; a binary of toolcall-bench, so its build compiles none of the crate's
dev-dependencies) under `valgrind --tool=callgrind` for each case of budgets.json (beside
this script), once with
the case's `calls` and once with none, and divides the difference by `calls` (start-up and
the case's set-up cancel out; instruction counts do not move with the machine's load).
Each count is compared with the case's committed budget:

- more than 5% over budget fails (exit 1), with the command that raises a budget on
  purpose;
- more than 5% under budget is reported, not failed: lower the budget so that the gain is
  kept.

The six `run`/`run_json` paths are also measured against the hand-written serde-derive
dispatcher of the same binary (`serde_run_<tool>`, `serde_run_json_<tool>`), and the ratios
printed beside #66's targets, for information.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BUDGETS = HERE / "budgets.json"
TARGET = Path(os.environ["CARGO_TARGET_DIR"]).resolve() if os.environ.get("CARGO_TARGET_DIR") else ROOT / "target"
DRIVER = TARGET / "release" / "budget-driver"
BUILD = "cargo build --release -p toolcall-bench --bin budget-driver"
TOLERANCE = 0.05
SCRIPT = "python3 toolcall-bench/budgets/check.py"

# driver/cases.rs case -> measured instructions per call.
Measure = Callable[[str, int], float]


# One malloc arena for every thread. The MCP case's first polls run on tokio's blocking
# pool during its warm-up; with that thread's own arena, which chunks its frees and the
# main thread's later allocations find (as the threads' timing had it) left the heap in one
# of two states, and every later call's count 0.4% apart from run to run. With one arena
# the spread is under 0.2%; the single-threaded cases do not change.
TUNABLES = "glibc.malloc.arena_max=1"


def instructions(case: str, calls: int, binary: Path = DRIVER) -> int:
    """callgrind's instruction total for one run of `budget-driver <case> <calls>`."""
    tunables = ":".join(t for t in (os.environ.get("GLIBC_TUNABLES"), TUNABLES) if t)
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", str(binary), case, str(calls)],
        capture_output=True, text=True, env={**os.environ, "GLIBC_TUNABLES": tunables},
    )
    found = re.search(r"Collected : (\d+)", run.stderr)
    if run.returncode != 0 or not found:
        raise SystemExit(f"error: `{binary.name} {case} {calls}` under callgrind failed (exit {run.returncode}):\n{run.stderr}")
    return int(found.group(1))


def require_driver(driver: Path) -> None:
    """Exits, naming the command that builds it, when the driver is not built."""
    if not driver.exists():
        raise SystemExit(f"error: no {driver}: {BUILD}")


def per_call(case: str, calls: int) -> float:
    return (instructions(case, calls) - instructions(case, 0)) / calls


@dataclass
class Row:
    name: str
    budget: int
    measured: float
    spread: float = 0.0  # (max - min) / median over repeats, 0 when measured once

    @property
    def ratio(self) -> float:
        return self.measured / self.budget

    @property
    def over(self) -> bool:
        return self.measured > self.budget * (1 + TOLERANCE)

    @property
    def under(self) -> bool:
        return self.measured < self.budget * (1 - TOLERANCE)


@dataclass
class Report:
    rows: list[Row] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def failed(self) -> list[Row]:
        return [r for r in self.rows if r.over]

    @property
    def dropped(self) -> list[Row]:
        return [r for r in self.rows if r.under]

    @property
    def ok(self) -> bool:
        return not self.failed and not self.missing


def compare(budgets: dict, measured: dict[str, list[float]]) -> Report:
    """Each budgeted case against its measurements (the median of its repeats)."""
    report = Report()
    for name, entry in budgets["cases"].items():
        counts = measured.get(name)
        if not counts:
            report.missing.append(name)
            continue
        mid = statistics.median(counts)
        spread = (max(counts) - min(counts)) / mid if mid else 0.0
        report.rows.append(Row(name, int(entry["budget"]), mid, spread))
    return report


def load(path: Path = BUDGETS) -> dict:
    budgets = json.loads(path.read_text())
    for name, entry in budgets["cases"].items():
        for key in ("case", "calls", "budget", "commit", "why"):
            if key not in entry:
                raise SystemExit(f"error: {path}: case `{name}` has no `{key}`")
    return budgets


def measure_all(budgets: dict, repeat: int, measure: Measure, jobs: int) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Per budgeted case, `repeat` counts; per serde baseline case, one."""
    work: list[tuple[str, str, int]] = []  # (key, driver case, calls)
    for name, entry in budgets["cases"].items():
        work += [(name, entry["case"], entry["calls"])] * repeat
        if entry.get("serde"):
            work.append(("serde:" + name, entry["serde"], entry["calls"]))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        counts = list(pool.map(lambda w: measure(w[1], w[2]), work))
    measured: dict[str, list[float]] = {}
    serde: dict[str, float] = {}
    for (key, _, _), count in zip(work, counts):
        if key.startswith("serde:"):
            serde[key[len("serde:"):]] = count
        else:
            measured.setdefault(key, []).append(count)
    return measured, serde


def print_report(budgets: dict, budgets_path: Path, report: Report, serde: dict[str, float], out=sys.stdout) -> None:
    repeats = any(r.spread for r in report.rows)
    print(f"Instructions per call against {os.path.relpath(budgets_path, ROOT)} (callgrind, release):", file=out)
    print("| case | budget | measured | ratio |" + (" spread |" if repeats else ""), file=out)
    print("|---|---:|---:|---:|" + ("---:|" if repeats else ""), file=out)
    for r in report.rows:
        flag = " **over**" if r.over else (" under" if r.under else "")
        spread = f" {r.spread:.2%} |" if repeats else ""
        print(f"| {r.name} | {r.budget:,} | {r.measured:,.1f} | {r.ratio:.3f}{flag} |{spread}", file=out)
    if serde:
        print("\nAgainst the hand-written serde-derive dispatcher (information; #66's targets):", file=out)
        print("| path | toolcall | serde derive | ratio | target | met? |", file=out)
        print("|---|---:|---:|---:|---:|---|", file=out)
        by_name = {r.name: r for r in report.rows}
        for name, entry in budgets["cases"].items():
            if name not in serde or name not in by_name:
                continue
            ratio = by_name[name].measured / serde[name]
            target = entry.get("serde_target")
            met = "—" if target is None else ("yes" if ratio <= target else "no")
            shown = "—" if target is None else f"≤ {target}x"
            print(f"| {name} | {by_name[name].measured:,.1f} | {serde[name]:,.1f} | {ratio:.2f}x | {shown} | {met} |", file=out)


def verdict(budgets: dict, budgets_path: Path, report: Report, out=sys.stdout) -> int:
    """Prints what the report means; the exit code."""
    rel = os.path.relpath(budgets_path, ROOT)
    for r in report.dropped:
        print(f"\nnote: `{r.name}` costs {r.measured:,.1f} instructions, {1 - r.ratio:.1%} under its budget "
              f"of {r.budget:,}: lower the budget to keep the gain:\n"
              f"    {SCRIPT} --update '{r.name}' --why '<what made it cheaper>'", file=out)
    for name in report.missing:
        print(f"\nerror: no measurement for `{name}`", file=out)
    if report.ok:
        print(f"\nbudgets: {len(report.rows)} cases within {TOLERANCE:.0%} of their budgets ({rel})", file=out)
        return 0
    if report.failed:
        names = ", ".join(f"`{r.name}` {r.budget:,} -> {r.measured:,.1f} ({r.ratio - 1:+.1%})" for r in report.failed)
        quoted = " ".join(f"'{r.name}'" for r in report.failed)
        first = budgets["cases"][report.failed[0].name]
        driver = os.path.relpath(DRIVER, ROOT)
        print(f"""
FAILED: instructions per call rose more than {TOLERANCE:.0%} over budget: {names}.

If the rise is not meant, find what costs it: profile the case (and the same at the
budget's commit) and read where the instructions go, e.g.
    valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out {driver} {first["case"]} {first["calls"]}
    callgrind_annotate /tmp/cg.out
If it is meant (a feature worth its cost), raise the budget on purpose:
    {SCRIPT} --update {quoted} --why '<what costs it and why it is worth it>'
which rewrites {rel} with the measured counts and this commit. Commit that file so the
new budget is reviewed in the diff, and name it (case, old -> new budget, why) in
BENCHMARKS.md's "Budgets checked in CI" (toolcall-bench/sections/budgets_ci.md, then
python3 toolcall-bench/report.py --splice).""", file=out)
    return 1


def head_commit() -> str:
    run = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return run.stdout.strip() or "unknown"


def update(budgets: dict, report: Report, names: list[str], why: str | None, commit: str) -> list[str]:
    """Sets the budgets of `names` (every case when empty) to their measured counts, measured
    at `commit`."""
    changed = []
    for r in report.rows:
        if names and r.name not in names:
            continue
        entry = budgets["cases"][r.name]
        new = round(r.measured)
        changed.append(f"{r.name}: {entry['budget']:,} -> {new:,} (at {commit})")
        entry["budget"], entry["commit"] = new, commit
        if why:
            entry["why"] = why
    return changed


def main(argv: list[str] | None = None, measure: Measure | None = None, budgets_path: Path = BUDGETS,
         out=sys.stdout) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--update", nargs="*", metavar="CASE",
                        help="rewrite the budgets of these cases (all when none is named) with the measured counts")
    parser.add_argument("--why", help="with --update: the reason recorded for the new budgets")
    parser.add_argument("--repeat", type=int, default=1, help="measure each case this many times (median; spread shown)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="callgrind runs at once")
    parser.add_argument("--self-test", action="store_true", help="run the checker's own tests and exit")
    args = parser.parse_args(argv)
    if args.self_test:
        return self_test()
    budgets = load(budgets_path)
    if args.update:
        unknown = [n for n in args.update if n not in budgets["cases"]]
        if unknown:
            parser.error(f"no such case: {', '.join(unknown)} (cases: {', '.join(budgets['cases'])})")
    if measure is None:
        if shutil.which("valgrind") is None:
            raise SystemExit("error: valgrind is needed (apt-get install valgrind)")
        require_driver(DRIVER)
        measure = per_call
    measured, serde = measure_all(budgets, max(1, args.repeat), measure, max(1, args.jobs))
    report = compare(budgets, measured)
    print_report(budgets, budgets_path, report, serde, out)
    if args.update is not None:
        changed = update(budgets, report, args.update, args.why, head_commit())
        budgets_path.write_text(json.dumps(budgets, indent=2, ensure_ascii=False) + "\n")
        print("\nupdated " + os.path.relpath(budgets_path, ROOT) + ":\n  " + "\n  ".join(changed),
              file=out)
        return 0
    return verdict(budgets, budgets_path, report, out)


def self_test() -> int:
    """The comparison fails what it should: fabricated measurements through `main`."""
    import io
    import tempfile
    import unittest

    budgets = {"cases": {
        "run add": {"case": "run_add", "calls": 10, "budget": 1000, "commit": "c0ffee0", "why": "test",
                    "serde": "serde_run_add", "serde_target": 1.45},
        "mcp": {"case": "mcp_call_add", "calls": 10, "budget": 200000, "commit": "c0ffee0", "why": "test"},
    }}

    def run(counts: dict[str, float], *argv: str) -> tuple[int, str, dict]:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "budgets.json"
            path.write_text(json.dumps(budgets))
            out = io.StringIO()
            code = main(list(argv), measure=lambda case, calls: counts[case], budgets_path=path, out=out)
            return code, out.getvalue(), json.loads(path.read_text())

    base = {"run_add": 1000.0, "serde_run_add": 700.0, "mcp_call_add": 200000.0}

    class Checker(unittest.TestCase):
        def test_within_budget_passes(self):
            code, text, _ = run(base)
            self.assertEqual(code, 0, text)
            self.assertIn("1.43x", text)  # the serde ratio is shown

        def test_a_rise_over_five_percent_fails_and_says_how_to_raise(self):
            code, text, _ = run({**base, "mcp_call_add": 210001.0})
            self.assertEqual(code, 1, text)
            self.assertIn("FAILED", text)
            self.assertIn("check.py --update 'mcp'", text)
            self.assertIn("BENCHMARKS.md", text)

        def test_five_percent_exactly_passes_one_instruction_more_fails(self):
            self.assertEqual(run({**base, "run_add": 1050.0})[0], 0)
            self.assertEqual(run({**base, "run_add": 1050.1})[0], 1)

        def test_a_drop_is_reported_not_failed(self):
            code, text, _ = run({**base, "run_add": 900.0})
            self.assertEqual(code, 0, text)
            self.assertIn("lower the budget", text)

        def test_a_missing_measurement_fails(self):
            report = compare(budgets, {"run add": [1000.0]})
            self.assertFalse(report.ok)
            self.assertEqual(report.missing, ["mcp"])

        def test_the_median_of_repeats_is_compared(self):
            report = compare(budgets, {"run add": [1000.0, 2000.0, 1001.0], "mcp": [200000.0]})
            self.assertTrue(report.ok)
            self.assertAlmostEqual(report.rows[0].spread, 1.0, places=2)

        def test_a_failure_names_the_driver_to_profile(self):
            _, text, _ = run({**base, "run_add": 2000.0})
            self.assertIn(f"{os.path.relpath(DRIVER, ROOT)} run_add 10", text)

        def test_a_missing_driver_names_the_build(self):
            with tempfile.TemporaryDirectory() as tmp:
                with self.assertRaises(SystemExit) as raised:
                    require_driver(Path(tmp) / DRIVER.name)
            self.assertIn(BUILD, str(raised.exception))

        def test_ci_builds_the_driver_this_script_runs(self):
            # .ci/run builds what the checker runs (with --locked), and the binary built is
            # the one it looks for.
            ci = (ROOT / ".ci" / "run").read_text()
            self.assertTrue(BUILD + " --locked" in ci, f".ci/run does not run `{BUILD} --locked`")
            self.assertEqual(BUILD.split("--bin ")[1], DRIVER.name)

        def test_every_budgeted_case_is_a_driver_case(self):
            # A case budgets.json names that the driver does not know would fail every
            # run; the driver's cases are the prefixes and names its `run` matches.
            cases = (HERE / "driver" / "cases.rs").read_text()
            known = re.findall(r'(?:starts_with\("|^\s*")([a-z_0-9]+)"', cases, re.M)
            for name, entry in load()["cases"].items():
                for case in filter(None, (entry["case"], entry.get("serde"))):
                    self.assertTrue(any(case == k or case.startswith(k) and k.endswith("_") for k in known),
                                    f"{name}: `{case}` is not a case of driver/cases.rs")

        def test_update_rewrites_only_the_named_case(self):
            code, _, written = run({**base, "run_add": 1200.4, "mcp_call_add": 250000.0}, "--update", "run add",
                                   "--why", "on purpose")
            self.assertEqual(code, 0)
            self.assertEqual(written["cases"]["run add"]["budget"], 1200)
            self.assertEqual(written["cases"]["run add"]["why"], "on purpose")
            self.assertNotEqual(written["cases"]["run add"]["commit"], "c0ffee0")
            self.assertEqual(written["cases"]["mcp"]["budget"], 200000)

    suite = unittest.defaultTestLoader.loadTestsFromTestCase(Checker)
    result = unittest.TextTestRunner(stream=sys.stderr, verbosity=1).run(suite)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
