#!/usr/bin/env python3
"""Build cost of toolcall against rmcp's macros (#36): one run, the same 50 tools, two crates.

    python3 toolcall-bench/buildcost/buildcost.py             # median of 7 -> sections/buildcost.md
    python3 toolcall-bench/buildcost/buildcost.py --runs 3    # a quick check
    python3 toolcall-bench/buildcost/buildcost.py --runs 1 --no-release --out -   # print only
    python3 toolcall-bench/buildcost/buildcost.py --analyze   # also cargo llvm-lines / -Ztime-passes
    python3 toolcall-bench/buildcost/buildcost.py --generate-only   # write the crates, build nothing

It generates two binary crates of the same tools into toolcall-bench/buildcost/work/ (git
ignores it), each its own workspace with its own target directory beside it:

- `buildcost-toolcall`: `src/tools/{alpha,bravo,charlie,delta,echo}.rs`, ten plain `pub fn`
  tools each with doc comments, `build.rs` = `toolcall_build::Builder::new().compile()`,
  `main.rs` includes `$OUT_DIR/tools.rs`. toolcall-runtime and toolcall-build are path
  dependencies on this checkout, so it measures the current code.
- `buildcost-rmcp`: the same tools as methods of one server struct, one
  `#[tool_router(router = <file>_router)]` impl block per file (combined with `+`),
  `#[tool_handler] impl ServerHandler`, an argument struct per tool deriving `Deserialize`
  and `schemars::JsonSchema`, results `Json<T>` (structured output, `outputSchema`).

Every tool takes a `String`, an optional `u32` with a default (toolcall: `Option<u32>` and
`unwrap_or(N)` in the body, which the build reads; rmcp: `#[serde(default = "..")] u32`,
which schemars writes as `"default": N`) and a local struct (even tools: 3 fields) or enum
(odd tools: 3 unit variants), and returns `Result<Report, String>` where `Report` is a local
4-field struct deriving `Serialize` (rmcp: also `JsonSchema`, wrapped in `Json`).

Both binaries do the same job with no transport: read `{"name":..,"arguments":..}` from
argv[1], print the MCP tool list (toolcall: `toolset::ALL.emit(Format::Mcp, false)`; rmcp:
`serde_json::to_string(&router.list_all())`) then dispatch the one call and print its result
(toolcall: `toolset::ALL.run(name, &arguments)`; rmcp: `ToolRouter::call` with a
`ToolCallContext`). rmcp's `RequestContext` needs a `Peer`, which has no public
constructor: the only way to get one is a running service, so the rmcp binary starts
`rmcp::service::serve_directly` over an in-memory `tokio::io::duplex` pipe that nothing
writes to (a current-thread tokio runtime), takes its peer, and calls the router directly.
The harness checks both binaries list the same tool names and return the same result.

Measured, in this order, both crates interleaved (toolcall first on odd runs, rmcp first on
even ones), debug profile (cargo's defaults: the generated crates have no profile
settings), dependencies warm (one unmeasured `cargo build` of each first):

(a) rebuild after editing one tool's doc comment (`tool_23`'s first paragraph, a new
    revision number each run), (b) rebuild after editing that tool's body (a constant in
    it, a new value each run), (c) the crate's own clean build (`cargo clean -p <crate>`,
    then `cargo build`: toolcall compiles and runs its build script and compiles the
    crate; rmcp compiles the crate), (d) the stripped release binary (`cargo build
    --release`, `strip` on a copy).

Every measured build is `cargo build --timings` (both sides, same overhead), so the
per-unit times (`build-script (run)`, the crate) come from the same builds. The
wall time of the `cargo build` process is the measure; the median over the runs is
reported with the ratio toolcall / rmcp. After each toolcall edit build the harness also
records whether `$OUT_DIR/tools.rs` was rewritten (its mtime).

Peer versions are pinned by the lock files beside this script
(toolcall-bench/buildcost/{toolcall,rmcp}.Cargo.lock, copied into the generated crates and
built with `--locked`); `--update-locks` regenerates them (from the workspace's
Cargo.lock, so the versions match the workspace's).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WORK = HERE / "work"
SIDES = ("toolcall", "rmcp")
FILES = ("alpha", "bravo", "charlie", "delta", "echo")
EDITED = 23  # the tool whose doc comment and body are edited
DEFAULT_OUT = ROOT / "toolcall-bench" / "sections" / "buildcost.md"
# Where toolcall-runtime and toolcall-build are taken from: this checkout, or (--rev) a
# commit's tree extracted under work/ (when others have uncommitted edits in the checkout).
SRC = ROOT
REV: str | None = None


def crate_dir(side: str) -> Path:
    return WORK / side


# `--build-override`: both crates build their build scripts, proc macros and the crates
# those use at opt-level 3 (`[profile.dev.build-override]`), in their own target dirs.
BUILD_OVERRIDE = False


def target_dir(side: str) -> Path:
    return WORK / f"target-{side}{'-opt' if BUILD_OVERRIDE else ''}"


def package(side: str) -> str:
    return f"buildcost-{side}"


def lock_file(side: str) -> Path:
    return HERE / f"{side}.Cargo.lock"


# ---------------------------------------------------------------------------------------
# The generated crates


def tool_name(k: int) -> str:
    return f"tool_{k:02}"


def param_type(k: int) -> str:
    return f"Filter{k:02}" if k % 2 == 0 else f"Mode{k:02}"


def doc_line(k: int, revision: int) -> str:
    return f"/// Tool {k:02}: summarize the records of a group that match a filter (revision {revision})."


def body_line(k: int, revision: int) -> str:
    return f"    let factor: f64 = {revision}.5;"


def local_types(k: int, rmcp: bool) -> str:
    """The tool's parameter type (a struct or an enum) and its result struct."""
    de = "#[derive(Clone, Debug, Deserialize, JsonSchema)]\n" if rmcp else "#[derive(Clone, Debug)]\n"
    ser = "#[derive(Debug, Serialize, JsonSchema)]\n" if rmcp else "#[derive(Debug, Serialize)]\n"
    if k % 2 == 0:
        param = (
            f"/// Which records tool {k:02} takes.\n{de}pub struct Filter{k:02} {{\n"
            "    /// Only records with this label.\n    pub label: String,\n"
            "    /// At most this many records.\n    pub limit: u32,\n"
            "    /// Records carrying any of these tags.\n    pub tags: Vec<String>,\n}\n"
        )
    else:
        de_enum = de.replace("Clone, Debug", "Clone, Copy, Debug")
        param = (
            f"/// How tool {k:02} works through the records.\n{de_enum}pub enum Mode{k:02} {{\n"
            "    /// The first match only.\n    Quick,\n"
            "    /// Every record, checked twice.\n    Careful,\n"
            "    /// Every record and its history.\n    Thorough,\n}\n"
        )
    result = (
        f"/// What tool {k:02} found.\n{ser}pub struct Report{k:02} {{\n"
        "    /// The group summarized.\n    pub name: String,\n"
        "    /// How many records were read.\n    pub count: u32,\n"
        "    /// A weighted score.\n    pub score: f64,\n"
        "    /// Notes on what was found.\n    pub notes: Vec<String>,\n}\n"
    )
    return param + "\n" + result


def body(k: int, revision: int, count: str, arg: str) -> str:
    """The tool's body over `name`, `count` and the struct or enum `arg`."""
    lines = [
        f"    let count = {count};" if count else "",
        "    if name.is_empty() {",
        '        return Err("the name is empty".to_owned());',
        "    }",
        body_line(k, revision),
    ]
    if k % 2 == 0:
        lines += [
            f"    let taken = count.min({arg}.limit);",
            f"    let mut notes = {arg}.tags;",
            f"    notes.push({arg}.label);",
        ]
    else:
        lines += [
            f"    let taken = match {arg} {{",
            f"        Mode{k:02}::Quick => 1,",
            f"        Mode{k:02}::Careful => count,",
            f"        Mode{k:02}::Thorough => count * 2,",
            "    };",
            f'    let notes = vec![format!("{{:?}}", {arg})];',
        ]
    lines.append("    Ok(Report%02d { name, count: taken, score: factor * f64::from(taken), notes })" % k)
    return "\n".join(line for line in lines if line) + "\n"


def toolcall_tool(k: int, doc_rev: int, body_rev: int) -> str:
    arg = "filter" if k % 2 == 0 else "mode"
    return (
        f"{doc_line(k, doc_rev)}\n"
        "///\n/// # Arguments\n///\n"
        "/// * `name` - the group to summarize\n"
        "/// * `count` - how many records to read\n"
        f"/// * `{arg}` - which records, or how\n"
        f"pub fn {tool_name(k)}(name: String, count: Option<u32>, {arg}: {param_type(k)}) "
        f"-> Result<Report{k:02}, String> {{\n"
        + body(k, body_rev, f"count.unwrap_or({k + 1})", arg)
        + "}\n"
    )


def rmcp_args(k: int) -> str:
    arg = "filter" if k % 2 == 0 else "mode"
    return (
        f"/// `{tool_name(k)}`'s arguments.\n#[derive(Deserialize, JsonSchema)]\n"
        f"pub struct Tool{k:02}Args {{\n"
        "    /// the group to summarize\n    pub name: String,\n"
        "    /// how many records to read\n"
        f'    #[serde(default = "default_count_{k:02}")]\n    pub count: u32,\n'
        f"    /// which records, or how\n    pub {arg}: {param_type(k)},\n}}\n\n"
        f"fn default_count_{k:02}() -> u32 {{\n    {k + 1}\n}}\n"
    )


def rmcp_tool(k: int, doc_rev: int, body_rev: int) -> str:
    arg = "filter" if k % 2 == 0 else "mode"
    inner = body(k, body_rev, "", arg).replace("    Ok(Report", "    Ok(Json(Report").rstrip("\n") + ")\n"
    inner = "\n".join("    " + line for line in inner.splitlines()) + "\n"
    return (
        f"    {doc_line(k, doc_rev)}\n"
        "    #[tool]\n"
        f"    fn {tool_name(k)}(&self, Parameters(args): Parameters<Tool{k:02}Args>) "
        f"-> Result<Json<Report{k:02}>, String> {{\n"
        f"        let Tool{k:02}Args {{ name, count, {arg} }} = args;\n"
        + inner
        + "    }\n"
    )


def tool_file(side: str, f: int, per_file: int, doc_rev: int, body_rev: int) -> str:
    ks = range(f * per_file, (f + 1) * per_file)
    rev = lambda k, r: r if k == EDITED else 0  # noqa: E731
    if side == "toolcall":
        parts = [f"//! Tools of group {FILES[f]}.\n\nuse serde::Serialize;\n"]
        for k in ks:
            parts.append(local_types(k, rmcp=False))
            parts.append(toolcall_tool(k, rev(k, doc_rev), rev(k, body_rev)))
        return "\n".join(parts)
    parts = [
        f"//! Tools of group {FILES[f]}.\n\n"
        "use rmcp::handler::server::wrapper::{Json, Parameters};\n"
        "use rmcp::{tool, tool_router};\nuse schemars::JsonSchema;\n"
        "use serde::{Deserialize, Serialize};\n\nuse crate::Server;\n"
    ]
    for k in ks:
        parts.append(local_types(k, rmcp=True))
        parts.append(rmcp_args(k))
    methods = "\n".join(rmcp_tool(k, rev(k, doc_rev), rev(k, body_rev)) for k in ks)
    parts.append(
        f'#[tool_router(router = {FILES[f]}_router, vis = "pub(crate)")]\nimpl Server {{\n{methods}}}\n'
    )
    return "\n".join(parts)


MAIN_TOOLCALL = """\
//! The toolcall side of the build-cost benchmark (generated by buildcost.py).

mod tools;
mod toolset {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}

use toolcall_runtime::Format;

/// Reads `{"name":..,"arguments":..}` from argv[1], prints the MCP tool list, runs the call
/// and prints its result (or the error object, exit status 1).
fn main() {
    let input = std::env::args().nth(1).unwrap_or_default();
    let request: serde_json::Value = match serde_json::from_str(&input) {
        Ok(request) => request,
        Err(error) => {
            eprintln!("usage: buildcost-toolcall '{{\\"name\\":..,\\"arguments\\":..}}': {error}");
            std::process::exit(2);
        }
    };
    println!("{}", toolset::ALL.emit(Format::Mcp, false));
    let name = request["name"].as_str().unwrap_or_default();
    match toolset::ALL.run(name, &request["arguments"]) {
        Ok(value) => println!("{value}"),
        Err(error) => {
            println!("{}", error.to_value());
            std::process::exit(1);
        }
    }
}
"""

MAIN_RMCP = """\
//! The rmcp side of the build-cost benchmark (generated by buildcost.py).

mod tools;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolRequestParams, CallToolResponse, NumberOrString, ServerCapabilities, ServerConfig};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, tool_handler};

/// The server the tools are methods of.
#[derive(Clone)]
pub struct Server {
    tool_router: ToolRouter<Server>,
}

impl Server {
    fn new() -> Self {
        Server {
            tool_router: Self::alpha_router()
                + Self::bravo_router()
                + Self::charlie_router()
                + Self::delta_router()
                + Self::echo_router(),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// Reads `{"name":..,"arguments":..}` from argv[1], prints the MCP tool list, runs the call
/// through the `ToolRouter` and prints its result (or the error, exit status 1).
fn main() {
    let input = std::env::args().nth(1).unwrap_or_default();
    let request: serde_json::Value = match serde_json::from_str(&input) {
        Ok(request) => request,
        Err(error) => {
            eprintln!("usage: buildcost-rmcp '{{\\"name\\":..,\\"arguments\\":..}}': {error}");
            std::process::exit(2);
        }
    };
    let server = Server::new();
    println!("{}", serde_json::to_string(&server.tool_router.list_all()).unwrap_or_default());
    let name = request["name"].as_str().unwrap_or_default().to_owned();
    let arguments = request["arguments"].as_object().cloned().unwrap_or_default();
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("cannot start tokio: {error}");
            std::process::exit(2);
        }
    };
    let result = runtime.block_on(async {
        // ToolRouter::call needs a RequestContext, whose Peer only a running service has:
        // serve over an in-memory pipe nothing writes to, and call the router directly.
        let (pipe, _other_end) = tokio::io::duplex(4096);
        let running = rmcp::service::serve_directly::<RoleServer, _, _, _, _>(server.clone(), pipe, None);
        let context = RequestContext::new(NumberOrString::Number(1), running.peer().clone());
        let params = CallToolRequestParams::new(name).with_arguments(arguments);
        server.tool_router.call(ToolCallContext::new(&server, params, context)).await
    });
    match result {
        Ok(CallToolResponse::Complete(result)) => {
            println!("{}", serde_json::to_string(&result).unwrap_or_default());
        }
        Ok(_) => {
            println!("not a complete result");
            std::process::exit(1);
        }
        Err(error) => {
            println!("{}", serde_json::to_string(&error).unwrap_or_default());
            std::process::exit(1);
        }
    }
}
"""


def manifest(side: str) -> str:
    head = (
        f'[package]\nname = "{package(side)}"\nversion = "0.1.0"\nedition = "2024"\npublish = false\n\n'
        "# Its own workspace: generated by toolcall-bench/buildcost/buildcost.py, never part of\n"
        "# the main one.\n[workspace]\n\n"
    )
    if BUILD_OVERRIDE:
        head += "[profile.dev.build-override]\nopt-level = 3\n\n"
    if side == "toolcall":
        return head + (
            "[dependencies]\n"
            f'toolcall-runtime = {{ path = "{SRC / "toolcall-runtime"}" }}\n'
            'serde = { version = "1", features = ["derive"] }\nserde_json = "1"\n\n'
            "[build-dependencies]\n"
            f'toolcall-build = {{ path = "{SRC / "toolcall-build"}" }}\n'
        )
    return head + (
        "[dependencies]\n"
        'rmcp = { version = "=3.11.0", default-features = false, features = ["server", "macros", "schemars"] }\n'
        'schemars = "1"\nserde = { version = "1", features = ["derive"] }\nserde_json = "1"\n'
        'tokio = { version = "1", default-features = false, features = ["rt", "io-util"] }\n'
    )


def write_if_changed(path: Path, text: str) -> None:
    if path.exists() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def generate(side: str, tools: int, doc_rev: int = 0, body_rev: int = 0) -> None:
    per_file = tools // len(FILES)
    d = crate_dir(side)
    write_if_changed(d / "Cargo.toml", manifest(side))
    write_if_changed(d / "src" / "main.rs", MAIN_TOOLCALL if side == "toolcall" else MAIN_RMCP)
    mods = "//! The tool files.\n\n" + "".join(f"pub mod {name};\n" for name in FILES)
    write_if_changed(d / "src" / "tools" / "mod.rs", mods)
    for f in range(len(FILES)):
        write_if_changed(d / "src" / "tools" / f"{FILES[f]}.rs", tool_file(side, f, per_file, doc_rev, body_rev))
    if side == "toolcall":
        build = "fn main() {\n    toolcall_build::Builder::new().compile();\n}\n"
        write_if_changed(d / "build.rs", build)


def edited_file(side: str, tools: int) -> Path:
    return crate_dir(side) / "src" / "tools" / f"{FILES[EDITED // (tools // len(FILES))]}.rs"


# ---------------------------------------------------------------------------------------
# Building


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def cargo(side: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir(side)))
    env.pop("RUSTFLAGS", None)
    locked = ["--locked"] if lock_file(side).exists() and args[0] in ("build", "rustc") else []
    return subprocess.run(
        ["cargo", *args, *locked], cwd=crate_dir(side), env=env, check=check, capture_output=True, text=True
    )


def timed_build(side: str, *extra: str) -> tuple[float, dict[str, float]]:
    """Wall seconds of `cargo build --timings` and the crate's units' durations."""
    start = time.perf_counter()
    done = cargo(side, "build", "--timings", *extra, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"cargo build of {package(side)} failed:\n{done.stderr}")
    return wall, unit_times(side)


def unit_times(side: str) -> dict[str, float]:
    """Seconds per unit of the generated crate in the last `--timings` report: `build script
    (compile)`, `build script (run)` and `crate` (the binary)."""
    timings = target_dir(side) / "cargo-timings"
    html = (timings / "cargo-timing.html").read_text()
    for old in timings.glob("cargo-timing-*.html"):  # one per build: keep only the last
        old.unlink()
    start = html.index("UNIT_DATA = ") + len("UNIT_DATA = ")
    units = json.loads(html[start : html.index("];", start) + 1])
    out: dict[str, float] = {}
    for u in units:
        if u["name"] != package(side):
            continue
        target = u["target"].strip()
        key = {"build-script": "build script (compile)", "build-script (run)": "build script (run)"}.get(target, "crate")
        out[key] = out.get(key, 0.0) + float(u["duration"])
    return out


def out_dir(side: str = "toolcall") -> Path | None:
    """The newest `$OUT_DIR` of the toolcall crate's debug build."""
    dirs = sorted(
        (target_dir(side) / "debug" / "build").glob(f"{package(side)}-*/out/tools.rs"),
        key=lambda p: p.stat().st_mtime_ns,
    )
    return dirs[-1] if dirs else None


# ---------------------------------------------------------------------------------------
# Measuring


class Measure:
    def __init__(self, label: str):
        self.label = label
        self.walls: dict[str, list[float]] = {s: [] for s in SIDES}
        self.units: dict[str, list[dict[str, float]]] = {s: [] for s in SIDES}
        self.loads: list[tuple[str, str]] = []
        self.rewrites: list[bool] = []  # toolcall: tools.rs rewritten by the build?

    def median(self, side: str) -> float:
        return statistics.median(self.walls[side])

    def unit_median(self, side: str, key: str) -> float | None:
        values = [u[key] for u in self.units[side] if key in u]
        return statistics.median(values) if values else None


def order(run: int) -> tuple[str, str]:
    return SIDES if run % 2 == 0 else SIDES[::-1]


def measure_edits(kind: str, runs: int, tools: int, revision: list[int], log) -> Measure:
    m = Measure(kind)
    # One unmeasured edit of each crate first, so every measured build finds the
    # incremental cache in the state an edit leaves it in.
    for side in SIDES:
        revision[0] += 1
        doc_rev, body_rev = (revision[0], revision[2]) if kind == "doc" else (revision[1], revision[0])
        generate(side, tools, doc_rev, body_rev)
        timed_build(side)
    for run in range(runs):
        before = loadavg()
        for side in order(run):
            revision[0] += 1
            doc_rev, body_rev = revision[1], revision[2]
            if kind == "doc":
                doc_rev = revision[0]
            else:
                body_rev = revision[0]
            tools_rs = out_dir() if side == "toolcall" else None
            mtime = tools_rs.stat().st_mtime_ns if tools_rs else None
            generate(side, tools, doc_rev, body_rev)
            wall, units = timed_build(side)
            m.walls[side].append(wall)
            m.units[side].append(units)
            if side == "toolcall" and tools_rs is not None:
                m.rewrites.append(tools_rs.stat().st_mtime_ns != mtime)
            log(f"  {kind} edit, run {run + 1}/{runs}, {side}: {wall:.3f} s")
        m.loads.append((before, loadavg()))
    # Leave both crates at the same revision for the next measure.
    if kind == "doc":
        revision[1] = revision[0]
    else:
        revision[2] = revision[0]
    for side in SIDES:
        generate(side, tools, revision[1], revision[2])
        timed_build(side)
    return m


def measure_clean(runs: int, log) -> Measure:
    m = Measure("clean")
    for run in range(runs):
        before = loadavg()
        for side in order(run):
            cargo(side, "clean", "-p", package(side))
            wall, units = timed_build(side)
            m.walls[side].append(wall)
            m.units[side].append(units)
            log(f"  clean build, run {run + 1}/{runs}, {side}: {wall:.3f} s")
        m.loads.append((before, loadavg()))
    return m


def release_sizes(log) -> dict:
    out = {}
    for side in SIDES:
        before = loadavg()
        start = time.perf_counter()
        cargo(side, "build", "--release")
        wall = time.perf_counter() - start
        binary = target_dir(side) / "release" / package(side)
        stripped = target_dir(side) / "release" / f"{package(side)}.stripped"
        subprocess.run(["strip", "-o", str(stripped), str(binary)], check=True)
        out[side] = {
            "service": service_bytes(binary),
            "stripped": stripped.stat().st_size,
            "unstripped": binary.stat().st_size,
            "wall": wall,
            "load": (before, loadavg()),
            "binary": stripped,
        }
        log(f"  release {side}: {stripped.stat().st_size / 1024:,.0f} KiB stripped, build {wall:.1f} s")
    return out


def service_bytes(binary: Path) -> int:
    """Bytes of the symbols (unstripped binary, `nm -C --print-size`) that name
    `rmcp::service`, `rmcp::transport` or `tokio`: an upper bound on what the service loop
    the rmcp binary starts only to get a `Peer` adds to it (0 for toolcall's, which links
    neither)."""
    done = subprocess.run(["nm", "-C", "--print-size", str(binary)], capture_output=True, text=True)
    total = 0
    for line in done.stdout.splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and any(k in parts[3] for k in ("rmcp::service", "rmcp::transport", "tokio")):
            total += int(parts[1], 16)
    return total


SAMPLE = {"name": "tool_23", "arguments": {"name": "north", "mode": "Careful"}}
SAMPLE_EVEN = {"name": "tool_22", "arguments": {"name": "north", "filter": {"label": "x", "limit": 4, "tags": ["a"]}}}


def check_binaries(binaries: dict[str, Path]) -> list[str]:
    """Both binaries list the same tools and answer the same calls alike; returns notes."""
    notes = []
    for sample in (SAMPLE, SAMPLE_EVEN):
        outputs = {}
        for side, path in binaries.items():
            done = subprocess.run([str(path), json.dumps(sample)], capture_output=True, text=True)
            lines = done.stdout.splitlines()
            if done.returncode != 0 or len(lines) != 2:
                sys.exit(f"{path} failed on {sample}: {done.stdout}{done.stderr}")
            outputs[side] = (json.loads(lines[0]), json.loads(lines[1]))
        names = {side: sorted(t["name"] for t in tools) for side, (tools, _) in outputs.items()}
        if names["toolcall"] != names["rmcp"]:
            sys.exit(f"the binaries list different tools: {names}")
        ours = outputs["toolcall"][1]
        theirs = outputs["rmcp"][1].get("structuredContent")
        if ours != theirs:
            sys.exit(f"the binaries answer {sample} differently: {ours} vs {theirs}")
        with_output = {
            side: sum(1 for t in tools if t.get("outputSchema")) for side, (tools, _) in outputs.items()
        }
        notes.append(f"{sample['name']} -> {json.dumps(ours)}; tools with outputSchema {with_output}")
    return notes


# ---------------------------------------------------------------------------------------
# Generated code


def generated_stats(path: Path, tools: int) -> dict:
    text = path.read_text()
    return {"path": path, "lines": text.count("\n"), "bytes": len(text.encode()), "tools": tools}


def count_tools(text: str) -> int:
    """Tools in a generated file: its `fn __call_<tool>` dispatch functions, one per tool."""
    return len(set(re.findall(r"\bfn __call_(\w+)", text)))


def workspace_generated() -> list[dict]:
    """Generated tools.rs of example-app and toolcall-fixtures in the workspace's target
    (the newest build of each), with their tool counts from `describe()`-like tables."""
    found = []
    for crate in ("example-app", "toolcall-fixtures"):
        # The directory whose generated files were written last (a directory's own mtime
        # does not move when a file in it is rewritten).
        outs = [o for o in (ROOT / "target" / "debug" / "build").glob(f"{crate}-*/out") if any(o.glob("*.rs"))]
        outs.sort(key=lambda o: max(f.stat().st_mtime_ns for f in o.glob("*.rs")))
        if not outs:
            continue
        for path in sorted(outs[-1].glob("*.rs")):
            text = path.read_text()
            found.append(
                {
                    "crate": crate,
                    "path": path,
                    "lines": text.count("\n"),
                    "bytes": len(text.encode()),
                    "tools": count_tools(text),
                    "mtime": time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime)),
                }
            )
    return found


# ---------------------------------------------------------------------------------------
# Report


def fmt_s(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f} s"


def fmt_ratio(a: float | None, b: float | None) -> str:
    return "—" if not a or not b else f"{a / b:.2f}x"


def rustc_version() -> str:
    return subprocess.run(["rustc", "-V"], capture_output=True, text=True).stdout.strip()


def machine() -> str:
    cpuinfo = Path("/proc/cpuinfo").read_text()
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.M)
    return f"{model.group(1).strip() if model else 'unknown'}, {os.cpu_count()} cores"


def lock_version(side: str, name: str) -> str:
    text = lock_file(side).read_text() if lock_file(side).exists() else ""
    m = re.search(rf'name = "{re.escape(name)}"\nversion = "([^"]+)"', text)
    return m.group(1) if m else "?"


def head() -> str:
    if REV:
        return REV
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "toolcall-runtime", "toolcall-build"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return commit.stdout.strip() + ("+dirty" if dirty else "")


def loads_text(m: Measure) -> str:
    return "; ".join(f"{a} → {b}" for a, b in m.loads)


def report(args, measures: dict[str, Measure], sizes: dict | None, gen: dict, ws: list[dict], notes, extra) -> str:
    tc, rm = "buildcost-toolcall", "buildcost-rmcp"
    lines = [
        "## Build cost against rmcp's macros (#36)",
        "",
    ]
    if args.preliminary:
        lines += [
            "**PRELIMINARY**: measured on a busy machine (other builds running; see the load "
            "averages), with few runs. The figures show the harness works, not where the "
            "ratios stand; the quiet-machine run replaces them: `python3 toolcall-bench/buildcost/buildcost.py "
            "--analyze --time-passes` (median of 7; add `--rev HEAD` when the checkout holds others' "
            "uncommitted edits; about 15 minutes with warm dependencies, 25 cold).",
            "",
        ]
    lines += [
        f"`python3 toolcall-bench/buildcost/buildcost.py {' '.join(sys.argv[1:])}`".replace(" `", "`")
        + " generates two crates of "
        f"the same {args.tools} tools over {len(FILES)} files into `toolcall-bench/buildcost/work/` "
        "(git ignores it; each crate its own workspace and target directory) and measures both in "
        "one run. Every tool takes a `String`, an optional `u32` with a default and a local struct "
        "(even tools, 3 fields) or unit enum (odd tools, 3 variants), and returns "
        "`Result<Report, String>` with a local 4-field result struct that has an output schema. "
        "**toolcall**: plain `pub fn`s with doc comments (`# Arguments` bullets, "
        "`count.unwrap_or(N)`), parameter types with `pub` fields and no derive, results "
        "`#[derive(Serialize)]`; `build.rs` calls `Builder::new().compile()`; toolcall-runtime "
        "and toolcall-build are path dependencies on this checkout. **rmcp + schemars**: the same "
        "tools as methods, one `#[tool_router(router = <file>_router)]` block per file combined "
        "with `+`, `#[tool_handler] impl ServerHandler`, an argument struct per tool deriving "
        "`Deserialize` + `JsonSchema` (`#[serde(default = \"..\")] count: u32`), the parameter "
        "types deriving both, results `Json<Report>` (`Serialize` + `JsonSchema`).",
        "",
        "Both binaries do the same job without a transport: read `{\"name\":..,\"arguments\":..}` "
        "from argv[1], print the MCP tool list (toolcall: `toolset::ALL.emit(Format::Mcp, false)`; "
        "rmcp: `serde_json::to_string(&router.list_all())`), run the one call and print its result "
        "(toolcall: `toolset::ALL.run`; rmcp: `ToolRouter::call`). rmcp's `ToolCallContext` needs a "
        "`RequestContext` whose `Peer` has no public constructor, so the rmcp binary starts "
        "`rmcp::service::serve_directly` on a current-thread tokio runtime over an in-memory "
        "`tokio::io::duplex` pipe nothing writes to, only to get a peer, and calls the router "
        "directly: its binary holds rmcp's service loop and tokio, as every rmcp server's does; "
        "toolcall's holds neither (a toolcall user serving MCP adds toolcall-mcp, which is rmcp). "
        "The harness checks that both list the same 50 tool names, each with an `outputSchema`, "
        "and return the same result for two calls.",
        "",
        f"- Machine: {machine()}; {rustc_version()}; debug = cargo's default dev profile (the "
        "generated crates set no profile), release = cargo's default release profile.",
        (f"- Code measured: commit `{head()}`'s toolcall-runtime and toolcall-build (`--rev`: its tree "
         "extracted into `work/checkout`, so others' uncommitted edits are not measured)"
         if REV else
         f"- Code measured: commit `{head()}` (`+dirty` = uncommitted changes in toolcall-runtime "
         "or toolcall-build)")
        + f"; rmcp {lock_version('rmcp', 'rmcp')}, rmcp-macros "
        f"{lock_version('rmcp', 'rmcp-macros')}, schemars {lock_version('rmcp', 'schemars')}, "
        f"serde {lock_version('toolcall', 'serde')}, serde_json {lock_version('toolcall', 'serde_json')}, "
        "pinned by `toolcall-bench/buildcost/{toolcall,rmcp}.Cargo.lock` (built `--locked`).",
        f"- Each time is the wall time of one `cargo build --timings`, median of {args.runs} "
        "(both crates alternating, toolcall first on odd runs), dependencies warm. (a)/(b) edit "
        f"`tool_{EDITED}` (file `{FILES[EDITED // (args.tools // len(FILES))]}.rs`): its doc "
        "comment's first paragraph, or a constant in its body, a new value each run. (c) is "
        "`cargo clean -p <crate>` then `cargo build`: toolcall compiles its build script, runs "
        "it and compiles the crate; rmcp compiles the crate. (d) is `cargo build --release` and "
        "`strip` on a copy.",
        "",
        "| measure | toolcall | rmcp + schemars | ratio | target | met? |",
        "|---|---:|---:|---:|---|---|",
    ]

    def row(label, m: Measure | None, target: float):
        if m is None:
            return
        a, b = m.median("toolcall"), m.median("rmcp")
        ok = "yes" if a / b <= target else "**no**"
        lines.append(f"| {label} | {fmt_s(a)} | {fmt_s(b)} | {a / b:.2f}x | ≤ {target}x | {ok} |")

    row("(a) rebuild after editing one tool's doc comment", measures.get("doc"), 0.35)
    row("(b) rebuild after editing one tool's body", measures.get("body"), 0.35)
    row("(c) the crate's own clean build", measures.get("clean"), 0.35)
    if sizes:
        a, b = sizes["toolcall"]["stripped"], sizes["rmcp"]["stripped"]
        ok = "yes" if a / b <= 0.5 else "**no**"
        lines.append(f"| (d) stripped release binary | {a / 1024:,.0f} KiB | {b / 1024:,.0f} KiB | {a / b:.2f}x | ≤ 0.5x | {ok} |")
    rows = ws + [{"crate": "this benchmark (buildcost-toolcall)", "path": gen["path"], "lines": gen["lines"],
                  "bytes": gen["bytes"], "tools": gen["tools"], "mtime": "this run"}]
    counted = [w for w in rows if w.get("tools")]
    total_lines, total_tools = sum(w["lines"] for w in counted), sum(w["tools"] for w in counted)
    pooled = total_lines / total_tools
    per_line = gen["lines"] / gen["tools"]
    # The target is the average over example-app, the fixtures and this crate (the table below).
    lines.append(
        f"| generated lines per tool, over example-app, the fixtures and this crate | {pooled:.0f} "
        f"(this crate's `tools.rs`: {per_line:.0f} lines, {gen['bytes'] / gen['tools'] / 1000:.1f} KB per tool) "
        f"| — | | ≤ 60 lines | {'yes' if pooled <= 60 else '**no**'} |"
    )
    lines += ["", "Per-unit times from the same builds' `--timings` (median):", ""]
    lines += ["| measure | toolcall build script (compile) | toolcall build script (run) | toolcall crate | rmcp crate |", "|---|---:|---:|---:|---:|"]
    for key, label in (("doc", "(a) doc edit"), ("body", "(b) body edit"), ("clean", "(c) clean")):
        m = measures.get(key)
        if m is None:
            continue
        lines.append(
            f"| {label} | {fmt_s(m.unit_median('toolcall', 'build script (compile)'))} | "
            f"{fmt_s(m.unit_median('toolcall', 'build script (run)'))} | "
            f"{fmt_s(m.unit_median('toolcall', 'crate'))} | {fmt_s(m.unit_median('rmcp', 'crate'))} |"
        )
    lines += ["", "Load average (1/5/15 min) before → after each run of each measure:", ""]
    for key, label in (("doc", "(a)"), ("body", "(b)"), ("clean", "(c)")):
        if key in measures:
            lines.append(f"- {label}: {loads_text(measures[key])}")
    if sizes:
        lines.append(
            "- (d): " + "; ".join(f"{s} {v['load'][0]} → {v['load'][1]}" for s, v in sizes.items())
        )
    lines += [""]
    for key in ("doc", "body"):
        m = measures.get(key)
        if m and m.rewrites:
            n = sum(m.rewrites)
            lines.append(
                f"- `$OUT_DIR/tools.rs` after a {key} edit: rewritten in {n} of {len(m.rewrites)} builds "
                f"(mtime; toolcall-build writes it only when its text changed)."
            )
    if sizes:
        lines.append(
            "- Unstripped release binaries: "
            + ", ".join(f"{s} {v['unstripped'] / 1024:,.0f} KiB (built in {v['wall']:.1f} s)" for s, v in sizes.items())
            + "."
        )
    if sizes:
        svc = sizes["rmcp"]["service"]
        a, b = sizes["toolcall"]["stripped"], sizes["rmcp"]["stripped"]
        lines.append(
            f"- The service loop in the rmcp binary: its symbols naming `rmcp::service`, "
            f"`rmcp::transport` or `tokio` add up to {svc / 1024:,.0f} KiB (`nm`; toolcall's: "
            f"{sizes['toolcall']['service'] / 1024:,.0f} KiB). Without them rmcp's binary would be about "
            f"{(b - svc) / 1024:,.0f} KiB and the ratio about {a / (b - svc):.2f}x."
        )
    for note in notes:
        lines.append(f"- Checked: {note}.")
    lines += [
        "",
        "Generated lines per tool over example-app, the fixtures and this benchmark's crate "
        "(example-app's and toolcall-fixtures' files are the newest ones in the workspace's "
        "`target/debug/build/*/out/`, from whatever the workspace last built, dated; tools "
        "counted as the file's `fn __call_<tool>` dispatch functions):",
        "",
        "| crate | file | built | lines | KB | tools | lines per tool |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for w in rows:
        t = w.get("tools")
        per = f"{w['lines'] / t:.0f}" if t else "—"
        lines.append(
            f"| {w['crate']} | `{w['path'].name}` | {w['mtime']} | {w['lines']:,} | {w['bytes'] / 1000:,.1f} | {t or '—'} | {per} |"
        )
    per_crate = statistics.mean(w["lines"] / w["tools"] for w in counted)
    ok = "met" if pooled <= 60 else "**not met**"
    lines += [
        "",
        f"Average: **{pooled:.0f} lines per tool** over all {total_tools} tools "
        f"({total_lines:,} lines; the mean of the files' own averages is {per_crate:.0f}); "
        f"target ≤ 60: {ok}.",
    ]
    lines += extra
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------


def ensure_locks(update: bool, log) -> None:
    """Seeds each crate's Cargo.lock from the committed one, or (first run, --update-locks)
    from the workspace's, which cargo trims to the crate's packages; saves it back."""
    for side in SIDES:
        lock = crate_dir(side) / "Cargo.lock"
        if lock_file(side).exists() and not update:
            shutil.copyfile(lock_file(side), lock)
            continue
        shutil.copyfile(ROOT / "Cargo.lock", lock)
        env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir(side)))
        # cargo keeps the seeded versions and drops what the crate does not use.
        subprocess.run(["cargo", "metadata", "--format-version", "1"], cwd=crate_dir(side), env=env, check=True, capture_output=True)
        shutil.copyfile(lock, lock_file(side))
        log(f"wrote {lock_file(side).relative_to(ROOT)}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=7, help="runs per measure; the median is reported (7)")
    p.add_argument("--tools", type=int, default=50, help="tools, spread over 5 files (50)")
    p.add_argument("--out", default=str(DEFAULT_OUT), help="markdown section to write ('-': stdout only)")
    p.add_argument("--no-release", action="store_true", help="skip (d), the release binaries")
    p.add_argument("--no-clean", action="store_true", help="skip (c)")
    p.add_argument("--preliminary", action="store_true", help="mark the section preliminary (busy machine)")
    p.add_argument("--update-locks", action="store_true", help="re-pin the lock files from the workspace's")
    p.add_argument("--generate-only", action="store_true", help="write the crates and stop")
    p.add_argument("--analyze", action="store_true", help="append cargo llvm-lines findings (after the measurements)")
    p.add_argument("--time-passes", action="store_true", help="with --analyze: also nightly -Ztime-passes (own target dirs)")
    p.add_argument("--build-override", action="store_true", help="both crates with [profile.dev.build-override] opt-level = 3 (own target dirs)")
    p.add_argument("--rev", help="measure toolcall-runtime/toolcall-build of this commit (extracted into work/checkout) instead of the checkout's files")
    args = p.parse_args()
    if args.build_override:
        global BUILD_OVERRIDE
        BUILD_OVERRIDE = True
    if args.rev:
        global SRC, REV
        REV = subprocess.run(["git", "rev-parse", "--short", args.rev], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
        SRC = extract(args.rev)
    if args.tools % len(FILES) or args.tools <= EDITED:
        sys.exit(f"--tools must be a multiple of {len(FILES)} above {EDITED}")

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    revision = [0, 0, 0]  # last revision used, doc revision, body revision
    for side in SIDES:
        generate(side, args.tools)
    ensure_locks(args.update_locks, log)
    if args.generate_only:
        return 0
    log(f"warming dependencies (load {loadavg()})")
    for side in SIDES:
        wall, _ = timed_build(side)
        log(f"  {side}: {wall:.1f} s")
    measures: dict[str, Measure] = {}
    log("(a) doc-comment edits")
    measures["doc"] = measure_edits("doc", args.runs, args.tools, revision, log)
    log("(b) body edits")
    measures["body"] = measure_edits("body", args.runs, args.tools, revision, log)
    if not args.no_clean:
        log("(c) clean builds of the crate")
        measures["clean"] = measure_clean(args.runs, log)
    tools_rs = out_dir()
    if tools_rs is None:
        sys.exit("no tools.rs in the toolcall crate's OUT_DIR")
    gen = generated_stats(tools_rs, args.tools)
    sizes, notes = None, []
    if not args.no_release:
        log("(d) release binaries")
        sizes = release_sizes(log)
        notes = check_binaries({s: v["binary"] for s, v in sizes.items()})
    ws = workspace_generated()
    extra = analyze(args, log) if args.analyze else []
    text = report(args, measures, sizes, gen, ws, notes, extra)
    if args.out == "-":
        print(text)
    else:
        Path(args.out).write_text(text)
        log(f"wrote {args.out}")
        print(text)
    return 0


def extract(rev: str) -> Path:
    """The whole tree of `rev` (the root manifest and every member, so workspace inheritance
    resolves) under work/checkout; rewritten only when the commit changes."""
    dest = WORK / "checkout"
    commit = subprocess.run(["git", "rev-parse", rev], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    stamp = dest / ".commit"
    if stamp.exists() and stamp.read_text() == commit:
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    stamp.write_text(commit)
    return dest


LLVM_LINE = re.compile(r"^\s*(\d+)\s+\([^)]*\)\s+(\d+)\s+\([^)]*\)\s+(.+)$")


def llvm_lines(side: str, log) -> list[tuple[int, int, str]] | None:
    """`cargo llvm-lines` of the crate's binary: (lines, copies, function) per function,
    generic instantiations summed; None when cargo-llvm-lines is not installed."""
    if shutil.which("cargo-llvm-lines") is None:
        log("cargo-llvm-lines is not installed (cargo install cargo-llvm-lines): skipped")
        return None
    done = cargo(side, "llvm-lines", "--bin", package(side), check=False)
    if done.returncode != 0:
        log(f"cargo llvm-lines failed for {side}: {done.stderr[-2000:]}")
        return None
    rows = []
    for line in done.stdout.splitlines():
        m = LLVM_LINE.match(line)
        if m and m.group(3) != "(TOTAL)":
            rows.append((int(m.group(1)), int(m.group(2)), m.group(3).strip()))
    return rows


def group(side: str, name: str) -> str:
    crate = package(side).replace("-", "_")
    if name.startswith(f"{crate}::toolset") or name.startswith(f"<{crate}::toolset"):
        return "generated code (`toolset`, non-generic)"
    if crate in name.split("<")[0] or name.startswith(f"<{crate}::") or name.startswith(f"{crate}::"):
        return "the crate's own code (tools, types, derives, main)"
    for marker, label in (
        ("toolcall_runtime", "toolcall-runtime generics, instantiated here"),
        ("rmcp", "rmcp generics, instantiated here"),
        ("schemars", "schemars generics, instantiated here"),
        ("serde", "serde / serde_json generics, instantiated here"),
    ):
        if marker in name:
            return label
    return "std / core / alloc / tokio generics, instantiated here"


def shape_of(name: str) -> str:
    """A function's name with the tool number and file module left out, so the 50 copies of
    one generated function are one row."""
    return re.sub(r"::(" + "|".join(FILES) + r")::", "::M::", re.sub(r"\d\d", "NN", name))


def time_passes(side: str, log) -> list[tuple[str, float]] | None:
    """rustc's `-Ztime-passes` for a clean build of the crate (nightly toolchain, its own
    target directory, so the stable one stays as measured): the slowest passes."""
    env = dict(os.environ, CARGO_TARGET_DIR=str(WORK / f"target-{side}-nightly"))
    env.pop("RUSTFLAGS", None)
    base = ["cargo", "+nightly"]
    if subprocess.run([*base, "-V"], capture_output=True).returncode != 0:
        log("no nightly toolchain: -Ztime-passes skipped")
        return None
    subprocess.run([*base, "build", "--locked"], cwd=crate_dir(side), env=env, capture_output=True, check=True)
    subprocess.run([*base, "clean", "-p", package(side)], cwd=crate_dir(side), env=env, capture_output=True, check=True)
    # The build script first (its own passes are not wanted), then the crate alone.
    subprocess.run([*base, "build", "--locked"], cwd=crate_dir(side), env=env, capture_output=True, check=True)
    (crate_dir(side) / "src" / "main.rs").touch()
    done = subprocess.run(
        [*base, "rustc", "--locked", "--bin", package(side), "--", "-Ztime-passes"],
        cwd=crate_dir(side),
        env=env,
        capture_output=True,
        text=True,
    )
    passes = []
    for line in done.stderr.splitlines():
        m = re.match(r"time:\s+([\d.]+);.*?\s(\S+)$", line)
        if m:
            passes.append((m.group(2), float(m.group(1))))
    return passes


def analyze(args, log) -> list[str]:
    """Where rustc spends its time on each crate: LLVM IR lines per function (cargo
    llvm-lines) grouped by where the code comes from, and nightly `-Ztime-passes`."""
    out = ["", "### Where the compile time goes (`--analyze`)", ""]
    tables = {}
    for side in SIDES:
        log(f"cargo llvm-lines: {side}")
        tables[side] = llvm_lines(side, log)
    if all(tables.values()):
        totals = {s: (sum(r[0] for r in rows), sum(r[1] for r in rows)) for s, rows in tables.items()}
        out += [
            "`cargo llvm-lines --bin <crate>` (debug): LLVM IR lines rustc hands to LLVM for the "
            "crate, per function, every generic instantiation counted in the crate that "
            "instantiates it. Code generation of these lines is most of a debug build of the "
            "crate, so fewer lines is a faster rebuild.",
            "",
            f"- Total: toolcall {totals['toolcall'][0]:,} lines in {totals['toolcall'][1]:,} functions; "
            f"rmcp {totals['rmcp'][0]:,} in {totals['rmcp'][1]:,} "
            f"({totals['toolcall'][0] / totals['rmcp'][0]:.2f}x). Per tool: "
            f"{totals['toolcall'][0] / args.tools:,.0f} vs {totals['rmcp'][0] / args.tools:,.0f}.",
            "",
            "| from | toolcall lines | copies | rmcp lines | copies |",
            "|---|---:|---:|---:|---:|",
        ]
        groups: dict[str, dict[str, list[int]]] = {}
        for side, rows in tables.items():
            for lines_, copies, name in rows:
                g = groups.setdefault(group(side, name), {s: [0, 0] for s in SIDES})
                g[side][0] += lines_
                g[side][1] += copies
        for label, g in sorted(groups.items(), key=lambda kv: -(kv[1]["toolcall"][0] + kv[1]["rmcp"][0])):
            out.append(
                f"| {label} | {g['toolcall'][0]:,} | {g['toolcall'][1]:,} | {g['rmcp'][0]:,} | {g['rmcp'][1]:,} |"
            )
        for side in SIDES:
            out += ["", f"Largest functions, {package(side)} (lines, copies = instantiations):", ""]
            out += ["| lines | copies | function |", "|---:|---:|---|"]
            for lines_, copies, name in tables[side][:15]:
                out.append(f"| {lines_:,} | {copies} | `{name}` |")
        own = [r for r in tables["toolcall"] if group("toolcall", r[2]).startswith("generated")]
        own.sort(key=lambda r: -r[0])
        out += ["", "Largest non-generic functions in the generated `toolset` module:", ""]
        out += ["| lines | copies | function |", "|---:|---:|---|"]
        seen = set()
        for lines_, copies, name in own:
            shape = shape_of(name)
            if shape in seen:
                continue
            seen.add(shape)
            n = sum(1 for r in own if shape_of(r[2]) == shape)
            out.append(f"| {lines_:,} | {copies} | `{name}` ({n} like it, {n * lines_:,} lines) |")
            if len(seen) >= 8:
                break
    if args.time_passes:
        for side in SIDES:
            log(f"-Ztime-passes: {side}")
            passes = time_passes(side, log)
            if not passes:
                continue
            top = sorted(passes, key=lambda p: -p[1])[:12]
            out += ["", f"`cargo +nightly rustc --bin {package(side)} -- -Ztime-passes` (the crate alone, debug, "
                    "after `cargo clean -p`; nested passes overlap, so times do not add up):", ""]
            out += ["| pass | seconds |", "|---|---:|"] + [f"| `{name}` | {t:.3f} |" for name, t in top]
    return out


if __name__ == "__main__":
    sys.exit(main())
