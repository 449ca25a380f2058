"""``notifications/tasks`` (SEP-2663) on ``subscriptions/listen``: a stream that asks for
``taskIds`` hears each change of those tasks as ``tasks/get`` would show it (the result
inlined once completed, every question while input_required), only for its own caller's
tasks; asking without the tasks extension is -32021, a malformed list -32602."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
import pytest

from tests.modern import CAPABILITIES_KEY, modern_meta
from toolhost.backends.base import CallContext
from toolhost.mcp import McpServer
from toolhost.mcp.tasks import TASKS_EXTENSION
from toolhost.permissions.callers.identity import Caller, as_caller
from toolhost.results import ToolResult
from toolhost.serve.served import ServedServer

from ..mcp.mcp_testtools import make_tool

pytestmark = pytest.mark.anyio

FORM = {"type": "object", "properties": {"ok": {"type": "boolean"}}}


def meta(tasks: bool = True) -> dict[str, Any]:
    out = modern_meta(elicitation={})
    if tasks:
        out[CAPABILITIES_KEY]["extensions"] = {TASKS_EXTENSION: {}}
    return out


class Job:
    def __init__(self) -> None:
        self.release = anyio.Event()

    async def __call__(self, arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        if arguments.get("ask"):
            await ctx.elicit("ok?", FORM, key="ok")
        await self.release.wait()
        return ToolResult.text("done")


def served_with(job: Job) -> ServedServer:
    return ServedServer(McpServer("s", "1", [make_tool("job", job, task_support="optional",
                                                       schema={"type": "object"})]), {})


async def start(served: ServedServer, **arguments: Any) -> str:
    out = await served.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "job", "arguments": arguments, "_meta": meta()}})
    assert out is not None
    return str(out["result"]["taskId"])


def listen(task_ids: Any, tasks: bool = True) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": {
        "notifications": {"taskIds": task_ids}, "_meta": meta(tasks)}}


async def until(heard: list[dict[str, Any]], what: Any) -> dict[str, Any]:
    with anyio.fail_after(10):
        while True:
            for note in heard:
                if what(note):
                    return note
            await anyio.sleep(0.005)


async def test_a_stream_hears_its_tasks_change_with_the_result_inlined() -> None:
    job = Job()
    served = served_with(job)
    task_id = await start(served, ask=True)
    heard: list[dict[str, Any]] = []

    async def hear(note: dict[str, Any]) -> None:
        heard.append(note)

    async with anyio.create_task_group() as group:
        group.start_soon(lambda: served.handle(listen([task_id, "not-a-task"]), notify=hear))
        ack = await until(heard, lambda n: n["method"].endswith("acknowledged"))
        assert ack["params"]["notifications"] == {"taskIds": [task_id]}  # the unknown: not
        asked = await until(heard, lambda n: n["method"] == "notifications/tasks"
                            and n["params"]["status"] == "input_required")
        assert asked["params"]["taskId"] == task_id
        assert asked["params"]["inputRequests"]["ok"]["method"] == "elicitation/create"
        assert asked["params"]["_meta"] == {"io.modelcontextprotocol/subscriptionId": 7}
        await served.handle({"jsonrpc": "2.0", "id": 2, "method": "tasks/update", "params": {
            "taskId": task_id, "inputResponses": {"ok": {"action": "accept",
                                                         "content": {"ok": True}}},
            "_meta": meta()}})
        await until(heard, lambda n: n["method"] == "notifications/tasks"
                    and n["params"]["status"] == "working")
        job.release.set()
        done = await until(heard, lambda n: n["method"] == "notifications/tasks"
                           and n["params"]["status"] == "completed")
        assert done["params"]["result"]["content"] == [{"type": "text", "text": "done"}]
        served.close()
    statuses = [n["params"]["status"] for n in heard if n["method"] == "notifications/tasks"]
    assert statuses == ["input_required", "working", "completed"]


async def test_another_callers_task_is_not_agreed_to_nor_heard() -> None:
    job = Job()
    served = served_with(job)
    with as_caller(Caller("alice")):
        task_id = await start(served)
    heard: list[dict[str, Any]] = []

    async def hear(note: dict[str, Any]) -> None:
        heard.append(note)

    async def mallory_listens() -> None:
        with as_caller(Caller("mallory")):
            await served.handle(listen([task_id]), notify=hear)

    async with anyio.create_task_group() as group:
        group.start_soon(mallory_listens)
        ack = await until(heard, lambda n: n["method"].endswith("acknowledged"))
        assert ack["params"]["notifications"] == {"taskIds": []}
        job.release.set()
        with anyio.fail_after(10):
            while served.core.tasks.find("alice", task_id).status != "completed":
                await anyio.sleep(0.005)
        served.close()
    assert [n["method"] for n in heard] == ["notifications/subscriptions/acknowledged"]


async def test_asking_without_the_extension_is_minus_32021() -> None:
    served = served_with(Job())
    with anyio.fail_after(10):  # an answer, not a stream that opens
        out = await served.handle(listen(["x"], tasks=False), notify=lambda note: anyio.sleep(0))
    assert out is not None and out["error"]["code"] == -32021
    assert out["error"]["data"] == {"requiredCapabilities": {"extensions": {
        TASKS_EXTENSION: {}}}}


@pytest.mark.parametrize("task_ids", ["abc", [1], [""], ["x" * 201], ["t"] * 257, {"a": 1}])
async def test_a_malformed_task_list_is_minus_32602(task_ids: Any) -> None:
    served = served_with(Job())
    with anyio.fail_after(10):  # an answer, not a stream that opens
        out = await served.handle(listen(task_ids), notify=lambda note: anyio.sleep(0))
    assert out is not None and out["error"]["code"] == -32602
    assert "'notifications.taskIds' must be a list" in out["error"]["message"]
