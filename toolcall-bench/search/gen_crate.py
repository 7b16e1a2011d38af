#!/usr/bin/env python3
"""Writes a toolcall crate with one tool per BFCL function (issue 63, point 5).

    python3 toolcall-bench/search/gen_crate.py --data target/search-bench/data --tools 1000
    python3 toolcall-bench/search/gen_crate.py --data DIR --tools all --out DIR --search off

`--data` is the directory `bfcl_data.py` wrote (`functions.json`, in pool order).
`--tools N` takes the first N pooled functions; `all` takes every one; an N larger than
the pool pads it with renamed copies of real definitions, cycling through the pool:
copy k (k = 2, 3, ..) of `name` is `name_vk` (its base cut so the name stays within 64
characters). Copies are for the speed and build measurements only.

The crate, `bfcl-tools-<N>`, is written to `<out>/bfcl-tools-<N>/` (default out:
`target/search-bench/crates`; the workspace's `target/` is git-ignored). It is not
committed, and is rewritten only where a file's text changed (so cargo's fingerprints
stay valid on a re-run). It holds:

- `src/tools/m<NN>.rs`: the tools, grouped by the BFCL category the function was first
  seen in, at most 200 per file, in pool order. The module names are neutral on purpose:
  toolcall's search indexes a tool's module path (`live_multiple_0` would add `live` and
  `multiple` to every tool of that category, words BFCL's definitions do not have and
  the FastMCP side does not see). Each tool is a `pub fn` whose doc comment's
  first paragraph is the BFCL description (whitespace collapsed to one line), followed by
  a `# Arguments` section with a `* name - text` bullet per described parameter. Types:
  string -> `String`, integer/long -> `i64`, float/number/double -> `f64`, boolean ->
  `bool`, array/tuple -> `Vec<String>`/`Vec<i64>`/`Vec<f64>`/`Vec<bool>` by item type,
  else `Vec<serde_json::Value>`; dict/object/any and the rest -> `serde_json::Value`.
  A parameter absent from `required` is `Option<T>`. A string parameter with an `enum`
  is a local unit enum, each variant `#[serde(rename = "<value>")]`. Every tool returns
  `String`.
- names: the tool's wire name is the BFCL name with each `.` written `-` (BFCL names are
  `[A-Za-z0-9_.]`, never `-`, and at most 64 characters, so this is reversible and keeps
  the length within toolcall's `^[a-zA-Z0-9_-]{1,64}$`). The Rust function is the name
  with `.` written `_` (suffixed `_2`, `_3`.. if that collides); where the two differ, a
  `ToolMeta::new(fn).name(wire)` entry in the file's `TOOLS` const sets the wire name.
- `names.json` beside `Cargo.toml`: `[{"rust_fn", "module", "tool" (wire name),
  "original" (the BFCL name), "copy_of" (for a padding copy, the original it copies),
  "category"}]`, in tool order.
- `build.rs`: `toolcall_build::Builder::new()[.tool_search(true)].compile()`. `--search
  on` writes the call, `off` leaves it out (the crate then builds without the search
  API), `auto` (default) writes it when toolcall-build's `Builder` has `fn tool_search`.
- `src/main.rs`, the binary:
  - `bfcl-tools-N QUERIES.json`: for each `{"id", "query"}` of the file, one JSON line
    `{"id", "top": [10 tool names], "scores": [..], "ns": ..}`: `toolset::ALL.search(query,
    10)`, timed with `std::time::Instant`: after two warm-up calls, rounds of enough
    back-to-back calls to take about 0.2 ms, `ns` the median over 7 rounds of the mean
    per call.
  - `--emit-sizes [QUERIES.json]`: the bytes of `toolset::ALL.emit(format, strict)` per
    format, lax and strict, as one JSON object; with the queries (and search compiled in),
    also what a request carries with search on: the search tool's definition
    (`ToolSearch::new()`, rendered in each format) and the median bytes of a search's
    answer (the top 5, `DEFAULT_SEARCH_LIMIT`, rendered in each format).
  - `--emit-mcp`: the MCP definitions (`emit(Format::Mcp, false)`), which the FastMCP
    side reads so that both sides index exactly the same names and text.
- `Cargo.toml`: toolcall-runtime and toolcall-build by path (relative to this checkout, or
  to the tree `--toolcall` names: scripts/search-bench can point it at one commit's files),
  serde, serde_json; an empty `[workspace]` (the crate sits inside this repository's
  tree but is not a member). `Cargo.lock` starts as a copy of the workspace's, so every
  generated crate resolves the same dependency versions and one target directory
  shares them.
"""

import argparse
import json
import os
import re
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MAX_PER_FILE = 200
NAME_LIMIT = 64

# Rust keywords (strict and reserved, 2024 edition). `self`, `Self`, `super` and `crate`
# cannot be raw identifiers; none of BFCL's names or parameters is one of those.
KEYWORDS = set(
    "as break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref "
    "return self Self static struct super trait true type unsafe use where while async await dyn abstract become "
    "box do final macro override priv typeof unsized virtual yield try gen".split()
)
NOT_RAW = {"self", "Self", "super", "crate", "_"}

SCALARS = {
    "string": "String",
    "str": "String",
    "integer": "i64",
    "int": "i64",
    "long": "i64",
    "float": "f64",
    "number": "f64",
    "double": "f64",
    "boolean": "bool",
    "bool": "bool",
}
ARRAYS = {"array", "tuple", "list", "arraylist"}
VALUE = "serde_json::Value"


def one_line(text: str) -> str:
    """Whitespace (newlines too) collapsed to single spaces: one doc paragraph."""
    return " ".join(str(text).split())


def rust_str(text: str) -> str:
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def camel(text: str) -> str:
    parts = re.split(r"[^0-9A-Za-z]+", text)
    word = "".join(p[:1].upper() + p[1:] for p in parts if p)
    if not word or word[0].isdigit():
        word = "T" + word
    return word


def binding(param: str) -> str:
    """The Rust binding of a parameter: its wire name (raw if a keyword)."""
    if param in NOT_RAW:
        raise SystemExit(f"parameter {param!r} cannot be a Rust binding")
    if param in KEYWORDS:
        return "r#" + param
    if not re.fullmatch(r"[^\W\d]\w*", param):
        raise SystemExit(f"parameter {param!r} is not a Rust identifier")
    return param


def base_type(schema: dict) -> str:
    kind = str(schema.get("type", "")).lower()
    if kind in SCALARS:
        return SCALARS[kind]
    if kind in ARRAYS:
        items = schema.get("items")
        item_kind = str(items.get("type", "")).lower() if isinstance(items, dict) else ""
        return f"Vec<{SCALARS.get(item_kind, VALUE)}>"
    return VALUE


def string_enum(schema: dict) -> list[str] | None:
    values = schema.get("enum")
    if not isinstance(values, list) or not values:
        return None
    if base_type(schema) != "String" or not all(isinstance(v, str) for v in values):
        return None
    return list(dict.fromkeys(values))


def select(functions: list[dict], count: str) -> list[dict]:
    """The first N pooled functions, or the pool padded with renamed copies."""
    if count == "all":
        return [dict(f, original=f["name"], copy_of=None) for f in functions]
    n = int(count)
    chosen = [dict(f, original=f["name"], copy_of=None) for f in functions[:n]]
    taken = {f["name"] for f in functions}
    k = 2
    while len(chosen) < n:
        for f in functions:
            if len(chosen) >= n:
                break
            suffix = f"_v{k}"
            name = f["name"][: NAME_LIMIT - len(suffix)] + suffix
            while name in taken:
                suffix = "_" + suffix
                name = f["name"][: NAME_LIMIT - len(suffix)] + suffix
            taken.add(name)
            chosen.append(dict(f, name=name, original=f["name"], copy_of=f["name"], category="copies"))
        k += 1
    return chosen


def tool_code(fn: dict, rust_fn: str, enum_names: set[str]) -> str:
    """The Rust text of one tool, its enums first."""
    params = fn["parameters"] if isinstance(fn["parameters"], dict) else {}
    props = params.get("properties") or {}
    required = set(params.get("required") or [])
    enums: list[str] = []
    args: list[str] = []
    bullets: list[str] = []
    for name, schema in props.items():
        schema = schema if isinstance(schema, dict) else {}
        bind = binding(name)
        values = string_enum(schema)
        if values is not None:
            type_name = camel(rust_fn) + camel(name)
            while type_name in enum_names:
                type_name += "X"
            enum_names.add(type_name)
            variants = "".join(
                f"    #[serde(rename = {rust_str(v)})]\n    V{i},\n" for i, v in enumerate(values)
            )
            enums.append(f"#[derive(Debug, Clone, Copy, serde::Serialize)]\npub enum {type_name} {{\n{variants}}}\n")
            ty = type_name
        else:
            ty = base_type(schema)
        if name not in required:
            ty = f"Option<{ty}>"
        args.append(f"{bind}: {ty}")
        text = one_line(schema.get("description", ""))
        if text:
            bullets.append(f"/// * `{bind}` - {text}")
    doc: list[str] = []
    description = one_line(fn["description"])
    if description:
        doc.append(f"/// {description}")
    if bullets:
        if doc:
            doc.append("///")
        doc += ["/// # Arguments", "///", *bullets]
    signature = f"pub fn {rust_fn}({', '.join(args)}) -> String {{\n    \"called\".to_owned()\n}}\n"
    return "".join(enums) + "\n".join(doc) + ("\n" if doc else "") + signature


def search_available(toolcall: Path) -> bool:
    builder = toolcall / "toolcall-build" / "src" / "builder.rs"
    return "fn tool_search" in builder.read_text(encoding="utf-8")


MAIN_RS = r'''//! Tool search over BFCL's functions: rankings and timings, definition sizes.
//! Written by toolcall-bench/search/gen_crate.py; not committed.

#[allow(unused_variables, non_snake_case, non_camel_case_types, dead_code, missing_docs)]
mod tools;
#[allow(non_snake_case, non_camel_case_types, dead_code, missing_docs)]
mod toolset {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}

use toolcall_runtime::Format;

const USAGE: &str = "usage: BIN QUERIES.json | BIN --emit-sizes [QUERIES.json] | BIN --emit-mcp";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--emit-sizes") => emit_sizes(args.get(1).map(String::as_str)),
        Some("--emit-mcp") => println!("{}", toolset::ALL.emit(Format::Mcp, false)),
        Some(path) if !path.starts_with('-') => search_all(path),
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    }
}

fn emit_sizes(queries: Option<&str>) {
    let mut formats = serde_json::Map::new();
    for format in Format::ALL {
        let lax = toolset::ALL.emit(format, false).len();
        let strict = toolset::ALL.emit(format, true).len();
        formats.insert(format.as_str().to_owned(), serde_json::json!({"lax": lax, "strict": strict}));
    }
    let search = queries.map(search_sizes).unwrap_or(serde_json::Value::Null);
    println!("{}", serde_json::json!({"tools": toolset::ALL.len(), "bytes": formats, "search": search}));
}

fn read_queries(path: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let value: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let list = value.as_array().unwrap_or_else(|| panic!("{path}: not a JSON array"));
    list.iter()
        .map(|q| {
            let id = q["id"].as_str().unwrap_or_else(|| panic!("{path}: an entry without an \"id\" string"));
            let query = q["query"].as_str().unwrap_or_else(|| panic!("{path}: {id} has no \"query\" string"));
            (id.to_owned(), query.to_owned())
        })
        .collect()
}
'''

SEARCH_ON = r'''
const LIMIT: usize = 10;

/// Per format, lax and strict: the search tool's definition and the median bytes of a
/// search's answer (the top `DEFAULT_SEARCH_LIMIT` tools' definitions) over the queries.
fn search_sizes(path: &str) -> serde_json::Value {
    use toolcall_runtime::render::{render_infos, render_tool};
    use toolcall_runtime::search::{DEFAULT_SEARCH_LIMIT, ToolSearch};
    let queries = read_queries(path);
    let tool = ToolSearch::new().tool();
    let mut formats = serde_json::Map::new();
    for format in Format::ALL {
        let mut entry = serde_json::Map::new();
        for (kind, strict) in [("lax", false), ("strict", true)] {
            let strict = strict && format != Format::Gemini;
            let mut answers: Vec<usize> = queries
                .iter()
                .map(|(_, query)| {
                    let found: Vec<_> = toolset::ALL.search(query, DEFAULT_SEARCH_LIMIT).iter().map(|hit| *hit.tool).collect();
                    render_infos(&found, format, strict).len()
                })
                .collect();
            answers.sort_unstable();
            let median = answers.get(answers.len() / 2).copied().unwrap_or(0);
            let definition = render_tool(&tool, format, strict).len();
            entry.insert(kind.to_owned(), serde_json::json!({"search_tool": definition, "answer_median": median}));
        }
        formats.insert(format.as_str().to_owned(), serde_json::Value::Object(entry));
    }
    serde_json::json!({"limit": DEFAULT_SEARCH_LIMIT, "queries": queries.len(), "bytes": formats})
}
const ROUNDS: usize = 7;
const ROUND_NS: u128 = 200_000;

fn search_all(path: &str) {
    use std::hint::black_box;
    use std::io::Write;
    use std::time::Instant;
    let queries = read_queries(path);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for (id, query) in &queries {
        let hits = toolset::ALL.search(query, LIMIT);
        let top: Vec<&str> = hits.iter().map(|hit| hit.tool.name).collect();
        let scores: Vec<f32> = hits.iter().map(|hit| hit.score).collect();
        black_box(toolset::ALL.search(black_box(query), LIMIT));
        let start = Instant::now();
        black_box(toolset::ALL.search(black_box(query), LIMIT));
        let once = start.elapsed().as_nanos().max(1);
        let reps = (ROUND_NS / once).clamp(1, 100_000) as u32;
        let mut per_call: Vec<f64> = (0..ROUNDS)
            .map(|_| {
                let start = Instant::now();
                for _ in 0..reps {
                    black_box(toolset::ALL.search(black_box(query), LIMIT));
                }
                start.elapsed().as_nanos() as f64 / f64::from(reps)
            })
            .collect();
        per_call.sort_by(f64::total_cmp);
        let line = serde_json::json!({"id": id, "top": top, "scores": scores, "ns": per_call[ROUNDS / 2], "reps": reps});
        writeln!(out, "{line}").unwrap_or_else(|e| panic!("stdout: {e}"));
    }
}
'''

SEARCH_OFF = r'''
/// Built without `tool_search`: no search sizes.
fn search_sizes(_path: &str) -> serde_json::Value {
    serde_json::Value::Null
}
/// Built without `tool_search` (gen_crate.py --search off): no search to run.
fn search_all(path: &str) {
    let queries = read_queries(path);
    eprintln!(
        "{} queries read from {path}, but this crate was generated without tool_search: \
         regenerate it with --search on once toolcall-build has Builder::tool_search",
        queries.len()
    );
    std::process::exit(3);
}
'''


def write(path: Path, text: str) -> None:
    """Writes a file only if its text changed (keeps cargo's fingerprints on a re-run)."""
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=REPO / "target/search-bench/data")
    ap.add_argument("--tools", required=True, help="N, or 'all' for the whole pool")
    ap.add_argument("--out", type=Path, default=REPO / "target/search-bench/crates")
    ap.add_argument("--search", choices=["auto", "on", "off"], default="auto")
    ap.add_argument(
        "--toolcall",
        type=Path,
        default=REPO,
        help="the toolcall source tree the crate depends on (default: this checkout)",
    )
    args = ap.parse_args()

    functions = json.loads((args.data / "functions.json").read_text(encoding="utf-8"))
    chosen = select(functions, args.tools)
    search = args.search == "on" or (args.search == "auto" and search_available(args.toolcall))
    crate = args.out / f"bfcl-tools-{args.tools}"
    (crate / "src" / "tools").mkdir(parents=True, exist_ok=True)

    # Modules: by category of first sight, at most MAX_PER_FILE tools a file.
    groups: dict[str, list[dict]] = {}
    for fn in chosen:
        groups.setdefault(fn["category"], []).append(fn)
    modules: list[tuple[str, list[dict]]] = []
    for category, members in groups.items():
        for k in range(0, len(members), MAX_PER_FILE):
            modules.append((f"m{len(modules):02}", members[k : k + MAX_PER_FILE]))

    used_fns: set[str] = set()
    names: list[dict] = []
    wanted_files = {"mod.rs"}
    for module, members in modules:
        enum_names: set[str] = set()
        metas: list[str] = []
        bodies: list[str] = []
        for fn in members:
            wire = fn["name"].replace(".", "-")
            base = fn["name"].replace(".", "_")
            if base in KEYWORDS:
                base += "_fn"
            rust_fn, k = base, 2
            while rust_fn in used_fns:
                rust_fn, k = f"{base}_{k}", k + 1
            used_fns.add(rust_fn)
            if rust_fn != wire:
                metas.append(f"    ToolMeta::new({rust_str(rust_fn)}).name({rust_str(wire)}),\n")
            code = tool_code(fn, rust_fn, enum_names)
            bodies.append(code)
            names.append(
                {
                    "rust_fn": rust_fn,
                    "module": module,
                    "tool": wire,
                    "original": fn["original"],
                    "copy_of": fn["copy_of"],
                    "category": fn["category"],
                }
            )
        head = f"//! BFCL functions first seen in category `{members[0]['category']}` ({len(members)} tools).\n\n"
        if metas:
            head += "use toolcall_runtime::ToolMeta;\n\n"
            head += "/// Wire names: the BFCL name with `.` written `-`.\n"
            head += "pub(crate) const TOOLS: &[ToolMeta] = &[\n" + "".join(metas) + "];\n\n"
        write(crate / "src" / "tools" / f"{module}.rs", head + "\n".join(bodies))
        wanted_files.add(f"{module}.rs")
    for stale in (crate / "src" / "tools").iterdir():
        if stale.name not in wanted_files:
            stale.unlink()
    mod_rs = "//! The tool modules.\n\n" + "".join(f"pub mod {m};\n" for m, _ in modules)
    write(crate / "src" / "tools" / "mod.rs", mod_rs)

    rel = Path(os.path.relpath(args.toolcall.resolve(), crate.resolve()))
    cargo = f"""[package]
name = "bfcl-tools-{args.tools}"
version = "0.0.0"
edition = "2024"
publish = false
description = "BFCL's functions as toolcall tools ({len(chosen)}), written by toolcall-bench/search/gen_crate.py"

[dependencies]
toolcall-runtime = {{ path = "{(rel / 'toolcall-runtime').as_posix()}" }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"

[build-dependencies]
toolcall-build = {{ path = "{(rel / 'toolcall-build').as_posix()}" }}

# Not a member of the repository's workspace, whose tree it sits in.
[workspace]
"""
    write(crate / "Cargo.toml", cargo)
    if not (crate / "Cargo.lock").exists():
        shutil.copyfile(args.toolcall / "Cargo.lock", crate / "Cargo.lock")
    call = "\n        .tool_search(true)" if search else ""
    write(
        crate / "build.rs",
        "//! Written by toolcall-bench/search/gen_crate.py.\n"
        f"fn main() {{\n    toolcall_build::Builder::new(){call}\n        .compile();\n}}\n",
    )
    write(crate / "src" / "main.rs", MAIN_RS + (SEARCH_ON if search else SEARCH_OFF))
    write(crate / "names.json", json.dumps(names, ensure_ascii=False, indent=0) + "\n")
    copies = sum(1 for n in names if n["copy_of"])
    print(
        f"{crate}: {len(names)} tools ({len(names) - copies} distinct BFCL functions, {copies} copies) "
        f"in {len(modules)} files, search {'on' if search else 'off'}"
    )


if __name__ == "__main__":
    main()
