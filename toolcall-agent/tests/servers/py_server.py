"""An MCP server written with the official Python SDK (`mcp` 2.x, its MCPServer, once
FastMCP) for toolcall-agent's MCP tests: the agent lists and calls its tools through
rmcp's client, over stdio or streamable HTTP.

    PYTHON py_server.py stdio           # serves on stdin/stdout
    PYTHON py_server.py http            # serves http://127.0.0.1:PORT/mcp; prints "PORT n"
    PYTHON py_server.py http TOKEN      # ... and answers 401 without `Authorization: Bearer TOKEN`

PYTHON is the interpreter of the virtual environment scripts/install-clients made (it
holds the `mcp` package). Tools are listed two per page. `grow` adds the tool `late` and
sends notifications/tools/list_changed. `wipe` is annotated destructive, `forecast`
read-only. `calls` answers the names of the tools called so far, in order.
"""

import asyncio
import socket
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp_types import ListToolsResult, ToolAnnotations
from pydantic import BaseModel, Field

# A 1x1 PNG.
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)
CALLED = []


class Paged(MCPServer):
    """Lists its tools two per page, the cursor the index of the next one."""

    async def _handle_list_tools(self, ctx, params):
        tools = await self.list_tools()
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + 2
        return ListToolsResult(tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None)


server = Paged("weather-py")


class Forecast(BaseModel):
    """A city's weather."""

    city: str
    temp_c: float
    days: int


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def forecast(city: str, days: int = Field(default=1, ge=1, le=7, description="how many days")) -> Forecast:
    """The forecast for a city."""
    CALLED.append("forecast")
    if city == "Atlantis":
        raise ToolError("no weather station in Atlantis")
    return Forecast(city=city, temp_c=21.5, days=days)


@server.tool(structured_output=False)
def echo(text: str, times: int | None = None) -> str:
    """Repeat a text."""
    CALLED.append("echo")
    return " ".join([text] * (times or 1))


@server.tool()
def pixel() -> Image:
    """A tiny image."""
    CALLED.append("pixel")
    return Image(data=PIXEL, format="png")


@server.tool(annotations=ToolAnnotations(destructive_hint=True), structured_output=False)
def wipe(what: str) -> str:
    """Delete something for good."""
    CALLED.append("wipe")
    return f"wiped {what}"


@server.tool(structured_output=False)
async def slow(ctx: Context, steps: int = 3) -> str:
    """Work in steps, reporting progress."""
    CALLED.append("slow")
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
        await asyncio.sleep(0.05)
    return f"{steps} steps"


def late(word: str) -> str:
    """A tool that appears later."""
    CALLED.append("late")
    return word.upper()


@server.tool(structured_output=False)
async def grow(ctx: Context) -> str:
    """Add the tool `late`."""
    CALLED.append("grow")
    server.add_tool(late, name="late", structured_output=False)
    await ctx.session.send_tool_list_changed()
    return "grown"


@server.tool(structured_output=False)
def tally(counts: dict[str, int]) -> str:
    """Add up counts by name."""
    CALLED.append("tally")
    return str(sum(counts.values()))


@server.tool(structured_output=False)
def calls() -> str:
    """The tools called so far."""
    return ",".join(CALLED)


async def serve_http(token):
    import uvicorn

    app = server.streamable_http_app(host="127.0.0.1")
    if token is not None:
        inner = app

        async def app(scope, receive, send):  # noqa: F811: a guard around the SDK's app
            if scope["type"] == "http":
                headers = dict(scope.get("headers") or [])
                if headers.get(b"authorization") != f"Bearer {token}".encode():
                    await send({"type": "http.response.start", "status": 401, "headers": []})
                    await send({"type": "http.response.body", "body": b"unauthorized"})
                    return
            await inner(scope, receive, send)

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    # Listening before the port is told: a client may connect at once.
    sock.listen(128)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve(sockets=[sock])


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run("stdio")
    else:
        asyncio.run(serve_http(sys.argv[2] if len(sys.argv) > 2 else None))
