"""Questions a tool asks at once (a task group): under the stateless round trip they are
one round's ``inputRequests`` (the call used to stop with an exception group out of
``McpServer.handle``), and the repeated call with every answer completes. ``ctx.roots()``
(``roots/list``) asks like ``ctx.elicit``: in a round, and in a task."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.mcp.test_tasks import Tools, request, server_of

pytestmark = pytest.mark.anyio


async def test_questions_asked_at_once_are_one_round() -> None:
    server = server_of(Tools())
    params: dict[str, Any] = {"name": "asks", "arguments": {}}
    first = await server.handle(request("tools/call", params, tasks=False, elicitation={}))
    assert first is not None and "result" in first, first
    round1 = first["result"]
    assert round1["resultType"] == "input_required"
    assert set(round1["inputRequests"]) == {"first", "toolhost-2"}
    assert all(r["method"] == "elicitation/create" for r in round1["inputRequests"].values())
    answers = {"first": {"action": "accept", "content": {"ok": True}},
               "toolhost-2": {"action": "accept", "content": {"ok": False}}}
    second = await server.handle(request("tools/call", {
        **params, "inputResponses": answers, "requestState": round1["requestState"]},
        tasks=False, elicitation={}))
    assert second is not None and second["result"]["resultType"] == "complete", second
    assert second["result"]["content"][0]["text"] == \
        "answers [\"{'ok': False}\", \"{'ok': True}\"]"
    # one answer of two: the other is asked again, alone
    partial = await server.handle(request("tools/call", {
        **params, "inputResponses": {"first": answers["first"]}}, tasks=False,
        elicitation={}))
    assert partial is not None
    assert set(partial["result"]["inputRequests"]) == {"toolhost-2"}


async def test_ctx_roots_asks_the_client_in_a_round_and_in_a_task() -> None:
    from toolhost.backends.base import CallContext
    from toolhost.mcp import McpServer
    from toolhost.results import ToolResult

    from .mcp_testtools import make_tool

    async def roots(arguments: Any, ctx: CallContext) -> ToolResult:
        listed = await ctx.roots(key="where")
        return ToolResult.text(" ".join(f"{r['uri']}={r.get('name')}" for r in listed))

    server = McpServer("demo", "1", [make_tool("roots", roots, task_support="optional",
                                               schema={"type": "object"})])
    params: dict[str, Any] = {"name": "roots", "arguments": {}}
    # without the roots capability: -32021 (it asked for it, then failed)
    refused = await server.handle(request("tools/call", params, tasks=False))
    assert refused is not None and refused["error"]["code"] == -32021
    assert refused["error"]["data"] == {"requiredCapabilities": {"roots": {}}}
    first = await server.handle(request("tools/call", params, tasks=False, roots={}))
    assert first is not None
    assert first["result"]["inputRequests"] == {"where": {"method": "roots/list",
                                                          "params": {}}}
    answer = {"roots": [{"uri": "file:///work", "name": "work"}, {"uri": "file:///tmp"}]}
    done = await server.handle(request("tools/call", {**params, "inputResponses": {
        "where": answer}}, tasks=False, roots={}))
    assert done is not None
    assert done["result"]["content"][0]["text"] == "file:///work=work file:///tmp=None"
    for bad in ({"roots": "x"}, {"roots": [{"uri": "https://x"}]}, {"roots": [7]}, {}):
        out = await server.handle(request("tools/call", {**params, "inputResponses": {
            "where": bad}}, tasks=False, roots={}))
        assert out is not None and out["result"]["isError"] is True, (bad, out)
        assert "roots/list" in out["result"]["content"][0]["text"]
    # in a task: the question waits in inputRequests
    created = await server.handle(request("tools/call", params, roots={}))
    assert created is not None
    task_id = created["result"]["taskId"]
    got: dict[str, Any] = {}
    for _ in range(2000):
        out = await server.handle(request("tasks/get", {"taskId": task_id}, roots={}))
        assert out is not None
        got = out["result"]
        if got["status"] == "input_required":
            break
        await anyio.sleep(0.005)
    assert got["inputRequests"]["where"]["method"] == "roots/list"
    await server.handle(request("tasks/update", {"taskId": task_id,
                                                 "inputResponses": {"where": answer}},
                                roots={}))
    for _ in range(2000):
        out = await server.handle(request("tasks/get", {"taskId": task_id}, roots={}))
        assert out is not None
        got = out["result"]
        if got["status"] == "completed":
            break
        await anyio.sleep(0.005)
    assert got["result"]["content"][0]["text"] == "file:///work=work file:///tmp=None"


async def test_a_python_tool_asking_at_once_through_its_backend(tmp_path: Path) -> None:
    """The python backend passes a task group's exception group of questions through (it
    made it the tool's failure: ``BaseExceptionGroup``); a sync tool's ``ctx.roots()`` asks
    through the call's channel too."""
    from toolhost.compile import compile_tools
    from toolhost.config import load_config
    from toolhost.mcp import McpServer

    (tmp_path / "askmany.py").write_text(
        "import anyio\n"
        "from toolhost.backends.base import CallContext\n"
        "async def ask(*, ctx: CallContext) -> list[str]:\n"
        "    got = []\n"
        "    async def one(key):\n"
        "        got.append((await ctx.elicit('Name?', key=key)).action)\n"
        "    async def roots():\n"
        "        got.append(len(await ctx.roots(key='r')))\n"
        "    async with anyio.create_task_group() as group:\n"
        "        group.start_soon(one, 'a')\n"
        "        group.start_soon(one, 'b')\n"
        "        group.start_soon(roots)\n"
        "    return sorted(map(str, got))\n"
        "def sync_roots(*, ctx: CallContext) -> str:\n"
        "    return str(anyio.from_thread.run(lambda: ctx.roots(key='r')))\n")
    (tmp_path / "kb.yaml").write_text(
        "toolhost: 1\nservers:\n  kb:\n    tools:\n      ask: {python: 'askmany:ask'}\n"
        "      sync_roots: {python: 'askmany:sync_roots'}\n")
    try:
        compiled = compile_tools(load_config(tmp_path / "kb.yaml", layers=False))
    finally:
        sys.modules.pop("askmany", None)
    server = McpServer("kb", "1", compiled.servers["kb"])
    params: dict[str, Any] = {"name": "ask", "arguments": {}}
    first = await server.handle(request("tools/call", params, tasks=False, elicitation={},
                                        roots={}))
    assert first is not None and first["result"]["resultType"] == "input_required", first
    asked = first["result"]["inputRequests"]
    assert {k: v["method"] for k, v in asked.items()} == {
        "a": "elicitation/create", "b": "elicitation/create", "r": "roots/list"}
    answers = {"a": {"action": "accept", "content": {}}, "b": {"action": "decline"},
               "r": {"roots": [{"uri": "file:///x"}]}}
    done = await server.handle(request("tools/call", {**params, "inputResponses": answers},
                                       tasks=False, elicitation={}, roots={}))
    assert done is not None and done["result"]["resultType"] == "complete", done
    assert done["result"].get("isError") is not True, done
    # a sync tool (a worker thread) asks through the same channel
    sync = {"name": "sync_roots", "arguments": {}}
    first = await server.handle(request("tools/call", sync, tasks=False, roots={}))
    assert first is not None and first["result"]["inputRequests"] == {
        "r": {"method": "roots/list", "params": {}}}, first
    done = await server.handle(request("tools/call", {**sync, "inputResponses": {
        "r": answers["r"]}}, tasks=False, roots={}))
    assert done is not None
    assert done["result"]["content"][0]["text"] == "[{'uri': 'file:///x'}]", done


async def test_a_task_question_json_cannot_carry_fails_the_task() -> None:
    # it waited in inputRequests: every tasks/get answer failed to encode, the task never ended
    import json

    from toolhost.backends.base import CallContext
    from toolhost.mcp import McpServer
    from toolhost.results import ToolResult

    from .mcp_testtools import make_tool

    async def asks(arguments: Any, ctx: CallContext) -> ToolResult:
        answer = await ctx.elicit("How many?", {"type": "object", "properties": {
            "n": {"type": "number", "default": float("nan")}}})
        return ToolResult.text(repr(answer))

    server = McpServer("demo", "1", [make_tool("asks", asks, task_support="required",
                                               schema={"type": "object"})])
    created = await server.handle(request("tools/call", {"name": "asks", "arguments": {}},
                                          elicitation={}))
    assert created is not None
    task_id = created["result"]["taskId"]
    got: dict[str, Any] = {}
    for _ in range(2000):
        out = await server.handle(request("tasks/get", {"taskId": task_id}, elicitation={}))
        assert out is not None
        json.dumps(out, allow_nan=False)
        got = out["result"]
        if got["status"] not in ("working", "input_required"):
            break
        await anyio.sleep(0.005)
    assert got["status"] == "completed" and got["result"]["isError"] is True, got
    assert "not valid JSON" in got["result"]["content"][0]["text"]
