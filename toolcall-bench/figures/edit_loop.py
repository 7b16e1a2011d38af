#!/usr/bin/env python3
"""Edit-loop rebuild against tool count: toolcall against rmcp + schemars, written to
toolcall-bench/figures/data/edit_loop.csv for draw.py.

    python3 toolcall-bench/figures/edit_loop.py                      # N = 10, 50, 200, 500; median of 3
    python3 toolcall-bench/figures/edit_loop.py --tools 10 50 --runs 1 --csv -   # a quick look
    python3 toolcall-bench/figures/edit_loop.py --keep-targets       # leave the target dirs

It reuses the build-cost benchmark (toolcall-bench/buildcost/buildcost.py, imported as a
module): its generated crates (the `layer` variant: the tool layer alone, no transport),
its doc-comment edit, its interleaved timing (`measure_edits`: one unmeasured edit, then
`--runs` edits per side, toolcall first on odd runs, rmcp first on even ones) and its lock
files. Only the tool count changes, and everything is written under
toolcall-bench/figures/work/ (git ignores it) instead of buildcost/work/, so the two
harnesses never share a directory.

The code measured is a commit's tree (`--rev`, default HEAD), extracted into
figures/work/checkout, so edits others have not committed are not measured. Each N is a
debug build (cargo's default dev profile) with the dependencies warm (one unmeasured build
of each crate at that N first); the measure is the wall time of `cargo build` after
editing the first paragraph of one tool's doc comment (a tool of the middle file). The
1-minute load average when each N started is recorded beside it (`load_1min`), since a
busy machine stretches every build. The target directories are deleted at the end unless
`--keep-targets`.
"""

from __future__ import annotations

import argparse
import datetime
import inspect
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import draw  # the figures' own module: the CSV schemas it reads

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WORK = HERE / "work" / "edit_loop"
DEFAULT_CSV = HERE / "data" / "edit_loop.csv"
BUILDCOST = ROOT / "toolcall-bench" / "buildcost"
VARIANT = "layer"
# The series names draw.py's legend shows, per buildcost side.
SERIES = {"toolcall": "toolcall", "rmcp": "rmcp + schemars"}
COLUMNS = ["tools", "series", "median_s", "min_s", "max_s", "runs", "date", "commit", "load_1min"]
# What this driver needs from buildcost.py, with the parameters it passes.
NEEDED = {
    "generate": ["side", "variant", "tools"],
    "measure_edits": ["kind", "variants", "runs", "tools", "rev", "log"],
    "timed_build": ["side", "variant"],
    "ensure_locks": ["update", "log"],
    "extract": ["rev"],
}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def load_buildcost():
    """buildcost.py as a module, checked to have the functions (and tool-count parameters)
    this driver calls; exits with what is missing otherwise."""
    sys.dont_write_bytecode = True  # no __pycache__ beside buildcost.py
    sys.path.insert(0, str(BUILDCOST))
    try:
        import buildcost  # noqa: PLC0415 (a sibling script, found through sys.path)
    except Exception as error:  # noqa: BLE001 (any import failure ends the run the same way)
        sys.exit(f"error: cannot import {BUILDCOST / 'buildcost.py'}: {error}")
    missing = []
    for name, params in NEEDED.items():
        function = getattr(buildcost, name, None)
        have = list(inspect.signature(function).parameters) if callable(function) else []
        missing += [f"{name}({p})" for p in params if p not in have]
    for name in ("WORK", "SRC", "REV", "EDITED", "FILES", "SIDES", "VARIANTS", "Revisions"):
        if not hasattr(buildcost, name):
            missing.append(name)
    if missing:
        sys.exit(f"error: buildcost.py no longer has what edit_loop.py uses: {', '.join(missing)}")
    return buildcost


def edited_tool(bc, tools: int) -> int:
    """The tool whose doc comment is edited: one in the middle file (buildcost's own choice,
    tool 23 of 50, at 50 tools)."""
    per_file = tools // len(bc.FILES)
    return per_file * (len(bc.FILES) // 2) + min(3, per_file - 1)


def short_commit(rev: str) -> str:
    done = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"error: `git rev-parse {rev}` failed: {done.stderr.strip()}")
    return done.stdout.strip()


def point_bc_at_work(bc, rev: str) -> str:
    """Redirects buildcost's work directory to figures/work and its sources to `rev`'s tree;
    returns the short commit."""
    bc.WORK = WORK
    commit = short_commit(rev)
    bc.REV = commit
    bc.SRC = bc.extract(rev)
    return commit


def generate_all(bc, tools: int) -> None:
    """Every crate of both sides at `tools` tools (the workspaces list both variants)."""
    for side in bc.SIDES:
        for variant in bc.VARIANTS:
            bc.generate(side, variant, tools)


def measure(bc, tools: int, runs: int) -> dict[str, list[float]]:
    """Doc-comment edit rebuilds at `tools` tools: seconds per side, `runs` each."""
    bc.EDITED = edited_tool(bc, tools)
    generate_all(bc, tools)
    for side in bc.SIDES:
        wall, _ = bc.timed_build(side, VARIANT)
        log(f"  {tools} tools, warm build, {side}: {wall:.1f} s")
    measures = bc.measure_edits("doc", (VARIANT,), runs, tools, bc.Revisions(), log)
    return measures[VARIANT].walls


def rows_for(tools: int, walls: dict[str, list[float]], date: str, commit: str, load: str) -> list[list[str]]:
    """The CSV rows of one tool count; `load` is the 1-minute load average when it started."""
    rows = []
    for side, name in SERIES.items():
        samples = walls[side]
        rows.append([
            str(tools), name, f"{statistics.median(samples):.3f}", f"{min(samples):.3f}",
            f"{max(samples):.3f}", str(len(samples)), date, commit, load,
        ])
    return rows


def delete_targets(bc) -> None:
    for side in bc.SIDES:
        target = bc.target_dir(side)
        if target.exists():
            shutil.rmtree(target)
            log(f"deleted {target}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tools", type=int, nargs="+", default=[10, 50, 200, 500],
                        help="tool counts, each a multiple of 5 (10 50 200 500)")
    parser.add_argument("--runs", type=int, default=3, help="edits per side and tool count; the median is drawn (3)")
    parser.add_argument("--rev", default="HEAD", help="the commit whose toolcall-runtime/-build is measured (HEAD)")
    parser.add_argument("--csv", default=str(DEFAULT_CSV), help="where to write the CSV ('-': stdout)")
    parser.add_argument("--keep-targets", action="store_true", help="keep figures/work's target dirs")
    args = parser.parse_args()
    bc = load_buildcost()
    bad = [n for n in args.tools if n % len(bc.FILES) or n < 2 * len(bc.FILES)]
    if bad:
        sys.exit(f"error: --tools {bad}: each must be a multiple of {len(bc.FILES)}, at least {2 * len(bc.FILES)}")
    commit = point_bc_at_work(bc, args.rev)
    date = datetime.date.today().isoformat()
    generate_all(bc, args.tools[0])
    bc.ensure_locks(False, log)
    rows: list[list[str]] = []
    try:
        for tools in args.tools:
            load = bc.loadavg()
            log(f"{tools} tools (load {load})")
            walls = measure(bc, tools, args.runs)
            rows += rows_for(tools, walls, date, commit, load.split()[0])
            log("  medians: " + ", ".join(f"{s} {statistics.median(w):.3f} s" for s, w in walls.items()))
    except BaseException:
        # A partial run never replaces the CSV: what was measured goes to stderr only.
        if rows:
            log("measured before the failure:\n" + "\n".join(",".join(r) for r in rows))
        raise
    finally:
        if not args.keep_targets:
            delete_targets(bc)
    draw.write_csv(args.csv, COLUMNS, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
