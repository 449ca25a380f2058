"""McpServer.handle: the JSON-RPC surface every transport shares (handshake era)."""

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

pytestmark = pytest.mark.anyio


def req(method: str, params: Any = None, id: Any = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return message


async def call(server: McpServer, message: Any, **kw: Any) -> dict[str, Any]:
    response = await server.handle(message, **kw)
    assert response is not None
    return response


def error_code(response: Mapping[str, Any]) -> int:
    assert "result" not in response, response
    return int(response["error"]["code"])


async def test_initialize_answers_supported_version_and_capabilities() -> None:
    server = McpServer("demo", "1.2.3", [make_tool()], instructions="Use greet.")
    for asked in ("2025-11-25", "2025-06-18", "2024-11-05"):
        out = await call(server, req("initialize", {"protocolVersion": asked,
                                                    "capabilities": {}}, id=0))
        assert out["id"] == 0 and out["jsonrpc"] == "2.0"
        result = out["result"]
        assert result["protocolVersion"] == asked
        assert result["capabilities"] == {"tools": {"listChanged": True}, "logging": {}}
        assert result["serverInfo"] == {"name": "demo", "version": "1.2.3"}
        assert result["instructions"] == "Use greet."
    out = await call(server, req("initialize", {"protocolVersion": "1999-01-01"}))
    assert out["result"]["protocolVersion"] == "2025-11-25"
    assert error_code(await call(server, req("initialize", {}))) == -32602


async def test_notifications_get_no_answer() -> None:
    server = McpServer("demo", "1", [make_tool()])
    for method in ("notifications/initialized", "notifications/whatever",
                   "notifications/cancelled"):
        assert await server.handle({"jsonrpc": "2.0", "method": method}) is None
    # A response to a request of ours is not answered either.
    assert await server.handle({"jsonrpc": "2.0", "id": 9, "result": {}}) is None


async def test_ping() -> None:
    out = await call(McpServer("demo", "1", []), req("ping", id="p"))
    assert out == {"jsonrpc": "2.0", "id": "p", "result": {}}


async def test_tools_list_carries_annotations_title_and_output_schema() -> None:
    out_schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    tool = make_tool("count", title="Counter", annotations={"readOnlyHint": True},
                     output_schema=out_schema)
    out = await call(McpServer("demo", "1", [tool]), req("tools/list"))
    (entry,) = out["result"]["tools"]
    assert entry["name"] == "count"
    assert entry["annotations"] == {"readOnlyHint": True, "title": "Counter"}
    assert entry["outputSchema"] == out_schema
    assert entry["inputSchema"]["required"] == ["name"]
    assert "nextCursor" not in out["result"]


async def test_tools_list_pages_follow_opaque_cursors() -> None:
    tools = [make_tool(f"t{i}") for i in range(7)]
    server = McpServer("demo", "1", tools, page_size=3)
    names: list[str] = []
    cursor = None
    pages = 0
    while True:
        params = {} if cursor is None else {"cursor": cursor}
        result = (await call(server, req("tools/list", params)))["result"]
        pages += 1
        assert len(result["tools"]) <= 3
        names += [t["name"] for t in result["tools"]]
        cursor = result.get("nextCursor")
        if cursor is None:
            break
        assert isinstance(cursor, str) and not cursor.isdigit()
    assert pages == 3
    assert names == [f"t{i}" for i in range(7)]


@pytest.mark.parametrize("cursor", ["nonsense", 3, "", "dG9vbGhvc3QtcGFnZTo5OQ=="])
async def test_bad_cursor_is_invalid_params(cursor: Any) -> None:
    server = McpServer("demo", "1", [make_tool(f"t{i}") for i in range(4)], page_size=2)
    out = await call(server, req("tools/list", {"cursor": cursor}))
    assert error_code(out) == -32602
    assert "cursor" in out["error"]["message"]


async def test_tools_call_success_and_tool_failures_are_results() -> None:
    async def boom(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        raise RuntimeError("disk on fire")

    server = McpServer("demo", "1", [make_tool(), make_tool("boom", boom, schema={})])
    out = await call(server, req("tools/call", {"name": "greet", "arguments": {"name": "Al"}}))
    assert out["result"] == {"content": [{"type": "text", "text": "Hello, Al!"}],
                             "isError": False}
    bad = await call(server, req("tools/call", {"name": "greet", "arguments": {"nom": 1}}))
    assert bad["result"]["isError"] is True
    assert "name" in bad["result"]["content"][0]["text"]
    failed = await call(server, req("tools/call", {"name": "boom"}))
    assert failed["result"]["isError"] is True
    assert "disk on fire" in failed["result"]["content"][0]["text"]


@pytest.mark.parametrize("params", [
    {"name": "nope", "arguments": {}},
    {"arguments": {}},
    {"name": 5},
    {"name": "greet", "arguments": ["Al"]},
])
async def test_tools_call_bad_params(params: dict[str, Any]) -> None:
    out = await call(McpServer("demo", "1", [make_tool()]), req("tools/call", params, id=4))
    assert out["id"] == 4
    assert error_code(out) == -32602


async def test_unknown_method_and_malformed_requests() -> None:
    server = McpServer("demo", "1", [make_tool()])
    assert error_code(await call(server, req("resources/list"))) == -32601
    assert error_code(await call(server, req("tools/list", params=[1, 2]))) == -32602
    malformed: list[Any] = [
        [1, 2],
        {"jsonrpc": "2.0", "id": 1},
        {"jsonrpc": "2.0", "id": 1, "method": 7},
        {"jsonrpc": "2.0", "id": None, "method": "ping"},
        {"jsonrpc": "2.0", "id": True, "method": "ping"},
        {"jsonrpc": "1.0", "id": 1, "method": "ping"},
        {"id": 1, "method": "ping"},
    ]
    for message in malformed:
        out = await call(server, message)
        assert error_code(out) == -32600, message


async def test_guard_result_replaces_the_call() -> None:
    called: list[str] = []

    async def spy(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        called.append(arguments["name"])
        return ToolResult.text("ran")

    async def guard(tool: CompiledTool, arguments: Mapping[str, Any],
                    ctx: CallContext) -> ToolResult | None:
        if arguments.get("name") == "Mallory":
            return ToolResult.error(f"{tool.wire_name} denied for Mallory")
        return None

    server = McpServer("demo", "1", [make_tool("greet", spy)], guard=guard)
    denied = await call(server, req("tools/call", {"name": "greet",
                                                   "arguments": {"name": "Mallory"}}))
    assert denied["result"]["isError"] is True
    assert denied["result"]["content"][0]["text"] == "mcp__demo__greet denied for Mallory"
    allowed = await call(server, req("tools/call", {"name": "greet",
                                                    "arguments": {"name": "Al"}}))
    assert allowed["result"]["content"][0]["text"] == "ran"
    assert called == ["Al"]


async def test_broken_guard_fails_closed() -> None:
    called: list[str] = []

    async def spy(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        called.append("ran")
        return ToolResult.text("ran")

    async def guard(tool: CompiledTool, arguments: Mapping[str, Any],
                    ctx: CallContext) -> ToolResult | None:
        raise KeyError("rules")

    server = McpServer("demo", "1", [make_tool("greet", spy)], guard=guard)
    out = await call(server, req("tools/call", {"name": "greet", "arguments": {"name": "A"}}))
    assert out["result"]["isError"] is True
    assert called == []


@pytest.mark.parametrize(("token", "heard"), [
    ("tok", True), (7, True), (2.5, True), (-1, True),  # ProgressToken: string | number
    (None, False)])  # null: no token (any other kind is refused: test_request_shapes)
async def test_progress_follows_any_progress_token_the_spec_allows(token: Any,
                                                                   heard: bool) -> None:
    # a number token that was not an int (2.5) was ignored: the client that sent it never
    # heard of its call's progress
    async def slow(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        await ctx.progress(1, 2, None)
        return ToolResult.text("done")

    sent: list[dict[str, Any]] = []

    async def notify(message: dict[str, Any]) -> None:
        sent.append(message)

    server = McpServer("demo", "1", [make_tool("slow", slow, schema={})])
    out = await call(server, req("tools/call", {"name": "slow",
                                                "_meta": {"progressToken": token}}),
                     notify=notify)
    assert out["result"]["content"] == [{"type": "text", "text": "done"}]
    assert sent == ([{"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": token, "progress": 1, "total": 2}}]
                    if heard else [])


async def test_progress_is_sent_only_with_a_token() -> None:
    async def slow(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        await ctx.progress(1, 2, "half way")
        await ctx.progress(2, None, None)
        return ToolResult.text("done")

    sent: list[dict[str, Any]] = []

    async def notify(message: dict[str, Any]) -> None:
        sent.append(message)

    server = McpServer("demo", "1", [make_tool("slow", slow, schema={})])
    await call(server, req("tools/call", {"name": "slow", "_meta": {"progressToken": "tok"}}),
               notify=notify)
    assert sent == [
        {"jsonrpc": "2.0", "method": "notifications/progress",
         "params": {"progressToken": "tok", "progress": 1, "total": 2, "message": "half way"}},
        {"jsonrpc": "2.0", "method": "notifications/progress",
         "params": {"progressToken": "tok", "progress": 2}},
    ]
    sent.clear()
    await call(server, req("tools/call", {"name": "slow"}), notify=notify)
    assert sent == []


async def test_cancelled_notification_cancels_only_that_peers_call() -> None:
    started = anyio.Event()
    cancelled: list[bool] = []

    async def forever(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        started.set()
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            cancelled.append(True)
            raise
        raise AssertionError("unreachable")

    server = McpServer("demo", "1", [make_tool("forever", forever, schema={})])
    results: dict[str, dict[str, Any] | None] = {}

    async def run() -> None:
        results["a"] = await server.handle(req("tools/call", {"name": "forever"}, id=7),
                                           peer="a")

    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        await started.wait()
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": 7, "reason": "user interrupt"}}
        assert await server.handle(cancel, peer="b") is None  # another connection's id 7
        await anyio.sleep(0.01)
        assert cancelled == []
        assert await server.handle(cancel, peer="a") is None
    out = results["a"]
    assert out is not None and out["id"] == 7
    assert error_code(out) == -32800
    assert cancelled == [True]


async def test_set_tools_swaps_atomically_and_reports_change() -> None:
    release = anyio.Event()

    async def old_impl(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        await release.wait()
        return ToolResult.text("old")

    async def new_impl(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        return ToolResult.text("new")

    server = McpServer("demo", "1", [make_tool("t", old_impl, schema={})])
    results: list[str] = []

    async def run() -> None:
        out = await call(server, req("tools/call", {"name": "t"}))
        results.append(out["result"]["content"][0]["text"])

    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        await anyio.sleep(0.01)
        same = make_tool("t", new_impl, schema={})
        assert server.set_tools([same]) is False  # same descriptor: list unchanged
        assert server.set_tools([same, make_tool("extra")]) is True
        release.set()
    assert results == ["old"]  # the running call finished on its own tool
    listed = await call(server, req("tools/list"))
    assert [t["name"] for t in listed["result"]["tools"]] == ["t", "extra"]
    out = await call(server, req("tools/call", {"name": "t"}))
    assert out["result"]["content"][0]["text"] == "new"


async def test_duplicate_tool_names_are_refused() -> None:
    with pytest.raises(ValueError, match="duplicate tool name 'greet'"):
        McpServer("demo", "1", [make_tool(), make_tool()])


async def test_manifest_matches_the_handshake_answers() -> None:
    server = McpServer("demo", "1", [make_tool(f"t{i}") for i in range(5)], page_size=2)
    manifest = server.manifest()
    init = await call(server, req("initialize", {"protocolVersion": "2025-11-25"}))
    assert manifest["initializeResult"] == init["result"]
    assert [t["name"] for t in manifest["toolsListResult"]["tools"]] == [
        f"t{i}" for i in range(5)]
    assert "nextCursor" not in manifest["toolsListResult"]


async def test_without_a_peer_the_core_leaves_cancellation_to_the_transport() -> None:
    release = anyio.Event()

    async def waits(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        await release.wait()
        return ToolResult.text("finished")

    server = McpServer("demo", "1", [make_tool("w", waits, schema={})])
    results: list[dict[str, Any]] = []

    async def run() -> None:
        results.append(await call(server, req("tools/call", {"name": "w"}, id=3)))

    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        await anyio.sleep(0.01)
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": 3}}
        assert await server.handle(cancel) is None
        release.set()
    assert results[0]["result"]["content"][0]["text"] == "finished"
