"""The official MCP Python SDK's client answering a toolcall server's questions: it
connects in MODE ("2026-07-28": no handshake, questions come back as input-required
results that the SDK answers and retries; "legacy": `initialize`, questions come as
requests), answers every elicitation with ACTION (accepting a form with "Ada" in each text
field and 36 in each integer field),
calls each tool given, and prints the protocol version it spoke, what the tools returned
and what it was asked, as one JSON object.

    PYTHON py_elicitation.py URL MODE ACTION TOOLS

PYTHON is the interpreter of the virtual environment scripts/install-clients made (it
holds the `mcp` package). TOOLS is a comma-separated list of tools to call, without
arguments. Exit 0 when every call was made, whatever it gave.
"""

import asyncio
import json
import sys

from mcp import Client, types


async def main(url, mode, action, tools):
    asked = []

    async def elicit(context, params):
        question = params.model_dump(by_alias=True, mode="json", exclude_none=True)
        asked.append(question)
        if action == "accept" and question.get("mode", "form") != "url":
            fields = question.get("requestedSchema", {}).get("properties", {})
            content = {name: 36 if field.get("type") == "integer" else "Ada" for name, field in fields.items()}
            return types.ElicitResult(action="accept", content=content)
        return types.ElicitResult(action=action)

    results = []
    async with Client(url, mode=mode, elicitation_callback=elicit) as client:
        for name in tools:
            try:
                result = await client.call_tool(name, {})
                results.append({"name": name, "result": result.model_dump(by_alias=True, mode="json")})
            except Exception as error:  # what a host would see: report anything
                results.append({"name": name, "threw": f"{type(error).__name__}: {error}"})
        version = client.protocol_version
    sys.stdout.write(json.dumps({"version": version, "results": results, "asked": asked}))


if __name__ == "__main__":
    url, mode, action, tools = sys.argv[1:5]
    asyncio.run(main(url, mode, action, tools.split(",")))
