"""The official MCP Python SDK's client against a toolcall server: initializes, lists the
tools (which loads their output schemas, as a host does), then makes each call given and
prints what the SDK handed back, or the exception it raised, as one JSON array.

    PYTHON py_client.py URL TOKEN CALLS_JSON

PYTHON is the interpreter of the virtual environment scripts/install-clients made (it
holds the `mcp` package). CALLS_JSON is an array of {"name": .., "arguments": {..}}.
Exit 0 when every call was made, whatever it gave.
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


async def main(url, token, calls):
    seen = []
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write, *_):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.list_tools()
                for call in calls:
                    try:
                        result = await session.call_tool(call["name"], call["arguments"])
                        seen.append({"name": call["name"], "result": result.model_dump(by_alias=True, mode="json")})
                    except Exception as error:  # what a host would see: report anything
                        seen.append({"name": call["name"], "threw": f"{type(error).__name__}: {error}"})
    sys.stdout.write(json.dumps(seen))


if __name__ == "__main__":
    url, token, calls = sys.argv[1:4]
    asyncio.run(main(url, token, json.loads(calls)))
