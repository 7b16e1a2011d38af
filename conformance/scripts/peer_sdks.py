#!/usr/bin/env python3
"""The peers' own SDKs on toolcall's strict definitions (#31 items 5 and 6).

Not run by CI (it needs PyPI): conformance/tests/peer_checks.rs runs Rust ports of the same
checks there. Run it by hand, as RELIABILITY.md says:

    python3 -m venv /tmp/peers && /tmp/peers/bin/pip install anthropic openai-agents
    cargo run -q --bin cargo-toolcall -- toolcall export --format anthropic --strict \
        --path toolcall-fixtures --out /tmp/anthropic.json
    cargo run -q --bin cargo-toolcall -- toolcall export --format openai --strict \
        --path toolcall-fixtures --out /tmp/openai.json
    /tmp/peers/bin/python conformance/scripts/peer_sdks.py /tmp/anthropic.json /tmp/openai.json

Each file is an exported array of definitions. An Anthropic definition that says
"strict": true must pass anthropic's transform_schema, and one without it must be one the
SDK refuses (toolcall drops strict only when it must). An OpenAI Chat or Responses
definition that says "strict": true must pass openai-agents' ensure_strict_json_schema.
Exit 0 when every check passes, 1 otherwise.
"""

import json
import sys

from anthropic import transform_schema
from agents.strict_schema import ensure_strict_json_schema


def check(path):
    with open(path, encoding="utf-8") as f:
        definitions = json.load(f)
    failures, counts = [], {"anthropic strict": 0, "anthropic not strict": 0, "openai strict": 0}
    for definition in definitions:
        name = definition.get("name") or definition.get("function", {}).get("name")
        if "input_schema" in definition:
            strict = definition.get("strict") is True
            try:
                transform_schema(definition["input_schema"])
                refused = None
            except Exception as error:  # the SDK raises ValueError; report anything
                refused = error
            if strict:
                counts["anthropic strict"] += 1
                if refused is not None:
                    failures.append(f"{path}: `{name}` is strict, transform_schema refuses it: {refused}")
            else:
                counts["anthropic not strict"] += 1
                if refused is None:
                    failures.append(f"{path}: `{name}` is not strict although transform_schema takes it")
            continue
        function = definition.get("function", definition)
        if function.get("strict") is True:
            counts["openai strict"] += 1
            try:
                ensure_strict_json_schema(function["parameters"])
            except Exception as error:
                failures.append(f"{path}: `{name}`: ensure_strict_json_schema refuses it: {error}")
    return counts, failures


def main(paths):
    if not paths:
        print(__doc__)
        return 2
    all_failures = []
    for path in paths:
        counts, failures = check(path)
        print(f"{path}: {counts}")
        all_failures += failures
    for failure in all_failures:
        print(failure)
    return 1 if all_failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
