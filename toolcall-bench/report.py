#!/usr/bin/env python3
"""Runs toolcall's benchmarks and writes BENCHMARKS.md at the workspace root.

    python3 toolcall-bench/report.py            # 2x cargo bench + callgrind + size probe -> BENCHMARKS.md
    python3 toolcall-bench/report.py --no-bench # reuse target/criterion from the last run
    python3 toolcall-bench/report.py --no-size --no-callgrind  # reuse those parts' last results
    python3 toolcall-bench/report.py --no-load  # keep sections/mcp_load.md from its last run
    python3 toolcall-bench/report.py --splice   # only put sections/*.md into BENCHMARKS.md

`cargo bench -p toolcall-bench` runs both benches: toolcall.rs and mcp.rs (MCP round
trips, in the summary table). Then the HTTP load test (examples/mcp_load.rs) runs and
rewrites toolcall-bench/sections/mcp_load.md; if it cannot run, the last file stays.

Every toolcall-bench/sections/*.md is a measured-by-hand or separately generated section:
each is appended, in name order, after the summary table, so regenerating never drops it.
ANALYSIS.md goes at the end.

The target directory is $CARGO_TARGET_DIR when set, else target/.
Criterion's estimates are read from target/criterion/<group>/<function>/new/estimates.json
(the median of the samples). Every ratio is ours / baseline, both
measured in the same `cargo bench` run.

The size probe builds two release binaries in target/size-probe (its own workspace, with
a copy of Cargo.lock so versions match): `with_tools` links example-app's generated
toolsets (`toolset::ALL` and every per-module `TOOLS`) and `without_tools` the same driver
over an empty `Toolset`. Both are stripped; the difference is what the tools and the code
generated for them add. `size -A` splits it by section and `nm` (on the unstripped
binaries) by symbol namespace.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Where cargo builds: the criterion results, timings and binaries are there.
TARGET = Path(os.environ["CARGO_TARGET_DIR"]).resolve() if os.environ.get("CARGO_TARGET_DIR") else ROOT / "target"
CRITERION = TARGET / "criterion"
SECTIONS = ROOT / "toolcall-bench" / "sections"
PROBE = ROOT / "target" / "size-probe"

TOOLS = ["add", "get_weather", "create_order"]


# ---------------------------------------------------------------------------------------
# Machine


def sh(*args: str, cwd: Path = ROOT, env: dict | None = None) -> str:
    return subprocess.run(args, cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def head() -> str:
    """The commit measured, marked `+dirty` when toolcall-runtime/toolcall-build have changes."""
    commit = sh("git", "rev-parse", "--short", "HEAD").strip()
    dirty = sh("git", "status", "--porcelain", "toolcall-runtime", "toolcall-build").strip()
    return commit + ("+dirty" if dirty else "")


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def machine() -> dict:
    cpuinfo = Path("/proc/cpuinfo").read_text()
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.M)
    mhz = re.search(r"^cpu MHz\s*:\s*(.+)$", cpuinfo, re.M)
    return {
        "cpu": model.group(1).strip() if model else "unknown",
        "mhz": mhz.group(1).strip() if mhz else "unknown",
        "cores": os.cpu_count(),
        "rustc": sh("rustc", "-V").strip(),
        "kernel": os.uname().release,
    }


# ---------------------------------------------------------------------------------------
# Criterion


def run_benches(runs: int) -> dict:
    """`cargo bench -p toolcall-bench` `runs` times; the first after touching the crate, so its
    wall time includes rebuilding it (the 1,000-tool toolset) as well as every benchmark.
    Each benchmark keeps its lowest median over the runs (other builds share this machine;
    their load only ever slows a run down)."""
    (ROOT / "toolcall-bench" / "src" / "lib.rs").touch()
    walls, loads, best, compile = [], [], {}, {}
    for i in range(runs):
        before = loadavg()
        start = time.monotonic()
        timings = ["--timings"] if i == 0 else []
        subprocess.run(["cargo", "bench", "-p", "toolcall-bench", *timings], cwd=ROOT, check=True)
        walls.append(time.monotonic() - start)
        loads.append((before, loadavg()))
        if i == 0:
            compile = compile_times()
        for path in CRITERION.glob("*/*/new/estimates.json"):
            bench_id = f"{path.parts[-4]}/{path.parts[-3]}"
            value = float(json.loads(path.read_text())["median"]["point_estimate"])
            best[bench_id] = min(best.get(bench_id, value), value)
    return {"walls": walls, "loads": loads, "compile": compile, "best": best}


def compile_times() -> dict[str, float]:
    """Seconds per toolcall-bench unit in the last `cargo --timings` report."""
    html = (TARGET / "cargo-timings" / "cargo-timing.html").read_text()
    start = html.index("UNIT_DATA = ") + len("UNIT_DATA = ")
    units = json.loads(html[start : html.index("];", start) + 1])
    return {
        f"{u['name']}{u['target']}".strip(): u["duration"]
        for u in units
        if u["name"] == "toolcall-bench" and u["duration"] > 0
    }


BEST: dict[str, float] = {}


def estimate(bench_id: str) -> float | None:
    """Median nanoseconds per iteration for `group/function`, or None when it was not run.
    The median, not the mean or slope: other builds share this machine, and the median is the
    estimate least moved by their bursts."""
    if bench_id in BEST:
        return BEST[bench_id]
    path = CRITERION / bench_id / "new" / "estimates.json"
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    return float(data["median"]["point_estimate"])


def fmt_time(ns: float | None) -> str:
    if ns is None:
        return "—"
    if ns < 1.0:
        return f"{ns * 1000:.0f} ps"
    if ns < 1000.0:
        return f"{ns:.1f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns / 1e6:.2f} ms"


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def fmt_ratio(r: float | None) -> str:
    return "—" if r is None else f"{r:.2f}x"


def verdict(ok: bool | None) -> str:
    return "—" if ok is None else ("yes" if ok else "**no**")


def rows(counts: dict | None, size: dict | None = None) -> list[list[str]]:
    """The summary table: metric, ours, baseline, ratio, instruction ratio, target, seed, met?"""
    out: list[list[str]] = []
    counts = counts or {}

    def row(metric, ours, base=None, base_name="", target="—", ok=None, seed="—", r=None, instr=None):
        r = ratio(ours, base) if r is None and base is not None else r
        base_text = f"{fmt_time(base)} ({base_name})" if base is not None else "—"
        out.append([metric, fmt_time(ours), base_text, fmt_ratio(r), fmt_ratio(instr), target, seed, verdict(ok)])

    def instr(a: str, b: str) -> float | None:
        return ratio(counts.get(a), counts.get(b))

    emits = {
        f"{fmt}{'_strict' if strict else ''}": estimate(f"emit/{fmt}{'_strict' if strict else ''}")
        for fmt in ["openai", "anthropic", "mcp"]
        for strict in [False, True]
    }
    for name, ns in emits.items():
        row(f"`emit` {name}", ns, target="≤ 5 ns", ok=ns is not None and ns <= 5, seed="0.07 µs")
    for name in ["names", "describe"]:
        ns = estimate(f"accessors/{name}")
        row(f"`{name}()`", ns, target="≤ 5 ns", ok=ns is not None and ns <= 5, seed="13 ns (accessor)")

    # #16's targets are instruction ratios (machine-independent); DESIGN.md's absolute
    # timings for `run` are shown beside them and judged too.
    run_targets = {"add": (30, "≤ 30 ns", "0.15 µs"), "create_order": (150, "≤ 150 ns", "0.5 µs")}
    for tool in TOOLS:
        ours = estimate(f"run_{tool}/toolcall")
        serde = estimate(f"run_{tool}/serde_derive")
        limit, target, seed = run_targets.get(tool, (None, None, "—"))
        r_instr = instr(f"run_{tool}", f"serde_run_{tool}")
        ok = None if r_instr is None else r_instr <= 1.2
        if limit is not None and ours is not None:
            ok = bool(ok) and ours <= limit
        target = "≤ 1.2x serde (instr.)" + (f"; {target}" if target else "")
        row(f"`run` {tool}", ours, serde, "serde derive", target, ok, seed, instr=r_instr)
    for tool in TOOLS:
        ours = estimate(f"run_json_{tool}/toolcall")
        serde = estimate(f"run_json_{tool}/serde_derive")
        r_instr = instr(f"run_json_{tool}", f"serde_run_json_{tool}")
        row(f"`run_json` {tool}", ours, serde, "serde derive", "≤ 1.2x serde (instr.)",
            None if r_instr is None else r_instr <= 1.2, instr=r_instr)
    for tool in TOOLS:
        for mode in ["run", "run_json"]:
            ours = estimate(f"{mode}_{tool}/toolcall")
            js = estimate(f"{mode}_{tool}/jsonschema_serde")
            row(f"`{mode}` {tool} vs validate+deserialize", ours, js, "jsonschema + serde")

    render = estimate("render_tool/openai_strict")
    render_instr = counts.get("render")
    row("runtime `render_tool` (get_weather, OpenAI strict)", render, target="≤ 0.5 µs; ≤ 4,000 instr.",
        ok=render is not None and render <= 500 and render_instr is not None and render_instr <= 4000,
        seed="0.5 µs")
    for fmt in ["openai", "anthropic"]:
        ns = estimate(f"render_tool/{fmt}")
        row(f"runtime `render_tool` (get_weather, {fmt})", ns, target="≤ 0.5 µs",
            ok=ns is not None and ns <= 500, seed="0.5 µs")

    gen20 = estimate("generate/20_tools")
    row("`Builder::generate_from`, 20 tools", gen20, target="≤ 9 ms",
        ok=gen20 is not None and gen20 <= 9e6, seed="+9 ms compile")
    gen1000 = estimate("generate/1000_tools")
    row("`Builder::generate_from`, 1,000 tools", gen1000, target="≤ 400 ms",
        ok=gen1000 is not None and gen1000 <= 400e6)

    big = estimate("dispatch/1000_tools_last")
    small = estimate("dispatch/10_tools_last")
    r = ratio(big, small)
    row("dispatch: `run` on the last of 1,000 tools", big, small, "last of 10",
        "≤ 1.5x", None if r is None else r <= 1.5, instr=instr("dispatch_1000", "dispatch_10"))
    row("dispatch: `run` on the first of 1,000 tools", estimate("dispatch/1000_tools_first"),
        estimate("dispatch/10_tools_first"), "first of 10")

    run_add = estimate("call_add/run")
    call_sync = estimate("call_add/call_sync")
    call_instr = instr("call_add", "run_add")
    row("`call` on a sync tool (add), polled once", call_sync, run_add, "`run`",
        "≤ 1.1x `run` (instr.), no extra allocation", None if call_instr is None else call_instr <= 1.1,
        instr=call_instr)
    for tool in TOOLS:
        ours = estimate(f"mcp_{tool}/toolcall")
        theirs = estimate(f"mcp_{tool}/rmcp_macros")
        r = ratio(ours, theirs)
        row(f"MCP `tools/call` {tool}, in-process round trip", ours, theirs, "rmcp `#[tool]` server",
            "≤ 1.0x", None if r is None else r <= 1.0)
    row("`call` on an async tool (add_async)", estimate("call_add/call_async"), call_sync,
        "the sync tool through `call`", "one allocation (the boxed future)",
        instr=instr("call_add_async", "call_add"))
    part = generated_part(size) if size else None
    if part:
        per_tool = part["total"] / part["tools"]
        out.append(["generated part per tool (example-app, stripped release; see *Binary size*)",
                    f"{per_tool / 1024:.1f} KiB", "—", "—", "—", "≤ 4 KB", "+35 KB (whole module)",
                    verdict(per_tool <= 4000)])
    return out


# ---------------------------------------------------------------------------------------
# Instruction counts


def instructions(binary: Path, case: str, n: int) -> float:
    """Instructions per iteration of `case`, from two callgrind runs (n and 0 iterations)."""

    def total(iterations: int) -> int:
        out = PROBE.parent / "callgrind.out"
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(binary), case, str(iterations)],
            check=True, capture_output=True, text=True,
        )
        match = re.search(r"Collected : (\d+)", run.stderr)
        if not match:
            raise RuntimeError(f"no callgrind total for {case}: {run.stderr[-500:]}")
        return int(match.group(1))

    return (total(n) - total(0)) / n


def callgrind() -> dict[str, float]:
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "toolcall-bench", "--example", "profile"],
                   cwd=ROOT, check=True)
    binary = TARGET / "release" / "examples" / "profile"
    cases = {}
    for tool in TOOLS:
        for kind in ["run", "run_json"]:
            for impl in ["", "serde_"]:
                cases[f"{impl}{kind}_{tool}"] = 2000
    cases.update({"render": 2000, "dispatch_10": 2000, "dispatch_1000": 2000, "generate_20": 2,
                  "call_add": 2000, "call_add_async": 2000})
    return {case: instructions(binary, case, n) for case, n in cases.items()}


def callgrind_section(counts: dict[str, float]) -> list[str]:
    def fmt(x: float | None) -> str:
        return "—" if x is None else f"{x:,.0f}"

    lines = [
        "## Instructions per call",
        "",
        "`valgrind --tool=callgrind` on `toolcall-bench/examples/profile.rs` (the same calls, "
        "same inputs, release build): instruction counts do not depend on the machine's load, so "
        "these ratios hold even when the timings above are noisy.",
        "",
        "| call | toolcall | serde derive | ratio |",
        "|---|---:|---:|---:|",
    ]
    for kind in ["run", "run_json"]:
        for tool in TOOLS:
            ours = counts.get(f"{kind}_{tool}")
            serde = counts.get(f"serde_{kind}_{tool}")
            lines.append(f"| `{kind}` {tool} | {fmt(ours)} | {fmt(serde)} | {fmt_ratio(ratio(ours, serde))} |")
    d10, d1000 = counts.get("dispatch_10"), counts.get("dispatch_1000")
    lines += [
        "",
        f"- `render_tool` (get_weather, OpenAI strict): {fmt(counts.get('render'))} instructions.",
        f"- dispatch, last tool: {fmt(d10)} (10 tools) vs {fmt(d1000)} (1,000 tools): "
        f"{fmt_ratio(ratio(d1000, d10))}.",
        f"- `generate_from`, 20 tools: {fmt(counts.get('generate_20'))} instructions.",
    ]
    return lines


# ---------------------------------------------------------------------------------------
# Binary size


PROBE_DRIVER = r'''
use std::process::ExitCode;

use toolcall_runtime::{Format, Toolset};

/// Uses every entry point of every toolset, so nothing generated is dropped by the linker.
pub fn main<C>(sets: &[&Toolset<C>], ctx: &C) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let set = args.first().and_then(|i| i.parse::<usize>().ok()).and_then(|i| sets.get(i));
    let Some(set) = set else { return ExitCode::FAILURE };
    match args.get(1).map(String::as_str) {
        Some("emit") => {
            for format in Format::ALL {
                println!("{}", set.emit(format, args.len() > 2));
            }
        }
        Some("describe") => {
            for info in set.describe() {
                println!("{} {} {} {}", info.module, info.name, info.description, info.parameters);
            }
        }
        Some(name) => match toolcall_runtime::serde_json::from_str(args.get(2).map_or("{}", String::as_str))
            .map_err(|e| e.to_string())
            .and_then(|a| set.run_with(ctx, name, &a).map_err(|e| e.to_string()))
        {
            Ok(value) => println!("{value}"),
            Err(error) => println!("{error}"),
        },
        None => set.names().for_each(|name| println!("{name}")),
    }
    ExitCode::SUCCESS
}
'''


def probe_manifest() -> str:
    return f'''[package]
name = "size-probe"
version = "0.0.0"
edition = "2024"
publish = false

# Its own workspace: built apart from the toolcall workspace, with a copy of its lock file.
[workspace]

[dependencies]
example-app = {{ path = "{ROOT / 'example-app'}" }}
toolcall-runtime = {{ path = "{ROOT / 'toolcall-runtime'}" }}

[[bin]]
name = "with_tools"
path = "src/with_tools.rs"

[[bin]]
name = "without_tools"
path = "src/without_tools.rs"
'''


def example_modules() -> list[str]:
    """The tool modules of example-app (each has a generated `toolset::<module>::TOOLS`)."""
    tools = ROOT / "example-app" / "src" / "tools"
    return sorted(p.stem for p in tools.glob("*.rs") if p.name != "mod.rs")


def section_sizes(binary: Path) -> dict[str, int]:
    sizes = {}
    for line in sh("size", "-A", str(binary)).splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].startswith(".") and parts[1].isdigit():
            sizes[parts[0]] = int(parts[1])
    return sizes


def symbols(binary: Path) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for line in sh("nm", "-S", "--size-sort", "-C", str(binary)).splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4:
            sizes[parts[3]] = sizes.get(parts[3], 0) + int(parts[1], 16)
    return sizes


SYMBOL_GROUPS = [
    ("generated code (`toolset::`: dispatchers, `__call_*`, `FromArg` impls)", r"example_app::toolset"),
    ("tool functions (`tools::`, `money::`)", r"example_app::(tools|money)::"),
    ("`toolcall_runtime::call::invoke`, one per tool (tool body + encode inlined)", r"toolcall_runtime::call::invoke"),
    ("other toolcall_runtime (decoders, slots, errors)", r"toolcall_runtime"),
    ("unnamed constants (`anon.*`: the largest schema strings)", r"^anon\."),
    ("chrono / uuid (date and uuid parameters)", r"chrono|uuid"),
    ("serde / serde_json (encoding results, `Value`)", r"serde"),
    ("std / core / alloc generics", r"^<?(std|core|alloc|hashbrown)"),
]


def symbol_delta(with_bin: Path, without_bin: Path) -> list[tuple[str, int]]:
    """Bytes of symbols only in (or bigger in) `with_bin`, grouped by origin."""
    w, wo = symbols(with_bin), symbols(without_bin)
    totals = {name: 0 for name, _ in SYMBOL_GROUPS}
    totals["other"] = 0
    for sym, size in w.items():
        extra = size - wo.get(sym, 0)
        if extra <= 0:
            continue
        group = next((name for name, pat in SYMBOL_GROUPS if re.search(pat, sym)), "other")
        totals[group] += extra
    return list(totals.items())


def lsda_length(data: bytes, at: int, end: int) -> int:
    """Bytes from the exception table (LSDA) at `at` to the next one, an upper bound on its
    size. LLVM starts every table 4-byte aligned with 0xff (no landing-pad base) and then
    0xff or 0x9b (no type table, or a 4-byte pc-relative one); the first such pair past
    `at` is the next table. Up to `end` (the section's end) for the last one."""
    next_at = at + 4
    while next_at + 1 < end and not (data[next_at] == 0xFF and data[next_at + 1] in (0xFF, 0x9B)):
        next_at += 4
    return min(next_at, end) - at


def exception_tables(binary: Path) -> dict[str, int]:
    """`.gcc_except_table` of an unstripped binary: its size, and the bytes of the tables a
    function of the binary points at (through its `.eh_frame` entry; an upper bound, see
    `lsda_length`). The rest are tables of functions the linker removed: rustc gives each
    table its own section, but not one tied to its function's, so it is not collected."""
    data = binary.read_bytes()
    sections = {}
    for line in sh("readelf", "-SW", str(binary)).splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if m:
            sections[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16))
    if ".gcc_except_table" not in sections or ".eh_frame" not in sections:
        return {"section": 0, "live": 0}
    eh_address = sections[".eh_frame"][0]
    table_address, table_offset, table_size = sections[".gcc_except_table"]
    tables, fde = set(), None
    for line in sh("readelf", "--debug-dump=frames", str(binary)).splitlines():
        m = re.match(r"^([0-9a-f]+) [0-9a-f]+ [0-9a-f]+ FDE ", line)
        if m:
            fde = int(m.group(1), 16)
            continue
        m = re.match(r"^\s+Augmentation data:\s+((?:[0-9a-f]{2} ?)+)$", line)
        if m and fde is not None:
            raw = bytes(int(x, 16) for x in m.group(1).split())
            # A pc-relative 4-byte pointer (the CIE's "zPLR" encoding), at offset 17 of the FDE.
            if len(raw) == 4 and (pointer := int.from_bytes(raw, "little", signed=True)):
                tables.add(eh_address + fde + 17 + pointer)
            fde = None
    end = table_offset + table_size
    live = sum(lsda_length(data, table_offset + (t - table_address), end) for t in tables)
    return {"section": table_size, "live": live, "tables": len(tables)}


RUST_ESCAPE = re.compile(r'\\(u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)', re.S)


def literal_bytes(path: Path) -> tuple[int, int, int]:
    """(count, total bytes, distinct bytes) of the string literals in a generated file."""
    text = path.read_text()
    # Raw literals (`r#"..."#`, the schema text) as they are; quoted ones unescaped below.
    found = re.findall(r'\br(#*)"(.*?)"\1|"((?:[^"\\]|\\.)*)"', text, re.S)
    raw = [body for hashes, body, _ in found if hashes or body]
    literals = [quoted for hashes, body, quoted in found if not (hashes or body)]

    def unescape(m: re.Match) -> str:
        e = m.group(1)
        simple = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}
        if e in simple:
            return simple[e]
        if e.startswith("u{"):
            return chr(int(e[2:-1], 16))
        if e.startswith("x"):
            return chr(int(e[1:], 16))
        return e

    values = [RUST_ESCAPE.sub(unescape, lit).encode() for lit in literals] + [r.encode() for r in raw]
    return len(values), sum(map(len, values)), sum(map(len, set(values)))


def size_probe() -> dict:
    src = PROBE / "src"
    src.mkdir(parents=True, exist_ok=True)
    (PROBE / "Cargo.toml").write_text(probe_manifest())
    shutil.copy(ROOT / "Cargo.lock", PROBE / "Cargo.lock")
    (src / "driver.rs").write_text(PROBE_DRIVER)
    modules = example_modules()
    sets = ", ".join(["&example_app::toolset::ALL"] + [f"&example_app::toolset::{m}::TOOLS" for m in modules])
    (src / "with_tools.rs").write_text(
        f"//! example-app's generated toolsets.\nmod driver;\n\n"
        f"fn main() -> std::process::ExitCode {{\n    driver::main(&[{sets}], &example_app::App::demo())\n}}\n"
    )
    (src / "without_tools.rs").write_text(
        "//! The same driver over an empty toolset.\nmod driver;\n\n"
        "use toolcall_runtime::{Emitted, Toolset};\n\n"
        "static EMITTED: Emitted = Emitted::new();\n"
        "static EMPTY: Toolset = Toolset::new(&[], &EMITTED, |_, _, _| None);\n\n"
        "fn main() -> std::process::ExitCode {\n    driver::main(&[&EMPTY], &())\n}\n"
    )
    env = dict(os.environ, CARGO_TARGET_DIR=str(PROBE / "target"))
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=PROBE, env=env, check=True)
    result: dict = {"modules": modules}
    for name in ["with_tools", "without_tools"]:
        binary = PROBE / "target" / "release" / name
        stripped = PROBE / f"{name}.stripped"
        subprocess.run(["strip", "-o", str(stripped), str(binary)], check=True)
        result[name] = {"stripped": stripped.stat().st_size, "sections": section_sizes(stripped)}
    release = PROBE / "target" / "release"
    result["exception_tables"] = {name: exception_tables(release / name) for name in ["with_tools", "without_tools"]}
    result["symbols"] = symbol_delta(release / "with_tools", release / "without_tools")
    generated = sorted(
        (PROBE / "target" / "release" / "build").glob("example-app-*/out/tools.rs"),
        key=lambda p: p.stat().st_mtime,
    )
    if generated:
        result["literals"] = literal_bytes(generated[-1])
        result["tools_rs_bytes"] = generated[-1].stat().st_size
        result["tools"] = generated[-1].read_text().count("::toolcall_runtime::ToolInfo {")
    # example-app's own binary, for scale.
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "example-app"], cwd=ROOT, check=True)
    app = TARGET / "release" / "example-app"
    subprocess.run(["strip", "-o", str(PROBE / "example-app.stripped"), str(app)], check=True)
    result["example_app"] = (PROBE / "example-app.stripped").stat().st_size
    return result


# The symbol groups that are the generated part (#16: dispatchers, decoders, schema
# strings; not the tools' own code or their dependencies). `invoke` inlines each tool's body,
# so counting it whole overstates the generated part a little.
GENERATED_GROUPS = (r"example_app::toolset", r"toolcall_runtime::call::invoke", r"toolcall_runtime")


def generated_part(size: dict) -> dict | None:
    """Bytes of the generated part in `with_tools`: the generated code and the runtime code it
    links (symbol delta), plus the schema text (the distinct literal bytes of `tools.rs`,
    which sit in `.rodata` without symbols). `None` for a probe that did not count tools."""
    if "tools" not in size or "literals" not in size:
        return None
    groups = dict(size["symbols"])
    names = [name for name, pattern in SYMBOL_GROUPS if pattern in GENERATED_GROUPS]
    code = sum(groups.get(name, 0) for name in names)
    text = size["literals"][2]
    return {"code": code, "text": text, "total": code + text, "tools": size["tools"]}


def size_section(size: dict) -> list[str]:
    w, wo = size["with_tools"], size["without_tools"]
    delta = w["stripped"] - wo["stripped"]
    lines = [
        "## Binary size",
        "",
        f"Generated code and tools add **{delta / 1024:.1f} KiB** to a stripped release binary "
        f"(seed: +35 KB). example-app has {len(size['modules'])} tool modules "
        f"({', '.join(size['modules'])}); its own stripped release binary is "
        f"{size['example_app'] / 1024:.1f} KiB.",
        "",
        "Method: `report.py` builds two binaries in `target/size-probe` (release profile, "
        "same lock file). `with_tools` links example-app's generated `toolset::ALL` and every "
        "per-module `toolset::<module>::TOOLS` behind a small driver that calls `emit`, "
        "`names`, `describe` and `run_json` on them, so the linker keeps all generated code "
        "and strings; `without_tools` is the same driver over an empty `Toolset`. Both are "
        "`strip`ped and compared. The delta includes the tool functions themselves and the "
        "library code only they pull in (chrono/uuid parsing, serde impls of their types), "
        "not only the generated dispatcher and schema strings.",
        "",
        "| | with tools | without | delta |",
        "|---|---:|---:|---:|",
        f"| stripped file | {w['stripped']:,} | {wo['stripped']:,} | {delta:+,} |",
    ]
    for section in [".text", ".rodata", ".data.rel.ro", ".eh_frame", ".eh_frame_hdr", ".gcc_except_table"]:
        a, b = w["sections"].get(section, 0), wo["sections"].get(section, 0)
        lines.append(f"| `{section}` | {a:,} | {b:,} | {a - b:+,} |")
    tables = size.get("exception_tables")
    if tables:
        tw, two = tables["with_tools"], tables["without_tools"]
        dead_w, dead_wo = tw["section"] - tw["live"], two["section"] - two["live"]
        lines += [
            "",
            f"Of `.gcc_except_table`, the tables a function of the binary points at (through its "
            f"`.eh_frame` entry) are {tw['live']:,} bytes with tools and {two['live']:,} without "
            f"({tw['live'] - two['live']:+,}; an upper bound, each table counted up to the next). "
            f"The other {dead_w:,} bytes ({dead_wo:,} without tools) belong to functions the "
            "linker removed: no function of the binary points at them, yet the linker keeps "
            "them (rustc gives each table a section of its own, not tied to its function's). "
            "Most come from the library code `with_tools` links and mostly does not call "
            "(example-app's crate, with its MCP server, agent and tokio), not from generated "
            "code. Without them the delta is "
            f"**{(delta - (dead_w - dead_wo)) / 1024:.1f} KiB**.",
        ]
    lines += [
        "",
        "Symbols only in (or larger in) `with_tools`, by origin (`nm -S -C` on the unstripped "
        "binaries; most schema strings are not symbols, so they are in `.rodata` above only):",
        "",
        "| symbols | bytes |",
        "|---|---:|",
    ]
    for group, n in size["symbols"]:
        lines.append(f"| {group} | {n:,} |")
    if "literals" in size:
        count, total, distinct = size["literals"]
        lines += [
            "",
            f"The generated `tools.rs` ({size['tools_rs_bytes']:,} bytes of source) holds {count} "
            f"string literals: {total:,} bytes in all, {distinct:,} bytes distinct. Most are "
            "schema text, all of it in the info table (`ALL`'s; module toolsets borrow their rows "
            "of it): per tool, its input schema once per distinct rendering (lax; strict for "
            "OpenAI, Responses and MCP; Anthropic strict; Gemini) and its output schema. `emit` "
            "joins a format's array from them, with each format's envelope, the first time it is "
            "asked for, and keeps it (`Emitted`).",
        ]
    part = generated_part(size)
    if part:
        lines += [
            "",
            f"**Generated part: {part['total']:,} bytes for {part['tools']} tools, "
            f"{part['total'] / part['tools'] / 1024:.1f} KiB per tool** (target ≤ 4 KB per tool): "
            f"{part['code']:,} bytes of code (the generated code, `invoke` and the rest of "
            f"toolcall_runtime above, which the baseline binary does not link) and {part['text']:,} "
            "bytes of schema text (the distinct literal bytes). Not counted: the tools' own "
            "functions, the chrono/uuid, serde and std code they and their results pull in, and "
            "unwinding tables.",
        ]
    return lines


# ---------------------------------------------------------------------------------------
# Output


def write_report(bench: dict | None, size: dict | None, counts: dict | None, info: dict) -> None:
    table = rows(counts, size)
    lines = [
        "# Benchmarks",
        "",
        "Written by `python3 toolcall-bench/report.py` from a fresh `cargo bench -p toolcall-bench` "
        "run (criterion; benchmarks in `toolcall-bench/benches/toolcall.rs`). Ratios are ours / "
        "baseline, both measured in the same run. The targets are DESIGN.md's; the seed's "
        "figures are Elixir's (20-tool module), for reference only.",
        "",
        f"- Machine: {info['cpu']} ({info['mhz']} MHz), {info['cores']} cores; {info['rustc']}; "
        f"Linux {info['kernel']}.",
        "- Code measured (commit; `+dirty` = uncommitted changes in toolcall-runtime or "
        "toolcall-build): timings at "
        + ", ".join(
            f"`{part.get('_commit', '?') if part else '—'}`"
            for part in [bench]
        )
        + f", instruction counts at `{(counts or {}).get('_commit', '—')}`, "
        f"size at `{(size or {}).get('_commit', '—')}`.",
    ]
    if bench:
        walls = bench["walls"]
        loads = "; ".join(f"run {i + 1}: {a} before, {b} after" for i, (a, b) in enumerate(bench["loads"]))
        lines.append(
            f"- `cargo bench -p toolcall-bench` took **{walls[0]:.0f} s** wall time including "
            "rebuilding the bench crate (`report.py` touches it first; "
            + ", ".join(f"{unit} {secs:.0f} s" for unit, secs in bench.get("compile", {}).items())
            + "; the library unit holds the three generated toolsets, 1,000 + 10 + 3 tools, at "
            "opt-level 3), "
            + ", ".join(f"{w:.0f} s" for w in walls[1:])
            + f" for the next run(s) with nothing to rebuild. Each value below is the lowest "
            f"median of {len(walls)} runs. Load average (1/5/15 min) — {loads}."
        )
    lines += [
        "- Criterion: 0.5 s warm-up, 1 s measurement, 30 samples, 10,000 bootstrap resamples "
        "(generate/1000: 10 samples, 4 s); value = criterion's median estimate.",
        "",
        "Baselines: **serde derive** = a hand-written dispatcher, one `#[derive(Deserialize)]` "
        "(`deny_unknown_fields`) argument struct per tool, `Deserialize::deserialize(&Value)` "
        "or `serde_json::from_str` straight into it, a `match`, `serde_json::to_value` on the "
        "result (`toolcall-bench/src/baseline.rs`). **jsonschema + serde** = the same after "
        "`jsonschema` validation of the arguments against the tool's schema (a compiled "
        "validator per tool), as runtime-validating libraries do.",
        "",
        "Inputs: `add` `{\"a\":2,\"b\":40}`; `get_weather` `{\"city\":\"Oslo\"}` (the default "
        "applies; returns a 3-field struct); `create_order` an order with a 4-field address, two "
        "line items and a note (returns a 4-field struct). Synthetic sets: 4 tool shapes "
        "(scalars, a `Vec<String>`, a local struct); the first and last tool have the same shape.",
        "",
        "Timings on this machine (a 2-core VM shared with other builds) move by up to ±50% "
        "between runs even when it is idle, so every ratio is also given in instructions "
        "(`instr. ratio`, from callgrind; see *Instructions per call*), which do not move. "
        "`met?` judges instructions where the target says `(instr.)` (#16's targets), and "
        "the timing otherwise.",
        "",
        "| metric | ours | baseline | ratio | instr. ratio | target | seed | met? |",
        "|---|---:|---:|---:|---:|---|---|---|",
    ]
    lines += ["| " + " | ".join(r) + " |" for r in table]
    for section in sorted(SECTIONS.glob("*.md")):
        lines += ["", section.read_text().strip()]
    if counts:
        lines += [""] + callgrind_section(counts)
    if size:
        lines += [""] + size_section(size)
    notes = ROOT / "toolcall-bench" / "ANALYSIS.md"
    if notes.exists():
        lines += ["", notes.read_text().strip()]
    (ROOT / "BENCHMARKS.md").write_text("\n".join(lines) + "\n")


# ---------------------------------------------------------------------------------------
# HTTP load test


def run_load() -> None:
    """Builds and runs examples/mcp_load.rs (release), which writes sections/mcp_load.md.
    It exits 1 when a call failed, after writing the section (the failures are in it); on
    any other failure the last section file stays and a warning is printed."""
    section = SECTIONS / "mcp_load.md"
    build = subprocess.run(
        ["cargo", "build", "--release", "--quiet", "-p", "example-app", "-p", "toolcall-bench",
         "--bin", "example-app", "--example", "mcp_load"],
        cwd=ROOT,
    )
    if build.returncode != 0:
        print("warning: the load test did not build; keeping the last mcp_load.md", file=sys.stderr)
        return
    binary = TARGET / "release" / "examples" / "mcp_load"
    try:
        run = subprocess.run(
            [str(binary), "--markdown", str(section.relative_to(ROOT))],
            cwd=ROOT, capture_output=True, text=True, timeout=600,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        print(f"warning: the load test did not finish ({error}); keeping the last mcp_load.md", file=sys.stderr)
        return
    if run.returncode == 1 and "wrote " in run.stderr:
        print("warning: the load test saw failed calls; see mcp_load.md", file=sys.stderr)
    elif run.returncode != 0:
        print(f"warning: the load test failed; keeping the last mcp_load.md:\n{run.stderr[-2000:]}",
              file=sys.stderr)


def cached(path: Path, compute):
    """`compute()` saved to `path`; with `compute` None, the last saved result (or None)."""
    if compute is None:
        return json.loads(path.read_text()) if path.exists() else None
    result = compute()
    result["_commit"] = head()
    path.write_text(json.dumps(result))
    return result


def splice_sections() -> None:
    """Replaces BENCHMARKS.md's hand-written part (between the summary table and the first
    generated section) with sections/*.md, measuring nothing: for a section measured by
    hand, on a machine without the last run's results."""
    path = ROOT / "BENCHMARKS.md"
    text = path.read_text()
    start = text.find("\n\n## ")
    end = text.find("\n## Instructions per call\n")
    if start < 0 or end < 0:
        raise SystemExit("BENCHMARKS.md has no section after its table, or no `## Instructions per call`")
    parts = [section.read_text().strip() for section in sorted(SECTIONS.glob("*.md"))]
    path.write_text(text[: start + 2] + "\n\n".join(parts) + "\n" + text[end:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-bench", action="store_true", help="reuse the last criterion results")
    parser.add_argument("--runs", type=int, default=2, help="cargo bench runs; each value is the best median")
    parser.add_argument("--no-size", action="store_true", help="reuse the last size probe's results")
    parser.add_argument("--no-callgrind", action="store_true", help="reuse the last instruction counts")
    parser.add_argument("--no-load", action="store_true", help="keep the last HTTP load test section")
    parser.add_argument("--splice", action="store_true", help="only put sections/*.md into BENCHMARKS.md")
    args = parser.parse_args()
    if args.splice:
        splice_sections()
        print(f"wrote {ROOT / 'BENCHMARKS.md'}", file=sys.stderr)
        return 0
    info = machine()
    meta = CRITERION / "toolcall-bench-run.json"
    if args.no_bench:
        bench = json.loads(meta.read_text()) if meta.exists() else None
    else:
        bench = run_benches(args.runs)
        bench["_commit"] = head()
        meta.write_text(json.dumps(bench))
    if bench:
        BEST.update(bench.get("best", {}))
    counts = cached(CRITERION / "toolcall-bench-callgrind.json", None if args.no_callgrind else callgrind)
    size = cached(CRITERION / "toolcall-bench-size.json", None if args.no_size else size_probe)
    if not args.no_load:
        run_load()
    write_report(bench, size, counts, info)
    print(f"wrote {ROOT / 'BENCHMARKS.md'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
