"""``serve``'s permission guard: a call an allow rewrote runs with the input the rule made and
with the call's own context (its progress token, its client), not a fresh one."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from tests.mcp.mcp_testtools import make_tool
from toolhost.backends.base import CallContext
from toolhost.mcp import McpServer
from toolhost.permissions.decision import Decision
from toolhost.results import ToolResult
from toolhost.serve.guard import permission_guard

pytestmark = pytest.mark.anyio

SCHEMA = {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}


class Rewriting:
    """Allows every call, rewriting ``word`` to REWRITTEN (as `rewrite: {set: ...}` does)."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, dict[str, Any]]] = []

    async def check(self, tool_name: str, tool_input: Mapping[str, Any]) -> Decision:
        self.asked.append((tool_name, dict(tool_input)))
        return Decision("allow", updated_input={**tool_input, "word": "REWRITTEN"})


async def test_a_rewritten_call_keeps_its_progress_token_and_context() -> None:
    seen: list[tuple[str, str, str]] = []

    async def shout(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        seen.append((arguments["word"], ctx.tool, ctx.call_id))
        await ctx.progress(1, 1, "shouted")
        return ToolResult.text(str(arguments["word"]).upper())

    gate = Rewriting()
    server = McpServer("demo", "1", [make_tool("shout", shout, schema=SCHEMA)])
    server.guard = permission_guard(gate, lambda tool: f"mcp__demo__{tool.name}")
    sent: list[dict[str, Any]] = []

    async def notify(message: dict[str, Any]) -> None:
        sent.append(message)

    answer = await server.handle(
        {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
         "params": {"name": "shout", "arguments": {"word": "hi"},
                    "_meta": {"progressToken": "tok"}}}, notify=notify)
    assert answer is not None
    assert answer["result"]["content"] == [{"type": "text", "text": "REWRITTEN"}]
    assert gate.asked == [("mcp__demo__shout", {"word": "hi"})]
    assert [(word, tool) for word, tool, _ in seen] == [("REWRITTEN", "mcp__demo__shout")]
    assert seen[0][2], "the call keeps its id"
    assert sent == [{"jsonrpc": "2.0", "method": "notifications/progress",
                     "params": {"progressToken": "tok", "progress": 1, "total": 1,
                                "message": "shouted"}}]


class Setting:
    """Allows every call, rewriting it to ``value`` (as `rewrite: {set: {flag: ...}}` does)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    async def check(self, tool_name: str, tool_input: Mapping[str, Any]) -> Decision:
        return Decision("allow", updated_input={**tool_input, "flag": self.value})


@pytest.mark.parametrize(("sent", "rewritten"), [
    (1, True), (0, False), (True, 1), (False, 0), (1, 1.0), (1.0, 1), ([1], [True]),
    ({"a": 0}, {"a": False}), (None, False),
])
async def test_a_rewrite_python_calls_equal_is_still_applied(sent: Any, rewritten: Any) -> None:
    seen: list[Any] = []

    async def show(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        seen.append(arguments["flag"])
        return ToolResult.text(json.dumps(arguments["flag"]))

    server = McpServer("demo", "1", [make_tool("show", show, schema={"type": "object"})])
    server.guard = permission_guard(Setting(rewritten), lambda tool: f"mcp__demo__{tool.name}")
    answer = await server.handle(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "show", "arguments": {"flag": sent}}}, notify=None)
    assert answer is not None
    assert answer["result"]["content"] == [{"type": "text", "text": json.dumps(rewritten)}]
    assert len(seen) == 1 and type(seen[0]) is type(rewritten)


@pytest.mark.parametrize("where", ["top", "inside"])
async def test_a_call_is_judged_with_the_defaults_of_the_tool_that_runs(where: str) -> None:
    """The upstream re-lists ``find`` with another default between the call's look-up (the
    tool the guard is handed) and its decision: the rules judge the defaults that tool sends
    (G24-6), not the new list's."""
    from tests.serve.relisted_tools import relisted

    host = relisted(where, 50)
    guard = permission_guard(host.gate, lambda tool: tool.wire_name)
    ctx = CallContext(call_id="1", tool="mcp__h__find")
    running = host.server.tools[0]  # the call looked this up: it sends limit 50
    listed = host.relist(5)  # the rules' defaults are now the new list's: 5
    refused = await guard(running, host.call, ctx)
    assert refused is not None and refused.is_error
    assert refused.to_mcp()["content"][0]["text"] == "no big limits"
    assert await guard(listed, host.call, ctx) is None  # the new tool sends 5
    host.relist(50)
    assert await guard(listed, host.call, ctx) is None  # and still 5, whatever is listed now
