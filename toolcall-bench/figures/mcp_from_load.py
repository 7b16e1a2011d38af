#!/usr/bin/env python3
"""The MCP figure's data from the HTTP load test's own report: reads the main table of
toolcall-bench/sections/mcp_load.md (written by `examples/mcp_load.rs --markdown`) and
writes toolcall-bench/figures/data/mcp.csv for draw.py, one row per mode, client count
and server (toolcall-mcp and rmcp's macro server; example-app's column is left out).

    target/release/examples/mcp_load --pin 0/1 --max-seconds 2000 --soak-calls 3000 --rounds 5 --calls 2000 --markdown toolcall-bench/sections/mcp_load.md
    python3 toolcall-bench/figures/mcp_from_load.py
    python3 toolcall-bench/figures/draw.py

The figure is then the run's figures exactly: `test_draw.py` checks that the committed
CSV is what this script reads from the committed section.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import draw  # the figures' own module: the CSV schemas it reads

SECTION = draw.ROOT / "toolcall-bench" / "sections" / "mcp_load.md"
DEFAULT_CSV = draw.DATA / "mcp.csv"
COLUMNS = ["clients", "server", "mode", "calls_per_s", "p50_ms", "p99_ms", "calls_ok", "failed", "date", "commit", "source"]
# The section's server columns, and the names the figure's legend gives them.
SERVERS = {"toolcall-mcp": "toolcall-mcp", "rmcp macros": "rmcp #[tool]"}
# The section's modes, and the figure's.
MODES = {"stateless": "stateless", "legacy session": "legacy sessions"}


class SectionError(Exception):
    """The section is not in the form mcp_load writes."""


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def rows_from(section: str) -> list[list[str]]:
    """The CSV rows of the section's main table (the one with a `mode` and a `clients`
    column), with the run's date and commit."""
    found = re.search(r"Date (\d{4}-\d{2}-\d{2}), commit `([0-9a-f+dirty]+)`", section)
    if not found:
        raise SectionError("no `Date YYYY-MM-DD, commit `...`` line")
    date, commit = found.groups()
    lines = section.splitlines()
    header_at = next((i for i, line in enumerate(lines) if line.startswith("| mode | clients |")), None)
    if header_at is None:
        raise SectionError("no table whose header starts `| mode | clients |`")
    header = cells(lines[header_at])
    rows = []
    for line in lines[header_at + 2:]:
        if not line.startswith("|"):
            break
        row = dict(zip(header, cells(line)))
        mode = next((name for prefix, name in MODES.items() if row["mode"].startswith(prefix)), None)
        if mode is None:
            raise SectionError(f"unknown mode {row['mode']!r}")
        for column, server in SERVERS.items():
            latency = row.get(f"{column} p50 / p99", "")
            times = re.fullmatch(r"([\d.]+) ms / ([\d.]+) ms", latency)
            calls = row.get(f"{column} calls/s", "")
            if not times or not calls.isdigit():
                raise SectionError(f"{column} at {row['clients']} clients ({row['mode']}): {calls!r}, {latency!r}")
            rows.append([row["clients"], server, mode, calls, times.group(1), times.group(2), "", "", date, commit, "mcp_load"])
    if not rows:
        raise SectionError("the table has no rows")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--section", default=str(SECTION), help="mcp_load's markdown report")
    parser.add_argument("--csv", default=str(DEFAULT_CSV), help="where to write the CSV ('-': stdout)")
    args = parser.parse_args()
    try:
        rows = rows_from(Path(args.section).read_text())
    except (OSError, SectionError) as error:
        print(f"mcp_from_load: {args.section}: {error}", file=sys.stderr)
        return 1
    draw.write_csv(args.csv, COLUMNS, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
