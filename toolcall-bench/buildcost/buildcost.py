#!/usr/bin/env python3
"""Build cost of toolcall against rmcp's macros (#36, #50): one run, the same 50 tools, two
variants of two crates, measured like for like.

    python3 toolcall-bench/buildcost/buildcost.py             # median of 7 -> sections/buildcost.md
    python3 toolcall-bench/buildcost/buildcost.py --runs 3    # a quick check
    python3 toolcall-bench/buildcost/buildcost.py --runs 1 --no-release --out -   # print only
    python3 toolcall-bench/buildcost/buildcost.py --variant layer   # one variant only
    python3 toolcall-bench/buildcost/buildcost.py --analyze   # also cargo llvm-lines / -Ztime-passes
    python3 toolcall-bench/buildcost/buildcost.py --generate-only   # write the crates, build nothing

It generates, into toolcall-bench/buildcost/work/ (git ignores it), one workspace per side,
each with its own target directory beside it and two member crates, one per variant:

- side `toolcall`: `src/tools/{alpha,bravo,charlie,delta,echo}.rs`, ten plain `pub fn`
  tools each with doc comments, `build.rs` = `toolcall_build::Builder::new().compile()`,
  `main.rs` includes `$OUT_DIR/tools.rs`. toolcall-runtime, toolcall-build and
  toolcall-mcp are path dependencies on this checkout, so it measures the current code.
- side `rmcp`: the same tools as methods of one server struct, one
  `#[tool_router(router = <file>_router)]` impl block per file (combined with `+`), an
  argument struct per tool deriving `Deserialize` and `schemars::JsonSchema`, results
  `Json<T>` (structured output, `outputSchema`).

Every tool takes a `String`, an optional `u32` with a default (toolcall: `Option<u32>` and
`unwrap_or(N)` in the body, which the build reads; rmcp: `#[serde(default = "..")] u32`,
which schemars writes as `"default": N`) and a local struct (even tools: 3 fields) or enum
(odd tools: 3 unit variants), and returns `Result<Report, String>` where `Report` is a local
4-field struct deriving `Serialize` (rmcp: also `JsonSchema`, wrapped in `Json`).

The two variants (both sides do the same job in each, and nothing more):

- `layer`, the tool layer alone, no transport, no async runtime: the binary reads
  `{"name":..,"arguments":..}` from argv[1], prints the MCP tool list and the one call's
  result. toolcall (`buildcost-toolcall-layer`, toolcall-runtime only):
  `toolset::ALL.emit(Format::Mcp, false)` and `toolset::ALL.run(name, &arguments)`. rmcp
  (`buildcost-rmcp-layer`, the `#[tool_router]` routers only, no `ServerHandler`):
  `serde_json::to_string(&router.list_all())`, and the call through the tool method
  itself. rmcp's `ToolRouter::call` (and each route's handler) takes a `ToolCallContext`,
  which holds a `RequestContext` whose `Peer` has no public constructor (`Peer::new` is
  `pub(crate)` in rmcp 3.11; the only public way to one is a running service, which
  brings rmcp's service loop and tokio into the binary). So the rmcp binary dispatches as
  the router's handler does, without its context: a `match` on the tool name (written by
  this script into main.rs), `Parameters` decoded from the arguments with
  `serde_json::from_value` (what rmcp's `Parameters` extractor does, with the same
  invalid-params error), the `#[tool]` method called, its result turned into a
  `CallToolResult` by rmcp's `IntoCallToolResult` (what the handler does next).
- `server`, a full MCP server over stdio on both sides, on a multi-thread tokio runtime
  (as example-app's `serve`): toolcall (`buildcost-toolcall-server`) serves the
  generated toolset with `toolcall_mcp::McpServer::new(&toolset::ALL, ()).serve_stdio()`
  (toolcall-mcp with `default-features = false`: tools over stdio, as the rmcp
  side, whose rmcp has no `elicitation` feature and no HTTP transport); rmcp
  (`buildcost-rmcp-server`) serves `#[tool_handler] impl ServerHandler` with
  `server.serve(rmcp::transport::stdio())`. The harness checks both over stdio: it writes
  `initialize`, `notifications/initialized`, `tools/list` and `tools/call` as JSON-RPC
  lines to the child's stdin and compares the tool names and the call's
  `structuredContent`.

The harness checks that both binaries of a variant list the same 50 tool names, each with
an `outputSchema`, and return the same result for two calls.

Measured, in this order, per variant both crates interleaved (toolcall first on odd runs,
rmcp first on even ones; within a run, variant after variant), debug profile (cargo's
defaults: the generated crates have no profile settings), dependencies warm (one
unmeasured `cargo build` of each first):

(a) rebuild after editing one tool's doc comment (`tool_23`'s first paragraph, a new
    revision number each run), (b) rebuild after editing that tool's body (a constant in
    it, a new value each run), (c) the crate's own clean build (`cargo clean -p <crate>`,
    then `cargo build`: toolcall compiles and runs its build script and compiles the
    crate; rmcp compiles the crate), (d) the stripped release binary (`cargo build
    --release`, `strip` on a copy).

Every measured build is `cargo build --timings -p <crate>` (both sides, same overhead), so
the per-unit times (`build-script (run)`, the crate) come from the same builds. The wall
time of the `cargo build` process is the measure; the median over the runs is reported
with the ratio toolcall / rmcp. After each toolcall edit build the harness also records
whether `$OUT_DIR/tools.rs` was rewritten (its mtime). The generated lines per tool are
those of the benchmark crate's own `$OUT_DIR/tools.rs` (the same file in both variants).

Peer versions are pinned by the lock files beside this script
(toolcall-bench/buildcost/{toolcall,rmcp}.Cargo.lock, one per side's workspace, copied
into it and built with `--locked`); `--update-locks` regenerates them (from the
workspace's Cargo.lock, so the versions match the workspace's).
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
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WORK = HERE / "work"
SIDES = ("toolcall", "rmcp")
VARIANTS = ("layer", "server")
VARIANT_TITLE = {"layer": "tool layer", "server": "MCP server (stdio)"}
FILES = ("alpha", "bravo", "charlie", "delta", "echo")
EDITED = 23  # the tool whose doc comment and body are edited
DEFAULT_OUT = ROOT / "toolcall-bench" / "sections" / "buildcost.md"
# Where toolcall-runtime, toolcall-build and toolcall-mcp are taken from: this checkout, or
# (--rev) a commit's tree extracted under work/ (when others have uncommitted edits in the
# checkout).
SRC = ROOT
REV: str | None = None
# `--patch`: the name of the diff applied to `--rev`'s tree.
PATCH: str | None = None
# `--snapshot`: the checkout's commit (`+dirty` with uncommitted changes) whose files were copied.
SNAPSHOT: str | None = None


def workspace_dir(side: str) -> Path:
    return WORK / side


def crate_dir(side: str, variant: str) -> Path:
    return WORK / side / variant


# `--build-override`: both crates build their build scripts, proc macros and the crates
# those use at opt-level 3 (`[profile.dev.build-override]`), in their own target dirs.
BUILD_OVERRIDE = False


def target_dir(side: str) -> Path:
    return WORK / f"target-{side}{'-opt' if BUILD_OVERRIDE else ''}"


def package(side: str, variant: str) -> str:
    return f"buildcost-{side}-{variant}"


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
        f"    pub(crate) fn {tool_name(k)}(&self, Parameters(args): Parameters<Tool{k:02}Args>) "
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


MAIN_TOOLCALL_LAYER = """\
//! The toolcall side of the build-cost benchmark, tool layer (generated by buildcost.py).

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
            eprintln!("usage: buildcost-toolcall-layer '{{\\"name\\":..,\\"arguments\\":..}}': {error}");
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

RMCP_SERVER_STRUCT = """\
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
"""


def main_rmcp_layer(tools: int) -> str:
    arms = "".join(
        f'        "{tool_name(k)}" => server.{tool_name(k)}(parameters(arguments)?).into_call_tool_result(),\n'
        for k in range(tools)
    )
    return (
        """\
//! The rmcp side of the build-cost benchmark, tool layer (generated by buildcost.py): the
//! `#[tool_router]` routers only, no service, no transport.

mod tools;

use rmcp::ErrorData;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::IntoCallToolResult;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
use serde::de::DeserializeOwned;

"""
        + RMCP_SERVER_STRUCT
        + """
/// A tool's `Parameters` from the call's arguments, as rmcp's `Parameters` extractor decodes
/// them (the same error).
fn parameters<T: DeserializeOwned>(
    arguments: serde_json::Map<String, serde_json::Value>,
) -> Result<Parameters<T>, ErrorData> {
    serde_json::from_value(serde_json::Value::Object(arguments))
        .map(Parameters)
        .map_err(|error| ErrorData::invalid_params(format!("failed to deserialize parameters: {error}"), None))
}

/// Calls the tool `name` as its route's handler does, without the `ToolCallContext` (whose
/// `Peer` only a running service has): decode, call, `IntoCallToolResult`.
fn call(
    server: &Server,
    name: &str,
    arguments: serde_json::Map<String, serde_json::Value>,
) -> Result<CallToolResponse, ErrorData> {
    match name {
"""
        + arms
        + """\
        _ => Err(ErrorData::invalid_params("tool not found", None)),
    }
}

/// Reads `{"name":..,"arguments":..}` from argv[1], prints the MCP tool list, runs the call
/// and prints its result (or the error, exit status 1).
fn main() {
    let input = std::env::args().nth(1).unwrap_or_default();
    let request: serde_json::Value = match serde_json::from_str(&input) {
        Ok(request) => request,
        Err(error) => {
            eprintln!("usage: buildcost-rmcp-layer '{{\\"name\\":..,\\"arguments\\":..}}': {error}");
            std::process::exit(2);
        }
    };
    let server = Server::new();
    println!("{}", serde_json::to_string(&server.tool_router.list_all()).unwrap_or_default());
    let name = request["name"].as_str().unwrap_or_default();
    let arguments = request["arguments"].as_object().cloned().unwrap_or_default();
    // As the router does: an argument error is a tool error, not a protocol error.
    let result = match call(&server, name, arguments) {
        Err(error) if error.message.starts_with("failed to deserialize parameters:") => {
            Ok(CallToolResult::error(vec![ContentBlock::text(error.message)]).into())
        }
        other => other,
    };
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
    )


# The first statement of both MCP server mains: a multi-thread tokio runtime, or exit 2.
START_RUNTIME = """\
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("cannot start the async runtime: {error}");
            std::process::exit(2);
        }
    };
"""

MAIN_TOOLCALL_SERVER = (
    """\
//! The toolcall side of the build-cost benchmark, MCP server over stdio (generated by
//! buildcost.py): toolcall-mcp serving the generated toolset.

mod tools;
mod toolset {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}

/// Serves every tool over stdio until the client closes stdin.
fn main() {
"""
    + START_RUNTIME
    + """\
    let server = toolcall_mcp::McpServer::new(&toolset::ALL, ());
    if let Err(error) = runtime.block_on(server.serve_stdio()) {
        eprintln!("error: {error}");
        std::process::exit(1);
    }
}
"""
)

MAIN_RMCP_SERVER = (
    """\
//! The rmcp side of the build-cost benchmark, MCP server over stdio (generated by
//! buildcost.py): `#[tool_handler] impl ServerHandler` on rmcp's stdio transport.

mod tools;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool_handler};

"""
    + RMCP_SERVER_STRUCT
    + """
#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// Serves every tool over stdio until the client closes stdin.
fn main() {
"""
    + START_RUNTIME
    + """\
    let served = runtime.block_on(async {
        let running = Server::new().serve(rmcp::transport::stdio()).await?;
        running.waiting().await?;
        Ok::<(), Box<dyn std::error::Error>>(())
    });
    if let Err(error) = served {
        eprintln!("error: {error}");
        std::process::exit(1);
    }
}
"""
)


def main_rs(side: str, variant: str, tools: int) -> str:
    if side == "toolcall":
        return MAIN_TOOLCALL_LAYER if variant == "layer" else MAIN_TOOLCALL_SERVER
    return main_rmcp_layer(tools) if variant == "layer" else MAIN_RMCP_SERVER


def workspace_manifest(side: str) -> str:
    text = (
        "# Generated by toolcall-bench/buildcost/buildcost.py: the build-cost benchmark's crates\n"
        "# of one side, one per variant; its own workspace, never part of the main one.\n"
        '[workspace]\nresolver = "3"\nmembers = ["layer", "server"]\n'
    )
    if BUILD_OVERRIDE:
        text += "\n[profile.dev.build-override]\nopt-level = 3\n"
    return text


def manifest(side: str, variant: str) -> str:
    head = f'[package]\nname = "{package(side, variant)}"\nversion = "0.1.0"\nedition = "2024"\npublish = false\n\n'
    if side == "toolcall":
        deps = (
            "[dependencies]\n"
            f'toolcall-runtime = {{ path = "{SRC / "toolcall-runtime"}" }}\n'
            'serde = { version = "1", features = ["derive"] }\nserde_json = "1"\n'
        )
        if variant == "server":
            deps += (
                "# A server of tools over stdio, as the rmcp side: no default feature (http,\n"
                "# ask, resources, prompts), none of the optional ones.\n"
                f'toolcall-mcp = {{ path = "{SRC / "toolcall-mcp"}", default-features = false }}\n'
                'tokio = { version = "1", default-features = false, features = ["rt-multi-thread"] }\n'
            )
        return head + deps + f'\n[build-dependencies]\ntoolcall-build = {{ path = "{SRC / "toolcall-build"}" }}\n'
    features = '"server", "macros", "schemars"' + (', "transport-io"' if variant == "server" else "")
    deps = (
        "[dependencies]\n"
        f'rmcp = {{ version = "=3.11.0", default-features = false, features = [{features}] }}\n'
        'schemars = "1"\nserde = { version = "1", features = ["derive"] }\nserde_json = "1"\n'
    )
    if variant == "server":
        deps += 'tokio = { version = "1", default-features = false, features = ["rt-multi-thread"] }\n'
    return head + deps


def write_if_changed(path: Path, text: str) -> None:
    if path.exists() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def generate(side: str, variant: str, tools: int, doc_rev: int = 0, body_rev: int = 0) -> None:
    per_file = tools // len(FILES)
    write_if_changed(workspace_dir(side) / "Cargo.toml", workspace_manifest(side))
    d = crate_dir(side, variant)
    write_if_changed(d / "Cargo.toml", manifest(side, variant))
    write_if_changed(d / "src" / "main.rs", main_rs(side, variant, tools))
    mods = "//! The tool files.\n\n" + "".join(f"pub mod {name};\n" for name in FILES)
    write_if_changed(d / "src" / "tools" / "mod.rs", mods)
    for f in range(len(FILES)):
        write_if_changed(d / "src" / "tools" / f"{FILES[f]}.rs", tool_file(side, f, per_file, doc_rev, body_rev))
    if side == "toolcall":
        build = "fn main() {\n    toolcall_build::Builder::new().compile();\n}\n"
        write_if_changed(d / "build.rs", build)


def edited_file(side: str, variant: str, tools: int) -> Path:
    return crate_dir(side, variant) / "src" / "tools" / f"{FILES[EDITED // (tools // len(FILES))]}.rs"


# ---------------------------------------------------------------------------------------
# Building


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def cargo(side: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir(side)))
    env.pop("RUSTFLAGS", None)
    locked = ["--locked"] if lock_file(side).exists() and args[0] in ("build", "rustc", "llvm-lines") else []
    return subprocess.run(
        ["cargo", *args, *locked], cwd=workspace_dir(side), env=env, check=check, capture_output=True, text=True
    )


def timed_build(side: str, variant: str, *extra: str) -> tuple[float, dict[str, float]]:
    """Wall seconds of `cargo build --timings -p <crate>` and the crate's units' durations."""
    start = time.perf_counter()
    done = cargo(side, "build", "--timings", "-p", package(side, variant), *extra, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"cargo build of {package(side, variant)} failed:\n{done.stderr}")
    return wall, unit_times(side, variant)


def unit_times(side: str, variant: str) -> dict[str, float]:
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
        if u["name"] != package(side, variant):
            continue
        target = u["target"].strip()
        key = {"build-script": "build script (compile)", "build-script (run)": "build script (run)"}.get(target, "crate")
        out[key] = out.get(key, 0.0) + float(u["duration"])
    return out


def out_dir(variant: str = "layer") -> Path | None:
    """`tools.rs` in the newest `$OUT_DIR` of the toolcall crate's debug build."""
    dirs = sorted(
        (target_dir("toolcall") / "debug" / "build").glob(f"{package('toolcall', variant)}-*/out/tools.rs"),
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


class Revisions:
    """The doc and body revision every crate is at, and the last number used: each edit
    takes a new number, so every edit changes the file."""

    def __init__(self):
        self.doc = 0
        self.body = 0
        self.last = 0

    def next(self) -> int:
        self.last += 1
        return self.last


def edit_and_build(kind: str, side: str, variant: str, tools: int, rev: Revisions) -> tuple[float, dict, bool | None]:
    n = rev.next()
    doc_rev, body_rev = (n, rev.body) if kind == "doc" else (rev.doc, n)
    tools_rs = out_dir(variant) if side == "toolcall" else None
    mtime = tools_rs.stat().st_mtime_ns if tools_rs else None
    generate(side, variant, tools, doc_rev, body_rev)
    wall, units = timed_build(side, variant)
    rewritten = tools_rs.stat().st_mtime_ns != mtime if tools_rs is not None else None
    return wall, units, rewritten


def measure_edits(kind: str, variants, runs: int, tools: int, rev: Revisions, log) -> dict[str, Measure]:
    ms = {v: Measure(kind) for v in variants}
    # One unmeasured edit of each crate first, so every measured build finds the
    # incremental cache in the state an edit leaves it in.
    for variant in variants:
        for side in SIDES:
            edit_and_build(kind, side, variant, tools, rev)
    for run in range(runs):
        for variant in variants:
            m = ms[variant]
            before = loadavg()
            for side in order(run):
                wall, units, rewritten = edit_and_build(kind, side, variant, tools, rev)
                m.walls[side].append(wall)
                m.units[side].append(units)
                if rewritten is not None:
                    m.rewrites.append(rewritten)
                log(f"  {kind} edit, run {run + 1}/{runs}, {variant}, {side}: {wall:.3f} s")
            m.loads.append((before, loadavg()))
    # Leave every crate at the same revision for the next measure.
    if kind == "doc":
        rev.doc = rev.last
    else:
        rev.body = rev.last
    for variant in variants:
        for side in SIDES:
            generate(side, variant, tools, rev.doc, rev.body)
            timed_build(side, variant)
    return ms


def measure_clean(variants, runs: int, log) -> dict[str, Measure]:
    ms = {v: Measure("clean") for v in variants}
    for run in range(runs):
        for variant in variants:
            m = ms[variant]
            before = loadavg()
            for side in order(run):
                cargo(side, "clean", "-p", package(side, variant))
                wall, units = timed_build(side, variant)
                m.walls[side].append(wall)
                m.units[side].append(units)
                log(f"  clean build, run {run + 1}/{runs}, {variant}, {side}: {wall:.3f} s")
            m.loads.append((before, loadavg()))
    return ms


def release_sizes(variant: str, log) -> dict:
    out = {}
    for side in SIDES:
        before = loadavg()
        start = time.perf_counter()
        done = cargo(side, "build", "--release", "-p", package(side, variant), check=False)
        if done.returncode != 0:
            sys.exit(f"cargo build --release of {package(side, variant)} failed:\n{done.stderr}")
        wall = time.perf_counter() - start
        binary = target_dir(side) / "release" / package(side, variant)
        stripped = target_dir(side) / "release" / f"{package(side, variant)}.stripped"
        subprocess.run(["strip", "-o", str(stripped), str(binary)], check=True)
        out[side] = {
            "service": service_bytes(binary),
            "stripped": stripped.stat().st_size,
            "unstripped": binary.stat().st_size,
            "wall": wall,
            "load": (before, loadavg()),
            "binary": stripped,
        }
        log(f"  release {variant} {side}: {stripped.stat().st_size / 1024:,.0f} KiB stripped, build {wall:.1f} s")
    return out


def service_bytes(binary: Path) -> int:
    """Bytes of the symbols (unstripped binary, `nm -C --print-size`) that name
    `rmcp::service`, `rmcp::transport` or `tokio`: what an MCP service loop and its async
    runtime add to a binary (in the tool layer, both sides should have next to none)."""
    done = subprocess.run(["nm", "-C", "--print-size", str(binary)], capture_output=True, text=True)
    total = 0
    for line in done.stdout.splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and any(k in parts[3] for k in ("rmcp::service", "rmcp::transport", "tokio")):
            total += int(parts[1], 16)
    return total


SAMPLE = {"name": "tool_23", "arguments": {"name": "north", "mode": "Careful"}}
SAMPLE_EVEN = {"name": "tool_22", "arguments": {"name": "north", "filter": {"label": "x", "limit": 4, "tags": ["a"]}}}


def compare(outputs: dict, sample: dict, variant: str) -> str:
    """Both sides listed the same tools and answered `sample` alike: the note to report.
    `outputs[side]` is (the tool list, the toolcall result or rmcp's structuredContent)."""
    names = {side: sorted(t["name"] for t in tools) for side, (tools, _) in outputs.items()}
    if names["toolcall"] != names["rmcp"]:
        sys.exit(f"{variant}: the binaries list different tools: {names}")
    ours, theirs = outputs["toolcall"][1], outputs["rmcp"][1]
    if ours != theirs:
        sys.exit(f"{variant}: the binaries answer {sample} differently: {ours} vs {theirs}")
    with_output = {side: sum(1 for t in tools if t.get("outputSchema")) for side, (tools, _) in outputs.items()}
    return f"{sample['name']} -> {json.dumps(ours)}; tools with outputSchema {with_output}"


def check_layer(binaries: dict[str, Path]) -> list[str]:
    """The tool-layer binaries list the same tools and answer the same calls alike."""
    notes = []
    for sample in (SAMPLE, SAMPLE_EVEN):
        outputs = {}
        for side, path in binaries.items():
            done = subprocess.run([str(path), json.dumps(sample)], capture_output=True, text=True)
            lines = done.stdout.splitlines()
            if done.returncode != 0 or len(lines) != 2:
                sys.exit(f"{path} failed on {sample}: {done.stdout}{done.stderr}")
            tools, result = json.loads(lines[0]), json.loads(lines[1])
            outputs[side] = (tools, result if side == "toolcall" else result.get("structuredContent"))
        notes.append("tool layer: " + compare(outputs, sample, "tool layer"))
    return notes


def stdio_session(binary: Path, call: dict, timeout: float = 30.0) -> dict[int, dict]:
    """Talks MCP to `binary` over its stdin/stdout: `initialize`, `notifications/initialized`,
    `tools/list` and `tools/call` as JSON-RPC lines; returns the responses by id."""
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "buildcost", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call},
    ]
    child = subprocess.Popen([str(binary)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    responses: dict[int, dict] = {}
    done = threading.Event()

    def read() -> None:
        for line in child.stdout:
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(message.get("id"), int):
                responses[message["id"]] = message
            if len(responses) == 3:
                break
        done.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        child.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
        child.stdin.flush()
        done.wait(timeout)
    finally:
        try:
            child.stdin.close()
        except OSError:
            pass
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    if len(responses) != 3:
        sys.exit(f"{binary} answered {sorted(responses)} of ids 1-3 over stdio: {responses}\n{child.stderr.read()}")
    return responses


def check_servers(binaries: dict[str, Path]) -> list[str]:
    """The two stdio servers answer `tools/list` with the same names and `tools/call` with the
    same `structuredContent`."""
    notes = []
    for sample in (SAMPLE, SAMPLE_EVEN):
        outputs = {}
        for side, path in binaries.items():
            responses = stdio_session(path, sample)
            listed, called = responses[2].get("result", {}), responses[3].get("result", {})
            if "tools" not in listed or "structuredContent" not in called:
                sys.exit(f"{path} answered over stdio: {responses}")
            outputs[side] = (listed["tools"], called["structuredContent"])
        notes.append("MCP server over stdio: " + compare(outputs, sample, "MCP server"))
    return notes


# ---------------------------------------------------------------------------------------
# Generated code


def generated_stats(path: Path, tools: int) -> dict:
    text = path.read_text()
    return {"path": path, "lines": text.count("\n"), "bytes": len(text.encode()), "tools": tools}


# ---------------------------------------------------------------------------------------
# Report


def fmt_s(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f} s"


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
        ["git", "status", "--porcelain", "toolcall-runtime", "toolcall-build", "toolcall-mcp"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return commit.stdout.strip() + ("+dirty" if dirty else "")


def loads_text(m: Measure) -> str:
    return "; ".join(f"{a} → {b}" for a, b in m.loads)


TARGETS = {"doc": 0.35, "body": 0.35, "clean": 0.35, "size": 0.5}
LABELS = {
    "doc": "(a) rebuild after editing one tool's doc comment",
    "body": "(b) rebuild after editing one tool's body",
    "clean": "(c) the crate's own clean build",
    "size": "(d) stripped release binary",
}


def verdict(ratio: float, target: float) -> str:
    return "yes" if ratio <= target else "**no**"


def cells(measures: dict, sizes: dict | None, key: str) -> list[str]:
    """toolcall, rmcp, ratio and met? of one measure of one variant ('—' when not run)."""
    if key == "size":
        if not sizes:
            return ["—"] * 4
        a, b = sizes["toolcall"]["stripped"], sizes["rmcp"]["stripped"]
        return [f"{a / 1024:,.0f} KiB", f"{b / 1024:,.0f} KiB", f"{a / b:.2f}x", verdict(a / b, TARGETS[key])]
    m = measures.get(key)
    if m is None:
        return ["—"] * 4
    a, b = m.median("toolcall"), m.median("rmcp")
    return [fmt_s(a), fmt_s(b), f"{a / b:.2f}x", verdict(a / b, TARGETS[key])]


def describe_run(args) -> list[str]:
    return [
        f"`python3 toolcall-bench/buildcost/buildcost.py {' '.join(sys.argv[1:])}`".replace(" `", "`")
        + f" generates the same {args.tools} tools over {len(FILES)} files into two crates per "
        "variant in `toolcall-bench/buildcost/work/` (git ignores it; one workspace and target "
        "directory per side) and measures all of them in one run. Every tool takes a `String`, an "
        "optional `u32` with a default and a local struct (even tools, 3 fields) or unit enum (odd "
        "tools, 3 variants), and returns `Result<Report, String>` with a local 4-field result "
        "struct that has an output schema. **toolcall**: plain `pub fn`s with doc comments "
        "(`# Arguments` bullets, `count.unwrap_or(N)`), parameter types with `pub` fields and no "
        "derive, results `#[derive(Serialize)]`; `build.rs` calls `Builder::new().compile()`; "
        "toolcall-runtime, toolcall-build and toolcall-mcp are path dependencies on this checkout. "
        "**rmcp + schemars**: the same tools as methods, one `#[tool_router(router = <file>_router)]` "
        "block per file combined with `+`, an argument struct per tool deriving `Deserialize` + "
        "`JsonSchema` (`#[serde(default = \"..\")] count: u32`), the parameter types deriving both, "
        "results `Json<Report>` (`Serialize` + `JsonSchema`).",
        "",
        "Two variants, each side doing the same job in each:",
        "",
        "- **Tool layer** (list and call, no transport, no async runtime): read "
        "`{\"name\":..,\"arguments\":..}` from argv[1], print the MCP tool list and the one "
        "call's result. toolcall links toolcall-runtime only (`toolset::ALL.emit(Format::Mcp, "
        "false)`, `toolset::ALL.run`). rmcp holds the `#[tool_router]` routers only (no "
        "`ServerHandler`): `router.list_all()`, and the call made as a route's handler makes it "
        "but without its `ToolCallContext`, whose `RequestContext` needs a `Peer` that only a "
        "running service has (`Peer::new` is `pub(crate)` in rmcp 3.11): a `match` on the name "
        "(written into main.rs by the script), `Parameters` decoded with "
        "`serde_json::from_value` as rmcp's extractor does, the `#[tool]` method, "
        "`IntoCallToolResult`.",
        "- **MCP server** over stdio, on a multi-thread tokio runtime: toolcall "
        "`toolcall_mcp::McpServer::new(&toolset::ALL, ()).serve_stdio()` (toolcall-mcp with "
        "`default-features = false`: tools over stdio, none of `http`, `ask`, `resources`, "
        "`prompts`, as rmcp here has no `elicitation` and no HTTP transport), rmcp `#[tool_handler] impl ServerHandler` served with "
        "`rmcp::transport::stdio()` (rmcp features `server`, `macros`, `schemars`, "
        "`transport-io`). The harness talks to both release binaries over stdio "
        "(`initialize`, `notifications/initialized`, `tools/list`, `tools/call`).",
        "",
        f"Both binaries of each variant list the same {args.tools} tool names, each with an "
        "`outputSchema`, and return the same result for two calls (checked below).",
        "",
        f"- Machine: {machine()}; {rustc_version()}; debug = cargo's default dev profile (the "
        "generated crates set no profile), release = cargo's default release profile.",
        (f"- Code measured: `{SNAPSHOT}` (`+dirty` = with uncommitted changes in toolcall-runtime, "
         "toolcall-build or toolcall-mcp): the checkout's files copied into `work/checkout` at the start "
         "(`--snapshot`), so edits made during the run are not measured"
         if SNAPSHOT else
         f"- Code measured: commit `{head()}`'s toolcall-runtime, toolcall-build and toolcall-mcp"
         + (f" with the diff `{PATCH}` applied" if PATCH else "")
         + " (`--rev`: its tree extracted into `work/checkout`, so others' uncommitted edits are not measured)"
         if REV else
         f"- Code measured: commit `{head()}` (`+dirty` = uncommitted changes in toolcall-runtime, "
         "toolcall-build or toolcall-mcp)")
        + f"; rmcp {lock_version('rmcp', 'rmcp')}, rmcp-macros "
        f"{lock_version('rmcp', 'rmcp-macros')}, schemars {lock_version('rmcp', 'schemars')}, "
        f"serde {lock_version('toolcall', 'serde')}, serde_json {lock_version('toolcall', 'serde_json')}, "
        f"tokio {lock_version('rmcp', 'tokio')}, pinned by "
        "`toolcall-bench/buildcost/{toolcall,rmcp}.Cargo.lock` (built `--locked`).",
        f"- Each time is the wall time of one `cargo build --timings -p <crate>`, median of "
        f"{args.runs} (both crates alternating, toolcall first on odd runs; within a run, "
        "variant after variant), dependencies warm. (a)/(b) edit "
        f"`tool_{EDITED}` (file `{FILES[EDITED // (args.tools // len(FILES))]}.rs`): its doc "
        "comment's first paragraph, or a constant in its body, a new value each run. (c) is "
        "`cargo clean -p <crate>` then `cargo build`: toolcall compiles its build script, runs "
        "it and compiles the crate; rmcp compiles the crate. (d) is `cargo build --release` and "
        "`strip` on a copy.",
    ]


def report(args, variants, measures: dict, sizes: dict, gen: dict, notes: list[str], extra: list[str]) -> str:
    lines = ["## Build cost against rmcp's macros (#36, #50)", ""]
    if args.preliminary:
        lines += [
            "**PRELIMINARY**: measured on a busy machine (other builds running; see the load "
            "averages), with few runs. The figures show the harness works, not where the "
            "ratios stand.",
            "",
        ]
    lines += describe_run(args) + [""]
    header = "| measure | target |"
    rule = "|---|---|"
    for v in variants:
        header += f" {VARIANT_TITLE[v]}: toolcall | rmcp + schemars | ratio | met? |"
        rule += "---:|---:|---:|---|"
    lines += [header, rule]
    for key in ("doc", "body", "clean", "size"):
        row = f"| {LABELS[key]} | ≤ {TARGETS[key]}x |"
        for v in variants:
            row += " " + " | ".join(cells(measures[v], sizes.get(v), key)) + " |"
        lines.append(row)
    per_tool = gen["lines"] / gen["tools"]
    row = "| generated lines per tool, this crate's `tools.rs` | ≤ 60 lines |"
    for _ in variants:
        row += (f" {per_tool:.1f} ({gen['lines']:,} lines, {gen['bytes'] / gen['tools'] / 1000:.1f} KB "
                f"per tool) | — | | {verdict(per_tool, 60)} |")
    lines.append(row)
    lines += ["", "Per-unit times from the same builds' `--timings` (median):", ""]
    lines += [
        "| variant | measure | toolcall build script (compile) | toolcall build script (run) | toolcall crate | rmcp crate |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for v in variants:
        for key, label in (("doc", "(a) doc edit"), ("body", "(b) body edit"), ("clean", "(c) clean")):
            m = measures[v].get(key)
            if m is None:
                continue
            lines.append(
                f"| {VARIANT_TITLE[v]} | {label} | {fmt_s(m.unit_median('toolcall', 'build script (compile)'))} | "
                f"{fmt_s(m.unit_median('toolcall', 'build script (run)'))} | "
                f"{fmt_s(m.unit_median('toolcall', 'crate'))} | {fmt_s(m.unit_median('rmcp', 'crate'))} |"
            )
    lines += ["", "Load average (1/5/15 min) before → after each run of each measure:", ""]
    for v in variants:
        for key, label in (("doc", "(a)"), ("body", "(b)"), ("clean", "(c)")):
            if key in measures[v]:
                lines.append(f"- {VARIANT_TITLE[v]} {label}: {loads_text(measures[v][key])}")
        if sizes.get(v):
            lines.append(
                f"- {VARIANT_TITLE[v]} (d): "
                + "; ".join(f"{s} {x['load'][0]} → {x['load'][1]}" for s, x in sizes[v].items())
            )
    lines += [""]
    for v in variants:
        for key in ("doc", "body"):
            m = measures[v].get(key)
            if m and m.rewrites:
                n = sum(m.rewrites)
                lines.append(
                    f"- {VARIANT_TITLE[v]}: `$OUT_DIR/tools.rs` after a {key} edit rewritten in {n} of "
                    f"{len(m.rewrites)} builds (mtime; toolcall-build writes it only when its text changed)."
                )
    for v in variants:
        s = sizes.get(v)
        if not s:
            continue
        lines.append(
            f"- {VARIANT_TITLE[v]}: unstripped release binaries toolcall "
            f"{s['toolcall']['unstripped'] / 1024:,.0f} KiB (built in {s['toolcall']['wall']:.1f} s), rmcp "
            f"{s['rmcp']['unstripped'] / 1024:,.0f} KiB ({s['rmcp']['wall']:.1f} s); symbols naming "
            f"`rmcp::service`, `rmcp::transport` or `tokio` (`nm`): toolcall "
            f"{s['toolcall']['service'] / 1024:,.0f} KiB, rmcp {s['rmcp']['service'] / 1024:,.0f} KiB."
        )
    for note in notes:
        lines.append(f"- Checked, {note}.")
    lines += extra
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------


def ensure_locks(update: bool, log) -> None:
    """Seeds each side's Cargo.lock from the committed one, or (first run, --update-locks)
    from the workspace's, which cargo trims to the side's packages; saves it back."""
    for side in SIDES:
        lock = workspace_dir(side) / "Cargo.lock"
        if lock_file(side).exists() and not update:
            shutil.copyfile(lock_file(side), lock)
            continue
        shutil.copyfile(ROOT / "Cargo.lock", lock)
        env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir(side)))
        # cargo keeps the seeded versions and drops what the crates do not use.
        subprocess.run(["cargo", "metadata", "--format-version", "1"], cwd=workspace_dir(side), env=env, check=True, capture_output=True)
        shutil.copyfile(lock, lock_file(side))
        log(f"wrote {lock_file(side).relative_to(ROOT)}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=7, help="runs per measure; the median is reported (7)")
    p.add_argument("--tools", type=int, default=50, help="tools, spread over 5 files (50)")
    p.add_argument("--variant", choices=VARIANTS, action="append", help="measure only this variant (repeatable; default: both)")
    p.add_argument("--out", default=str(DEFAULT_OUT), help="markdown section to write ('-': stdout only)")
    p.add_argument("--no-release", action="store_true", help="skip (d), the release binaries")
    p.add_argument("--no-clean", action="store_true", help="skip (c)")
    p.add_argument("--no-edits", action="store_true", help="skip (a) and (b)")
    p.add_argument("--preliminary", action="store_true", help="mark the section preliminary (busy machine)")
    p.add_argument("--update-locks", action="store_true", help="re-pin the lock files from the workspace's")
    p.add_argument("--generate-only", action="store_true", help="write the crates and stop")
    p.add_argument("--analyze", action="store_true", help="append cargo llvm-lines findings (after the measurements; tool layer)")
    p.add_argument("--time-passes", action="store_true", help="with --analyze: also nightly -Ztime-passes (own target dirs)")
    p.add_argument("--build-override", action="store_true", help="both crates with [profile.dev.build-override] opt-level = 3 (own target dirs)")
    p.add_argument("--rev", help="measure toolcall-runtime/-build/-mcp of this commit (extracted into work/checkout) instead of the checkout's files")
    p.add_argument("--patch", help="with --rev: apply this diff (patch -p1) to the extracted tree, to measure a change on its own without others' uncommitted edits")
    p.add_argument("--snapshot", action="store_true", help="measure a copy of the checkout's files as they are at the start (work/checkout), so edits made during the run are not measured")
    args = p.parse_args()
    variants = tuple(v for v in VARIANTS if v in (args.variant or VARIANTS))
    if args.build_override:
        global BUILD_OVERRIDE
        BUILD_OVERRIDE = True
    if args.rev:
        global SRC, REV
        REV = subprocess.run(["git", "rev-parse", "--short", args.rev], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
        SRC = extract(args.rev, args.patch)
        if args.patch:
            global PATCH
            PATCH = Path(args.patch).name
    elif args.snapshot:
        global SNAPSHOT
        SNAPSHOT = head()
        SRC = snapshot()
    if args.tools % len(FILES) or args.tools <= EDITED:
        sys.exit(f"--tools must be a multiple of {len(FILES)} above {EDITED}")

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    rev = Revisions()
    for side in SIDES:
        for variant in VARIANTS:
            generate(side, variant, args.tools)
    ensure_locks(args.update_locks, log)
    if args.generate_only:
        return 0
    log(f"warming dependencies (load {loadavg()})")
    for variant in variants:
        for side in SIDES:
            wall, _ = timed_build(side, variant)
            log(f"  {variant} {side}: {wall:.1f} s")
    measures: dict[str, dict[str, Measure]] = {v: {} for v in variants}
    if not args.no_edits:
        for kind, title in (("doc", "(a) doc-comment edits"), ("body", "(b) body edits")):
            log(title)
            for v, m in measure_edits(kind, variants, args.runs, args.tools, rev, log).items():
                measures[v][kind] = m
    if not args.no_clean:
        log("(c) clean builds of the crate")
        for v, m in measure_clean(variants, args.runs, log).items():
            measures[v]["clean"] = m
    tools_rs = out_dir(variants[0])
    if tools_rs is None:
        sys.exit("no tools.rs in the toolcall crate's OUT_DIR")
    gen = generated_stats(tools_rs, args.tools)
    sizes: dict[str, dict] = {}
    notes: list[str] = []
    if not args.no_release:
        log("(d) release binaries")
        for variant in variants:
            sizes[variant] = release_sizes(variant, log)
            binaries = {s: x["binary"] for s, x in sizes[variant].items()}
            notes += check_layer(binaries) if variant == "layer" else check_servers(binaries)
    extra = analyze(args, log) if args.analyze else []
    text = report(args, variants, measures, sizes, gen, notes, extra)
    if args.out == "-":
        print(text)
    else:
        Path(args.out).write_text(text)
        log(f"wrote {args.out}")
        print(text)
    return 0


def extract(rev: str, patch: str | None = None) -> Path:
    """The whole tree of `rev` (the root manifest and every member, so workspace inheritance
    resolves) under work/checkout, with `patch` applied; rewritten only when the commit or
    the patch changes."""
    dest = WORK / "checkout"
    commit = subprocess.run(["git", "rev-parse", rev], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    if patch:
        commit += "\n" + Path(patch).read_text()
    stamp = dest / ".commit"
    if stamp.exists() and stamp.read_text() == commit:
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", commit.split("\n")[0]], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    if patch:
        subprocess.run(["patch", "-p1", "--quiet", "-i", str(Path(patch).resolve())], cwd=dest, check=True)
    stamp.write_text(commit)
    return dest


def snapshot() -> Path:
    """The checkout's files as they are now (tracked and untracked, not ignored) under
    work/checkout, so a long run measures one state of the code whatever is edited meanwhile."""
    dest = WORK / "checkout"
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, check=True, capture_output=True,
    ).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


LLVM_LINE = re.compile(r"^\s*(\d+)\s+\([^)]*\)\s+(\d+)\s+\([^)]*\)\s+(.+)$")


def llvm_lines(side: str, log) -> list[tuple[int, int, str]] | None:
    """`cargo llvm-lines` of the crate's binary: (lines, copies, function) per function,
    generic instantiations summed; None when cargo-llvm-lines is not installed."""
    if shutil.which("cargo-llvm-lines") is None:
        log("cargo-llvm-lines is not installed (cargo install cargo-llvm-lines): skipped")
        return None
    done = cargo(side, "llvm-lines", "-p", package(side, "layer"), "--bin", package(side, "layer"), check=False)
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
    crate = package(side, "layer").replace("-", "_")
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
    subprocess.run([*base, "build", "--locked", "-p", package(side, "layer")], cwd=workspace_dir(side), env=env, capture_output=True, check=True)
    subprocess.run([*base, "clean", "-p", package(side, "layer")], cwd=workspace_dir(side), env=env, capture_output=True, check=True)
    # The build script first (its own passes are not wanted), then the crate alone.
    subprocess.run([*base, "build", "--locked", "-p", package(side, "layer")], cwd=workspace_dir(side), env=env, capture_output=True, check=True)
    (crate_dir(side, "layer") / "src" / "main.rs").touch()
    done = subprocess.run(
        [*base, "rustc", "--locked", "-p", package(side, "layer"), "--bin", package(side, "layer"), "--", "-Ztime-passes"],
        cwd=workspace_dir(side),
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
    out = ["", "### Where the compile time goes (`--analyze`, tool layer)", ""]
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
            out += ["", f"Largest functions, {package(side, 'layer')} (lines, copies = instantiations):", ""]
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
            out += ["", f"`cargo +nightly rustc -p {package(side, 'layer')} --bin {package(side, 'layer')} -- -Ztime-passes` (the crate alone, debug, "
                    "after `cargo clean -p`; nested passes overlap, so times do not add up):", ""]
            out += ["| pass | seconds |", "|---|---:|"] + [f"| `{name}` | {t:.3f} |" for name, t in top]
    return out


if __name__ == "__main__":
    sys.exit(main())
