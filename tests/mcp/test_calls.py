"""``ctx.progress`` sends only what the schema allows: a ``progress`` that is a finite number
larger than the last one sent (the spec: it "MUST increase with each notification"), a finite
``total``, a string ``message``. NaN and infinities were worse than wrong: they made the
notification unencodable, and the client got a JSON-RPC error with ``id: null`` for a
request it never sent. The call itself goes on and answers."""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Mapping
from typing import Any

import pytest

from toolhost.backends.base import CallContext
from toolhost.mcp import McpServer
from toolhost.mcp.calls import MAX_PROGRESS_MESSAGE_CHARS, PROGRESS_STEPS, STEADY_PROGRESS
from toolhost.results import ToolResult

from .mcp_testtools import make_tool

pytestmark = pytest.mark.anyio

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(("steps", "heard"), [
    ([(1, 10, None), (2, 10, "two"), (7.5, None, None)], [1, 2, 7.5]),
    ([(5, 10, None), (3, 10, None), (6, 10, None)], [5, 6]),  # 3 goes back
    ([(5, None, None), (5, None, None)], [5]),                # so does the same value
    ([(NAN, None, None), (1, None, None)], [1]),
    ([(INF, None, None), (-INF, None, None)], []),
    ([(1, NAN, None), (2, INF, None), (3, 4, None)], [3]),
    (["lots", True, None, [1]], []),                          # progress is a number
    ([(1, "ten", None), (2, None, 7), (3, None, "ok")], [3]),
])
async def test_progress_sends_only_what_the_schema_allows(
        steps: list[Any], heard: list[float], caplog: pytest.LogCaptureFixture) -> None:
    async def tool(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        for step in steps:
            done, total, message = step if isinstance(step, tuple) else (step, None, None)
            await ctx.progress(done, total, message)
        return ToolResult.text("done")

    sent: list[dict[str, Any]] = []

    async def notify(message: dict[str, Any]) -> None:
        json.dumps(message, allow_nan=False)  # what every transport must be able to write
        sent.append(message)

    server = McpServer("demo", "1", [make_tool("tool", tool, schema={})])
    with caplog.at_level(logging.DEBUG, logger="toolhost.mcp"):
        out = await server.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                   "params": {"name": "tool", "_meta": {"progressToken": "t"}}},
                                  notify=notify)
    assert out is not None and out["result"]["content"] == [{"type": "text", "text": "done"}]
    assert [m["params"]["progress"] for m in sent] == heard
    refused = [r for r in caplog.records if "progress notification was not sent" in r.message]
    assert len(refused) == len(steps) - len(heard)
    assert [r.levelno for r in refused[:1]] == ([logging.WARNING] if refused else [])


@pytest.mark.parametrize("size", [MAX_PROGRESS_MESSAGE_CHARS + 1, 5_000_000])
async def test_a_progress_message_is_cut_like_a_log_line(size: int) -> None:
    # a log line was cut at 10,000 characters, a progress message was sent whole: a tool
    # reporting a 5 MB "status" sent 5 MB per notification to the client (under `toolhost
    # run`, through the CLI's control protocol, as often as the tool liked)
    async def tool(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        await ctx.progress(1, 2, "y" * size)
        await ctx.progress(2, 2, "short")
        return ToolResult.text("done")

    sent: list[dict[str, Any]] = []

    async def notify(message: dict[str, Any]) -> None:
        sent.append(message)

    server = McpServer("demo", "1", [make_tool("tool", tool, schema={})])
    await server.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": "tool", "_meta": {"progressToken": "t"}}},
                        notify=notify)
    first, second = (m["params"]["message"] for m in sent)
    assert first.startswith("y" * MAX_PROGRESS_MESSAGE_CHARS)
    assert len(first) < MAX_PROGRESS_MESSAGE_CHARS + 100
    assert first.endswith(f"…{size - MAX_PROGRESS_MESSAGE_CHARS:,} more characters")
    assert second == "short"


@pytest.mark.parametrize(("total", "most"), [
    # one per 1/1000th past the steady ones, up to its total and past it
    (20_000.0, STEADY_PROGRESS + 2 * PROGRESS_STEPS + 1),
    (None, STEADY_PROGRESS + 600)])                     # about sqrt(2N) of those past them
async def test_a_progress_flood_is_thinned_and_its_end_is_sent(total: float | None,
                                                               most: int) -> None:
    # every one of 20,000 notifications of a loop reporting each row was sent: under
    # `toolhost run` the CLI took as long again as the tool (6 s) to read them
    async def tool(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        for row in range(1, 200_001 if total is None else 20_001):
            await ctx.progress(row, total, None)
        if total is not None:  # past its total (a wrong guess): thinned, not all sent
            for row in range(20_001, 40_001):
                await ctx.progress(row, total, None)
        return ToolResult.text("done")

    sent: list[float] = []

    async def notify(message: dict[str, Any]) -> None:
        sent.append(message["params"]["progress"])

    server = McpServer("demo", "1", [make_tool("tool", tool, schema={})])
    await server.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": "tool", "_meta": {"progressToken": "t"}}},
                        notify=notify)
    assert sent[:STEADY_PROGRESS] == list(range(1, STEADY_PROGRESS + 1))
    assert sent == sorted(set(sent)) and STEADY_PROGRESS < len(sent) <= most
    if total is not None:
        assert total in sent
        after = sent[STEADY_PROGRESS - 1:]
        steps = [b - a for a, b in itertools.pairwise(after)]
        assert max(steps) <= total / PROGRESS_STEPS + 1
