"""Ask first, then a task (``task_support: {mode, ask_first: true}``): the call asks through
the stateless round trip in the request, and at ``ctx.become_task()`` it is answered with a
task that the same run of the tool goes on in (SEP-2663 "Composition with Multi Round-Trip
Requests"); the rules first, cancellation and the bounds as for any task."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.compile.tool import CompiledTool
from toolhost.mcp import McpServer
from toolhost.results import ToolResult

from .mcp_testtools import make_tool
from .test_tasks import error, request, result, settle

pytestmark = pytest.mark.anyio

FORM = {"type": "object", "properties": {"name": {"type": "string"}}}
ALICE = {"action": "accept", "content": {"name": "Alice"}}


class Asker:
    """An ask-first tool: one question, then the task; what ran, and how often."""

    def __init__(self, *, become: bool = True, later: bool = False) -> None:
        self.become, self.later = become, later
        self.runs = 0  # runs from the start (one per round)
        self.after: list[bool] = []  # what become_task said, in the run that got past it
        self.release = anyio.Event()
        self.stopped = False

    async def __call__(self, arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        self.runs += 1
        name = (await ctx.elicit("Your name?", FORM, key="user_name")).content["name"]
        if self.become:
            self.after.append(await ctx.become_task())
        if self.later:  # a question of the task: its own keys
            name += " / " + (await ctx.elicit("Again?", FORM)).content["name"]
        try:
            if arguments.get("wait"):
                await self.release.wait()
        except BaseException:
            self.stopped = True
            raise
        return ToolResult.text(f"Hello, {name}")


def server_of(tool: Asker, mode: str = "required", **extra: Any) -> McpServer:
    return McpServer("demo", "1", [
        make_tool("job", tool, task_support=mode, task_ask_first=True,
                  schema={"type": "object"})], **extra)


async def two_rounds(server: McpServer, arguments: dict[str, Any] | None = None,
                     **kw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    call = {"name": "job", "arguments": arguments or {}}
    first = await result(server, "tools/call", call, elicitation={}, **kw)
    second = await result(server, "tools/call", {
        **call, "inputResponses": {"user_name": ALICE},
        "requestState": first.get("requestState")}, elicitation={}, **kw)
    return first, second


async def test_the_questions_come_first_then_the_task_holds_the_answer() -> None:
    tool = Asker()
    server = server_of(tool)
    first = await result(server, "tools/call", {"name": "job"}, elicitation={})
    assert first["resultType"] == "input_required" and "taskId" not in first
    assert first["inputRequests"]["user_name"]["method"] == "elicitation/create"
    assert len(server.tasks) == 0  # no task while it asks
    second = await result(server, "tools/call", {
        "name": "job", "inputResponses": {"user_name": ALICE},
        "requestState": first["requestState"]}, elicitation={})
    assert second["resultType"] == "task" and second["status"] in ("working", "completed")
    assert "requestState" not in second and "inputRequests" not in second
    done = await settle(server, second["taskId"], elicitation={})
    assert done["status"] == "completed", done
    assert done["result"]["content"][0]["text"] == "Hello, Alice"
    assert tool.runs == 2 and tool.after == [True]  # the task is the second run, going on


async def test_questions_after_the_handover_wait_in_the_task() -> None:
    server = server_of(Asker(later=True))
    _, second = await two_rounds(server)
    task_id = second["taskId"]
    got = await settle(server, task_id, want="input_required", elicitation={})
    # the task's keys are its own: toolhost-1 again, the round trip's user_name consumed
    assert set(got["inputRequests"]) == {"toolhost-1"}
    await result(server, "tasks/update", {"taskId": task_id, "inputResponses": {
        "toolhost-1": {"action": "accept", "content": {"name": "Bob"}}}}, elicitation={})
    done = await settle(server, task_id, elicitation={})
    assert done["result"]["content"][0]["text"] == "Hello, Alice / Bob"


@pytest.mark.parametrize("mode", ["optional", "required"])
async def test_a_call_that_never_becomes_a_task_is_answered_directly(mode: str) -> None:
    tool = Asker(become=False)
    server = server_of(tool, mode)
    _, second = await two_rounds(server)
    assert second["resultType"] == "complete" and "taskId" not in second
    assert second["content"][0]["text"] == "Hello, Alice" and len(server.tasks) == 0


async def test_without_the_extension() -> None:
    required = await error(server_of(Asker()), "tools/call", {"name": "job", "arguments": {}},
                           tasks=False, elicitation={})
    assert required["code"] == -32021
    tool = Asker()
    server = server_of(tool, "optional")  # a direct call: become_task cannot, says so
    _, second = await two_rounds(server, tasks=False)
    assert second["resultType"] == "complete" and tool.after == [False]


async def test_become_task_elsewhere_says_false() -> None:
    said: list[bool] = []

    async def tool(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        said.append(await ctx.become_task())
        return ToolResult.text("ok")

    server = McpServer("demo", "1", [make_tool("plain", tool, schema={"type": "object"}),
                                     make_tool("task", tool, task_support="required",
                                               schema={"type": "object"})])
    assert (await result(server, "tools/call", {"name": "plain"}))["resultType"] == "complete"
    started = await result(server, "tools/call", {"name": "task"})
    await settle(server, started["taskId"])
    assert said == [False, False]
    assert await CallContext().become_task() is False


async def test_the_rules_run_in_the_request_and_a_denial_starts_nothing() -> None:
    tool = Asker()

    async def guard(tool_: CompiledTool, arguments: Mapping[str, Any],
                    ctx: CallContext) -> ToolResult | None:
        return ToolResult.error("denied by a rule") if arguments.get("no") else None

    server = server_of(tool, guard=guard)
    denied = await result(server, "tools/call", {"name": "job", "arguments": {"no": True}},
                          elicitation={})
    assert denied["resultType"] == "complete" and denied["isError"] is True
    assert tool.runs == 0 and len(server.tasks) == 0


async def test_cancelling_the_task_stops_the_same_run_of_the_tool() -> None:
    tool = Asker()
    server = server_of(tool)
    _, second = await two_rounds(server, {"wait": True})
    await result(server, "tasks/cancel", {"taskId": second["taskId"]}, elicitation={})
    done = await settle(server, second["taskId"], elicitation={})
    assert done["status"] == "cancelled"
    for _ in range(200):
        if tool.stopped:
            break
        await anyio.sleep(0)
    assert tool.stopped


async def test_a_request_cancelled_while_it_asks_stops_the_tool() -> None:
    started = anyio.Event()
    stopped: list[bool] = []

    async def slow(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        started.set()
        try:
            await anyio.sleep_forever()
        except BaseException:
            stopped.append(True)
            raise
        return ToolResult.text("never")

    server = McpServer("demo", "1", [make_tool("job", slow, task_support="optional",
                                               task_ask_first=True, schema={"type": "object"})])
    async with anyio.create_task_group() as group:
        group.start_soon(server.handle, request("tools/call", {"name": "job"}))
        await started.wait()
        group.cancel_scope.cancel()
    for _ in range(200):
        if stopped:
            break
        await anyio.sleep(0)
    assert stopped == [True] and len(server.tasks) == 0


async def test_a_busy_server_says_so_before_the_tool_runs() -> None:
    tool = Asker()
    server = server_of(tool)
    server.tasks.max_tasks = 1
    _, second = await two_rounds(server, {"wait": True})
    runs = tool.runs
    busy = await error(server, "tools/call", {"name": "job", "arguments": {}}, elicitation={})
    assert busy["code"] == -32000 and tool.runs == runs
    tool.release.set()
    await settle(server, second["taskId"], elicitation={})


async def test_an_undeclared_capability_in_the_request_is_minus_32021() -> None:
    out = await error(server_of(Asker()), "tools/call", {"name": "job", "arguments": {}})
    assert out["code"] == -32021
    assert out["data"] == {"requiredCapabilities": {"elicitation": {}}}
