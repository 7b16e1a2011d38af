#!/usr/bin/env python3
"""FastMCP's side of the tool-search benchmark: its BM25 search transform over the same tools.

    python fastmcp_eval.py --tools mcp.json --queries queries.json --out rankings.jsonl

`--tools` is the generated crate's MCP definitions (`bfcl-tools-N --emit-mcp`): the same
names (BFCL's with `.` written `-`), descriptions and input schemas the toolcall side
indexes. Each becomes a FastMCP `Tool` with that name, description and `parameters`
schema on a `FastMCP` server, and the server gets `BM25SearchTransform(max_results=10)`.

The search is run in process the way the transform's own `search_tools` tool runs it:
the catalog comes from `transform.get_tool_catalog(ctx)` (as `_get_visible_tools` gets
it), read once, then each query is `await transform._search(catalog, query)`, which is
what `search_tools` awaits per call (a staleness check of the catalog, a SHA-256 over
every tool's searchable text, and the BM25 scoring; the index is built on the first
call, before timing). Per query: one untimed call (its names are the ranking), then
`--repeats` timed calls with `time.perf_counter_ns`; `ns` is their median. `index_ns` is
the same for the index's own `query()` alone (no staleness check), for reference.

`--full-path K` also calls the `search_tools` tool through the server
(`mcp.call_tool`), for the first K queries: that adds the catalog listing and the JSON
rendering of the results. Its median per query is printed to stderr, and the names it
returns are checked against the direct call's.

Output: one JSON line per query, `{"id", "top", "ns", "index_ns"}`, and on stderr a
summary. `--meta FILE` writes the fastmcp version and the timings' summary.
"""

import argparse
import asyncio
import importlib.metadata
import json
import statistics
import sys
import time
from pathlib import Path

from fastmcp import FastMCP
from fastmcp.server.context import Context
from fastmcp.server.transforms.search import BM25SearchTransform
from fastmcp.tools.base import Tool, ToolResult

LIMIT = 10


class DefinedTool(Tool):
    """A tool given by its definition (name, description, JSON schema), not a function."""

    async def run(self, arguments: dict) -> ToolResult:
        return ToolResult(content="called")


async def run(args: argparse.Namespace) -> None:
    definitions = json.loads(args.tools.read_text(encoding="utf-8"))
    queries = json.loads(args.queries.read_text(encoding="utf-8"))
    mcp = FastMCP("bfcl")
    for d in definitions:
        mcp.add_tool(DefinedTool(name=d["name"], description=d.get("description"), parameters=d["inputSchema"]))
    transform = BM25SearchTransform(max_results=LIMIT)
    mcp.add_transform(transform)

    async with Context(fastmcp=mcp) as ctx:
        catalog = await transform._get_visible_tools(ctx)
    if len(catalog) != len(definitions):
        raise SystemExit(f"catalog has {len(catalog)} tools, {len(definitions)} defined")

    start = time.perf_counter_ns()
    await transform._search(catalog, "warm up the index")
    build_ns = time.perf_counter_ns() - start

    out = sys.stdout if str(args.out) == "-" else args.out.open("w", encoding="utf-8")
    medians, index_medians = [], []
    for q in queries:
        found = await transform._search(catalog, q["query"])
        samples = []
        for _ in range(args.repeats):
            t = time.perf_counter_ns()
            await transform._search(catalog, q["query"])
            samples.append(time.perf_counter_ns() - t)
        index_samples = []
        for _ in range(args.repeats):
            t = time.perf_counter_ns()
            transform._index.query(q["query"], LIMIT)
            index_samples.append(time.perf_counter_ns() - t)
        ns, index_ns = statistics.median(samples), statistics.median(index_samples)
        medians.append(ns)
        index_medians.append(index_ns)
        line = {"id": q["id"], "top": [t.name for t in found], "ns": ns, "index_ns": index_ns}
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
    if out is not sys.stdout:
        out.close()

    full = None
    if args.full_path:
        times, mismatches = [], 0
        for q in queries[: args.full_path]:
            direct = [t.name for t in await transform._search(catalog, q["query"])]
            t = time.perf_counter_ns()
            result = await mcp.call_tool("search_tools", {"query": q["query"]})
            times.append(time.perf_counter_ns() - t)
            listed = result.structured_content
            listed = listed.get("result", listed) if isinstance(listed, dict) else None
            if listed is None:
                listed = json.loads(result.content[0].text)
            if [t["name"] for t in listed] != direct:
                mismatches += 1
        full = {"queries": len(times), "median_ns": statistics.median(times), "mismatches": mismatches}

    summary = {
        "fastmcp_version": importlib.metadata.version("fastmcp"),
        "tools": len(definitions),
        "queries": len(queries),
        "repeats": args.repeats,
        "index_build_ns": build_ns,
        "median_ns": statistics.median(medians),
        "mean_ns": statistics.fmean(medians),
        "index_median_ns": statistics.median(index_medians),
        "full_path": full,
    }
    print(json.dumps(summary), file=sys.stderr)
    if args.meta:
        args.meta.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tools", type=Path, required=True, help="MCP definitions (bfcl-tools-N --emit-mcp)")
    ap.add_argument("--queries", type=Path, required=True, help='[{"id", "query"}, ..]')
    ap.add_argument("--out", type=Path, default=Path("-"), help="rankings, JSON lines (- for stdout)")
    ap.add_argument("--repeats", type=int, default=5, help="timed calls per query (median)")
    ap.add_argument("--full-path", type=int, default=0, metavar="K", help="also time search_tools via the server for K queries")
    ap.add_argument("--meta", type=Path, help="write the summary here too")
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()
