#!/usr/bin/env python3
"""Extracts the tool-search benchmark's data from the installed `bfcl-eval` package.

Writes, into the output directory:

- `functions.json`: the pooled function definitions, deduplicated by name (the first
  definition of a name wins), in pool order: the categories in `CATEGORIES` order, each
  file's entries in order, each entry's functions in order. Every item is
  `{"name", "description", "parameters", "category"}`.
- `queries.json`: the `live_multiple` queries, `{"id", "query", "answers", "half"}`:
  `query` is the text of the entry's user message(s) (a system message, present in 37
  entries, is left out), `answers` the function names of its `possible_answer` ground
  truth, `half` is `held_out` or `tuning` (see `half_of`).
- `meta.json`: the bfcl-eval version and the counts.

Run it with the venv's python, where bfcl-eval is installed (it is found with
importlib, not imported: the data is all this reads).
"""

import argparse
import hashlib
import importlib.metadata
import importlib.util
import json
import re
from pathlib import Path

# The single-turn categories whose entries carry function definitions, in pool order:
# `live_multiple` first (its definitions are the ones its queries were written against),
# then the other live ones, then the rest. The multi-turn, memory and web-search
# categories carry no definitions in their entries.
CATEGORIES = [
    "live_multiple",
    "live_simple",
    "live_parallel",
    "live_parallel_multiple",
    "live_relevance",
    "live_irrelevance",
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
]

QUERY_CATEGORY = "live_multiple"


def half_of(query_id: str) -> str:
    """The deterministic split: SHA-256 of the query id, as a big-endian integer, even is
    held out, odd is tuning."""
    digest = int(hashlib.sha256(query_id.encode("utf-8")).hexdigest(), 16)
    return "held_out" if digest % 2 == 0 else "tuning"


def data_dir() -> Path:
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("bfcl-eval is not installed in this python (pip install bfcl-eval)")
    return Path(list(spec.submodule_search_locations)[0]) / "data"


def read_lines(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def category_file(root: Path, category: str, answers: bool = False) -> Path:
    base = root / "possible_answer" if answers else root
    pattern = re.compile(rf"BFCL_v(\d+)_{re.escape(category)}\.json")
    found = sorted(
        (int(m.group(1)), path) for path in base.iterdir() if (m := pattern.fullmatch(path.name))
    )
    if not found:
        raise SystemExit(f"no data file for category {category} under {base}")
    return found[-1][1]  # the newest version present


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, type=Path, help="output directory")
    args = ap.parse_args()
    root = data_dir()
    args.out.mkdir(parents=True, exist_ok=True)

    functions: list[dict] = []
    seen: set[str] = set()
    per_category = {}
    for category in CATEGORIES:
        path = category_file(root, category)
        added = 0
        for entry in read_lines(path):
            for fn in entry.get("function") or []:
                if fn["name"] in seen:
                    continue
                seen.add(fn["name"])
                functions.append(
                    {
                        "name": fn["name"],
                        "description": fn.get("description") or "",
                        "parameters": fn.get("parameters") or {},
                        "category": category,
                    }
                )
                added += 1
        per_category[category] = {"file": path.name, "new_functions": added}

    questions = read_lines(category_file(root, QUERY_CATEGORY))
    answers = {a["id"]: a for a in read_lines(category_file(root, QUERY_CATEGORY, answers=True))}
    queries = []
    for entry in questions:
        turns = entry["question"]
        text = "\n".join(m["content"] for turn in turns for m in turn if m["role"] == "user")
        truth = answers[entry["id"]]["ground_truth"]
        names = sorted({name for call in truth for name in call})
        missing = [n for n in names if n not in seen]
        if missing:
            raise SystemExit(f"{entry['id']}: answer {missing} not in the pool")
        queries.append({"id": entry["id"], "query": text, "answers": names, "half": half_of(entry["id"])})

    (args.out / "functions.json").write_text(json.dumps(functions, ensure_ascii=False, indent=0), encoding="utf-8")
    (args.out / "queries.json").write_text(json.dumps(queries, ensure_ascii=False, indent=1), encoding="utf-8")
    meta = {
        "bfcl_eval_version": importlib.metadata.version("bfcl-eval"),
        "data_dir": str(root),
        "categories": per_category,
        "functions": len(functions),
        "queries": len(queries),
        "held_out": sum(q["half"] == "held_out" for q in queries),
        "tuning": sum(q["half"] == "tuning" for q in queries),
        "split": "sha256(query id) as a big-endian integer: even = held_out, odd = tuning",
    }
    (args.out / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    print(
        f"bfcl-eval {meta['bfcl_eval_version']}: {len(functions)} distinct functions, "
        f"{len(queries)} {QUERY_CATEGORY} queries ({meta['held_out']} held out, {meta['tuning']} tuning)"
    )


if __name__ == "__main__":
    main()
