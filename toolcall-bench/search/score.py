#!/usr/bin/env python3
"""Scores the tool-search benchmark: toolcall's compiled search against FastMCP's BM25.

    python3 toolcall-bench/search/score.py [--root target/search-bench] [--out report.md]

Reads, under `--root` (what scripts/search-bench writes):

- `data/queries.json`, `data/meta.json` (bfcl_data.py): the queries, their answers, the
  held-out/tuning split;
- for each size `S` in 100, 1000, all, 10000: `crates/bfcl-tools-S/names.json` (wire name
  -> BFCL name), `results/toolcall-S.jsonl` and `results/fastmcp-S.jsonl` (rankings and
  per-query times), `results/fastmcp-S.meta.json`;
- `results/sizes-1000.json` (`bfcl-tools-1000 --emit-sizes`), `results/build-2000.json`.

Quality: a query is found at rank r when any of its answers is the r-th name of the
ranking (names mapped back to BFCL's through names.json); recall@k is the share found
at rank <= k, MRR the mean of 1/r (0 when not in the top 10). At 100 and 1,000 tools
only the queries whose answers are all in the set are scored (the set is the first N
of the pool, which starts with live_multiple's own definitions: at 1,000 that is every
query). The 10,000-tool set holds renamed copies and is timed only.

Speed: each side's per-query time (toolcall: median of 7 rounds; FastMCP: median of its
repeats), then the median and the mean over the queries; the ratio is FastMCP's time
over toolcall's.

`--diff FILE` writes the queries where the two rank the answer differently (FastMCP
better first), with both top-5s, for tuning.
"""

import argparse
import json
import statistics
from pathlib import Path

SIZES = ["100", "1000", "all", "10000"]
QUALITY_SIZES = ["all", "1000", "100"]
SPEED_SIZES = ["100", "1000", "all", "10000"]
HALVES = ["held_out", "tuning"]


def read_jsonl(path: Path) -> dict[str, dict] | None:
    if not path.exists() or path.stat().st_size == 0:
        return None
    with path.open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return {r["id"]: r for r in rows}


def read_json(path: Path):
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def rank_of(top: list[str], wire_to_bfcl: dict[str, str], answers: list[str]) -> int | None:
    for r, name in enumerate(top, 1):
        if wire_to_bfcl.get(name) in answers:
            return r
    return None


def metrics(ranks: list[int | None]) -> dict:
    n = len(ranks)
    if n == 0:
        return {"n": 0}
    return {
        "n": n,
        "r1": sum(1 for r in ranks if r is not None and r <= 1) / n,
        "r5": sum(1 for r in ranks if r is not None and r <= 5) / n,
        "r10": sum(1 for r in ranks if r is not None and r <= 10) / n,
        "mrr": sum(1 / r for r in ranks if r is not None) / n,
    }


def fmt_ns(ns: float | None) -> str:
    if ns is None:
        return "n/a"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns:.0f} ns"


def label(size: str, count: int) -> str:
    return f"{count:,}" + (" (all)" if size == "all" else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2] / "target/search-bench")
    ap.add_argument("--out", type=Path, help="also write the report here")
    ap.add_argument("--diff", type=Path, help="write the per-query differences here")
    ap.add_argument("--json", type=Path, help="write the figures as JSON here")
    args = ap.parse_args()
    root = args.root
    queries = read_json(root / "data/queries.json")
    meta = read_json(root / "data/meta.json")
    by_id = {q["id"]: q for q in queries}

    sets, runs, fast_meta = {}, {}, {}
    for size in SIZES:
        names = read_json(root / f"crates/bfcl-tools-{size}/names.json")
        if names is None:
            continue
        sets[size] = names
        runs[size] = {
            "toolcall": read_jsonl(root / f"results/toolcall-{size}.jsonl"),
            "fastmcp": read_jsonl(root / f"results/fastmcp-{size}.jsonl"),
        }
        fast_meta[size] = read_json(root / f"results/fastmcp-{size}.meta.json")
    version = next((m["fastmcp_version"] for m in fast_meta.values() if m), "?")
    source = read_json(root / "results/toolcall-source.json") or {}

    lines: list[str] = []
    out = lines.append
    figures: dict = {"toolcall": source.get("toolcall"), "fastmcp_version": version, "bfcl_eval_version": meta["bfcl_eval_version"], "quality": {}, "speed": {}}
    out(f"## Tool search on BFCL: toolcall's compiled BM25 against FastMCP {version}'s BM25SearchTransform\n")
    out(
        f"Data: bfcl-eval {meta['bfcl_eval_version']} (BFCL v4). Tools: the {meta['functions']:,} distinct "
        f"function definitions (by name, first definition kept) of its {len(meta['categories'])} single-turn "
        f"categories that carry definitions. Queries: the {meta['queries']:,} `live_multiple` user messages, "
        f"answers from `possible_answer`; split by {meta['split']}: {meta['held_out']} held out, "
        f"{meta['tuning']} tuning. Both sides index the same definitions (the generated crate's MCP "
        "definitions: names with `.` written `-`) and return the top 10."
        + (f" toolcall: {source['toolcall']}." if source.get("toolcall") else "")
        + "\n"
    )

    out("### Quality\n")
    out("| tools | half | queries | engine | recall@1 | recall@5 | recall@10 | MRR |")
    out("|---:|---|---:|---|---:|---:|---:|---:|")
    diffs = []
    for size in QUALITY_SIZES:
        if size not in sets:
            continue
        real = {n["original"] for n in sets[size] if not n["copy_of"]}
        wire_to_bfcl = {n["tool"]: n["original"] for n in sets[size] if not n["copy_of"]}
        scored = [q for q in queries if all(a in real for a in q["answers"])]
        for half in HALVES:
            subset = [q for q in scored if q["half"] == half]
            for engine in ("toolcall", "fastmcp"):
                ranking = runs[size][engine]
                key = f"{size}/{half}/{engine}"
                engine_name = "toolcall" if engine == "toolcall" else "FastMCP"
                if ranking is None:
                    out(f"| {label(size, len(sets[size]))} | {half.replace('_', '-')} | {len(subset)} | {engine_name} | n/a | n/a | n/a | n/a |")
                    continue
                ranks = [rank_of(ranking[q["id"]]["top"], wire_to_bfcl, q["answers"]) for q in subset]
                m = metrics(ranks)
                figures["quality"][key] = m
                out(
                    f"| {label(size, len(sets[size]))} | {half.replace('_', '-')} | {m['n']} | "
                    f"{engine_name} | {m['r1']:.3f} | {m['r5']:.3f} | "
                    f"{m['r10']:.3f} | {m['mrr']:.3f} |"
                )
        if size == "all" and runs[size]["toolcall"] and runs[size]["fastmcp"]:
            for q in scored:
                a = rank_of(runs[size]["toolcall"][q["id"]]["top"], wire_to_bfcl, q["answers"])
                b = rank_of(runs[size]["fastmcp"][q["id"]]["top"], wire_to_bfcl, q["answers"])
                if a != b:
                    diffs.append((q, a, b))
    out("")

    out("### Speed per query\n")
    out(
        "Each query's time is the median of its timed runs; the table gives the median (and mean) "
        "over all 1,053 queries. FastMCP's `search` is `await transform._search(catalog, query)`, what "
        "its `search_tools` tool awaits per call (catalog staleness hash + BM25); `index` is its index's "
        "`query()` alone. Ratio: FastMCP's time over toolcall's.\n"
    )
    out("| tools | toolcall | FastMCP search | ratio | FastMCP index only | ratio |")
    out("|---:|---:|---:|---:|---:|---:|")
    for size in SPEED_SIZES:
        if size not in sets:
            continue
        tc = runs[size]["toolcall"]
        fm = runs[size]["fastmcp"]
        t_med = statistics.median(r["ns"] for r in tc.values()) if tc else None
        t_mean = statistics.fmean(r["ns"] for r in tc.values()) if tc else None
        f_med = statistics.median(r["ns"] for r in fm.values()) if fm else None
        f_mean = statistics.fmean(r["ns"] for r in fm.values()) if fm else None
        i_med = statistics.median(r["index_ns"] for r in fm.values()) if fm else None
        i_mean = statistics.fmean(r["index_ns"] for r in fm.values()) if fm else None
        figures["speed"][size] = {
            "tools": len(sets[size]),
            "toolcall_median_ns": t_med,
            "toolcall_mean_ns": t_mean,
            "fastmcp_median_ns": f_med,
            "fastmcp_mean_ns": f_mean,
            "fastmcp_index_median_ns": i_med,
            "fastmcp_index_mean_ns": i_mean,
        }

        def cell(med, mean):
            return "n/a" if med is None else f"{fmt_ns(med)} ({fmt_ns(mean)})"

        def ratio(a, b):
            return "n/a" if a is None or b is None else f"{a / b:,.0f}x"

        out(
            f"| {label(size, len(sets[size]))} | {cell(t_med, t_mean)} | {cell(f_med, f_mean)} | {ratio(f_med, t_med)} | "
            f"{cell(i_med, i_mean)} | {ratio(i_med, t_med)} |"
        )
    full = [(s, m["full_path"]) for s, m in fast_meta.items() if m and m.get("full_path")]
    for size, f in full:
        out(
            f"\nFastMCP through the server (`mcp.call_tool(\"search_tools\", ..)`, listing and JSON rendering "
            f"included), {label(size, len(sets[size]))} tools, first {f['queries']} queries: median "
            f"{fmt_ns(f['median_ns'])}; names identical to the direct call's in "
            f"{f['queries'] - f['mismatches']}/{f['queries']}."
        )
    builds = [(s, m["index_build_ns"]) for s, m in fast_meta.items() if m]
    if builds:
        out(
            "FastMCP builds its index on the first search after the catalog changes: "
            + ", ".join(f"{fmt_ns(ns)} at {label(s, len(sets[s]))} tools" for s, ns in builds)
            + "."
        )
    out("")

    sizes = read_json(root / "results/sizes-1000.json")
    if sizes:
        figures["request_bytes_1000"] = sizes
        out(f"### Request bytes: the definitions of {sizes['tools']:,} tools\n")
        out("`toolset::ALL.emit(format, strict)`, bytes (about 4 bytes a token for English JSON).\n")
        out("| format | lax | strict |")
        out("|---|---:|---:|")
        for name, b in sizes["bytes"].items():
            out(f"| {name} | {b['lax']:,} | {b['strict']:,} |")
        search = sizes.get("search")
        if search:
            out(
                f"\nWith search on (`ToolSearch::new()`, no tool always visible): a request carries the "
                f"search tool instead of the {sizes['tools']:,} definitions, and each search adds its "
                f"answer, the top {search['limit']} tools' definitions (median over "
                f"{search['queries']:,} queries), to the conversation. Lax definitions, bytes:\n"
            )
            out("| format | every tool | search tool | one search's answer | search tool + one answer | share of every tool |")
            out("|---|---:|---:|---:|---:|---:|")
            for name, b in search["bytes"].items():
                whole = sizes["bytes"][name]["lax"]
                tool, answer = b["lax"]["search_tool"], b["lax"]["answer_median"]
                out(f"| {name} | {whole:,} | {tool:,} | {answer:,} | {tool + answer:,} | {(tool + answer) / whole:.1%} |")
            out(
                "\nOn Anthropic and OpenAI Responses the agent uses the provider's own deferral "
                "(`defer_loading: true`): the request still lists every tool, but only the search "
                "tool (on Responses also each namespace's one-line description) and the tools a search "
                "loads enter the model's context."
            )
        definitions = read_json(root / "results/mcp-1000.json")
        ranking = runs.get("1000", {}).get("toolcall")
        if definitions and ranking:
            each = {
                d["name"]: len(json.dumps(d, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
                for d in definitions
            }
            for k in (5, 10):
                found = [sum(each[n] for n in r["top"][:k]) for r in ranking.values()]
                figures[f"mcp_bytes_top{k}_1000"] = statistics.median(found)
                out(
                    f"\nA search's top {k} at 1,000 tools, as MCP definitions (compact JSON): median "
                    f"{statistics.median(found):,.0f} bytes a query, "
                    f"{statistics.median(found) / sizes['bytes']['mcp']['lax']:.1%} of the whole MCP list."
                )
        out("")

    build = read_json(root / "results/build-2000.json")
    if build:
        figures["build_2000"] = build
        out(f"### The generator at {build['tools']:,} tools (`cargo build`, dev profile)\n")
        out(f"- clean build of the crate alone (dependencies built): {build['clean_s']:.1f} s")
        out(f"- generated `tools.rs`: {build['tools_rs_bytes']:,} bytes ({build['tools_rs_bytes'] / 2**20:.1f} MiB), {build['tools_rs_lines']:,} lines")
        out(
            f"- edit loop (one tool's doc comment changed in `{build['edited_file']}`, then `cargo build`): "
            f"median {statistics.median(build['edit_s']):.1f} s over {len(build['edit_s'])} edits "
            f"({', '.join(f'{s:.1f}' for s in build['edit_s'])})"
        )
        if build.get("search") is not None:
            out(f"- tool_search: {'on' if build['search'] else 'off'}")
        out("")

    report = "\n".join(lines)
    print(report)
    if args.out:
        args.out.write_text(report + "\n", encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    if args.diff:
        wire = {n["tool"]: n["original"] for n in sets["all"]}
        fm_better = [d for d in diffs if d[2] is not None and (d[1] is None or d[2] < d[1])]
        tc_better = [d for d in diffs if d not in fm_better]
        text = [
            f"# Queries ranked differently at {len(sets['all']):,} tools",
            f"FastMCP better: {len(fm_better)}; toolcall better: {len(tc_better)}",
            "",
        ]
        for title, group in (("FastMCP better", fm_better), ("toolcall better", tc_better)):
            text.append(f"## {title}\n")
            for q, a, b in sorted(group, key=lambda d: (d[0]["half"], d[0]["id"])):
                tc = runs["all"]["toolcall"][q["id"]]
                fm = runs["all"]["fastmcp"][q["id"]]
                text.append(f"- {q['id']} ({q['half']}): answer {q['answers']}; toolcall rank {a}, FastMCP rank {b}")
                text.append(f"  query: {q['query'][:300]!r}")
                text.append(f"  toolcall: {[wire.get(n, n) for n in tc['top'][:5]]} {[round(s, 2) for s in tc.get('scores', [])[:5]]}")
                text.append(f"  FastMCP:  {[wire.get(n, n) for n in fm['top'][:5]]}")
            text.append("")
        args.diff.write_text("\n".join(text), encoding="utf-8")


if __name__ == "__main__":
    main()
