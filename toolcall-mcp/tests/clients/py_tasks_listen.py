"""The official MCP Python SDK's client against a toolcall server (example-app's tools) on
2026-07-28: `subscriptions/listen` and the Tasks extension (io.modelcontextprotocol/tasks).

    PYTHON py_tasks_listen.py URL

1. Opens `Client.listen(tools_list_changed=True)` and, once the server acknowledged it,
   prints one line `{"honored": FILTER}`; then waits (10 s at most) for the first event,
   which the test makes the server send (`Notifier::tools_list_changed`).
2. Calls `export_notes` as a client that declared the extension. The SDK has no tasks
   client of its own: a `ClientExtension` here claims `resultType: "task"` and resolves
   the handle by polling `tasks/get` through the session's raw request API
   (`ClientSession.send_request` with a request type of its own) until the task is over,
   returning the result `tasks/get` inlined.
3. `tasks/get` of an unknown id; `tasks/cancel` of the finished task, and `tasks/get`
   after it; and, as a client that did not declare the extension, `export_notes` (its
   plain result) and `tasks/get` of the task.

Prints, as a second line, one JSON object: the protocol version, the event's type, the
task handle, the statuses polled, the results, and the errors (`{code, message}`).
Exit 0 when every step ran, whatever it gave.
"""

import asyncio
import json
import sys
from typing import Any, Literal

import anyio
from mcp import Client, types
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter

TASKS = "io.modelcontextprotocol/tasks"
OVER = ("completed", "failed", "cancelled")
RAW = TypeAdapter(dict[str, Any])


class TaskHandle(types.Result):
    """A `tools/call` answered with a task (`resultType: "task"`)."""

    result_type: Literal["task"]
    task_id: str
    status: str
    created_at: str | None = None
    last_updated_at: str | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


class TaskParams(types.RequestParams):
    task_id: str


class GetTask(types.Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskParams
    name_param = "taskId"  # mirrored into Mcp-Name, as SEP-2663 asks


class CancelTask(types.Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskParams
    name_param = "taskId"


async def task_get(session, task_id):
    return await session.send_request(GetTask(params=TaskParams(task_id=task_id)), RAW)


def error_of(error: MCPError):
    return {"code": error.code, "message": str(error)}


class Tasks(ClientExtension):
    """Declares the Tasks extension and finishes its task handles by polling `tasks/get`."""

    identifier = TASKS

    def __init__(self, seen):
        self.seen = seen

    def claims(self):
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=self.resolve)]

    async def resolve(self, handle: TaskHandle, context: ClaimContext) -> types.CallToolResult:
        self.seen["handle"] = handle.model_dump(by_alias=True, mode="json", exclude_none=True)
        statuses = self.seen.setdefault("statuses", [])
        with anyio.fail_after(10):
            while True:
                state = await task_get(context.session, handle.task_id)
                statuses.append(state["status"])
                if state["status"] in OVER:
                    break
                await anyio.sleep((handle.poll_interval_ms or 500) / 1000)
        if state["status"] != "completed":
            raise RuntimeError(f"task {handle.task_id} ended {state}")
        return types.CallToolResult.model_validate(state["result"], by_name=False)


async def main(url):
    seen = {}
    async with Client(url, mode="2026-07-28", extensions=[Tasks(seen)]) as client:
        seen["version"] = client.protocol_version
        async with client.listen(tools_list_changed=True) as subscription:
            honored = subscription.honored.model_dump(by_alias=True, mode="json", exclude_none=True)
            sys.stdout.write(json.dumps({"honored": honored}) + "\n")
            sys.stdout.flush()
            with anyio.fail_after(10):
                event = await subscription.__anext__()
            seen["event"] = type(event).__name__

        result = await client.call_tool("export_notes", {})
        seen["result"] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        task_id = seen["handle"]["taskId"]

        try:
            seen["unknown"] = await task_get(client.session, "no-such-task")
        except MCPError as error:
            seen["unknown"] = error_of(error)
        seen["cancel_finished"] = await client.session.send_request(
            CancelTask(params=TaskParams(task_id=task_id)), RAW
        )
        seen["after_cancel"] = (await task_get(client.session, task_id))["status"]

    async with Client(url, mode="2026-07-28") as plain:
        result = await plain.call_tool("export_notes", {})
        seen["plain"] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        try:
            seen["without_extension"] = await task_get(plain.session, task_id)
        except MCPError as error:
            seen["without_extension"] = error_of(error)

    sys.stdout.write(json.dumps(seen) + "\n")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
