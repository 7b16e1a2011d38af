"""Checks request bodies against the official SDKs' request types.

Reads a JSON array of {"provider": "openai" | "responses" | "anthropic", "body": {...}}
on stdin and validates each body with pydantic against the type the SDK's `create` takes:
`openai.types.chat.CompletionCreateParams`, `openai.types.responses.ResponseCreateParams`,
`anthropic.types.MessageCreateParams`. Every TypedDict of the SDKs is made to refuse keys
it does not declare (the SDKs leave them to the server), unless the SDK itself allows them
(a JSON Schema's `input_schema`, `parameters`): a misspelt or invented field is an error,
not a key the server may reject later. Prints one line per body, `ok PROVIDER` or
`error PROVIDER: ...`, and exits 1 when any body does not check.

Run with the interpreter of scripts/install-clients' `agent-sdk` venv (anthropic, openai).
"""

import importlib
import json
import pkgutil
import sys
import typing

import anthropic
import anthropic.types
import openai
import openai.types
import pydantic
from typing_extensions import is_typeddict


def forbid_extra_keys(package):
    """Every TypedDict in `package` without a pydantic config of its own refuses unknown keys."""
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if ".beta" in info.name or ".lib" in info.name:
            continue
        try:
            module = importlib.import_module(info.name)
        except Exception:  # a module needing an optional dependency
            continue
        for value in vars(module).values():
            if isinstance(value, type) and is_typeddict(value) and "__pydantic_config__" not in vars(value):
                value.__pydantic_config__ = {"extra": "forbid"}


forbid_extra_keys(anthropic.types)
forbid_extra_keys(openai.types)

from anthropic.types import MessageCreateParams  # noqa: E402
from openai.types.chat import CompletionCreateParams  # noqa: E402
from openai.types.responses import ResponseCreateParams  # noqa: E402

ADAPTERS = {
    "openai": pydantic.TypeAdapter(CompletionCreateParams),
    "responses": pydantic.TypeAdapter(ResponseCreateParams),
    "anthropic": pydantic.TypeAdapter(MessageCreateParams),
}


def consume(value):
    """Validates what pydantic left lazy: the SDKs type lists as `Iterable[...]`, which
    pydantic checks only as they are iterated."""
    if isinstance(value, dict):
        for item in value.values():
            consume(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            consume(item)
    elif isinstance(value, (str, bytes)):
        return
    elif hasattr(value, "__next__"):
        for item in value:
            consume(item)


def main():
    bodies = json.load(sys.stdin)
    failed = False
    for item in bodies:
        provider = item["provider"]
        try:
            consume(ADAPTERS[provider].validate_python(item["body"], strict=False))
            print(f"ok {provider}")
        except pydantic.ValidationError as error:
            failed = True
            # The errors of the union member that matched best come first; keep it short.
            lines = str(error).splitlines()
            print(f"error {provider}: " + " | ".join(lines[:40]))
    print(f"sdk versions: anthropic {anthropic.__version__}, openai {openai.__version__}, pydantic {pydantic.VERSION}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
