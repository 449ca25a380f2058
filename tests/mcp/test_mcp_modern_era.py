"""The stateless 2026-07-28 era on the same core, checked by hand and by the official client."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.mcp import McpServer
from toolhost.mcp.client_requests import ClientRequestError
from toolhost.results import ToolResult

from .mcp_testtools import MODERN_META, make_tool

pytestmark = pytest.mark.anyio

MODERN = {**MODERN_META, "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"}}


def modern(method: str, params: dict[str, Any] | None = None, id: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "method": method,
            "params": {**(params or {}), "_meta": dict(MODERN)}}


async def test_discover() -> None:
    server = McpServer("demo", "2.0", [make_tool()], instructions="Be nice.")
    out = await server.handle(modern("server/discover"))
    assert out is not None
    result = out["result"]
    assert result["supportedVersions"] == ["2026-07-28"]
    assert result["capabilities"] == {"tools": {"listChanged": True}}
    assert result["serverInfo"] == {"name": "demo", "version": "2.0"}
    assert result["instructions"] == "Be nice."
    assert result["resultType"] == "complete"
    assert result["ttlMs"] == 0 and result["cacheScope"] == "private"


async def test_modern_requests_need_no_initialize_and_carry_result_type() -> None:
    server = McpServer("demo", "1", [make_tool()])
    listed = await server.handle(modern("tools/list"))
    assert listed is not None
    assert listed["result"]["resultType"] == "complete"
    assert listed["result"]["ttlMs"] == 0
    assert listed["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "demo"
    called = await server.handle(modern("tools/call", {"name": "greet",
                                                       "arguments": {"name": "Bo"}}))
    assert called is not None
    assert called["result"]["resultType"] == "complete"
    assert called["result"]["content"] == [{"type": "text", "text": "Hello, Bo!"}]
    # The same request without the envelope is served under the legacy rules.
    legacy = await server.handle({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                  "params": {"name": "greet", "arguments": {"name": "Bo"}}})
    assert legacy is not None and "resultType" not in legacy["result"]


async def test_unsupported_modern_version_names_what_is_supported() -> None:
    server = McpServer("demo", "1", [make_tool()])
    message = modern("tools/list")
    message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"
    out = await server.handle(message)
    assert out is not None
    assert out["error"]["code"] == -32022
    assert out["error"]["data"] == {"supported": ["2026-07-28"], "requested": "2099-01-01"}


async def _samples(arguments: Any, ctx: CallContext) -> ToolResult:
    reply = await ctx.sample("hi", max_tokens=5)
    return ToolResult.text(reply.text)


async def _asks_both(arguments: Any, ctx: CallContext) -> ToolResult:
    with contextlib.suppress(ClientRequestError):  # it does without; then it fails
        await ctx.elicit("Name?", {"type": "object", "properties": {}})
    await ctx.sample("hi", max_tokens=5)
    return ToolResult.text("never")


async def _does_without(arguments: Any, ctx: CallContext) -> ToolResult:
    try:
        await ctx.sample("hi", max_tokens=5)
    except ClientRequestError:
        return ToolResult.text("did without")
    return ToolResult.text("sampled")


async def test_a_call_that_needs_an_undeclared_capability_is_missing_capability() -> None:
    server = McpServer("demo", "1", [make_tool("samples", _samples, schema={}),
                                     make_tool("both", _asks_both, schema={}),
                                     make_tool("without", _does_without, schema={})])
    out = await server.handle(modern("tools/call", {"name": "samples"}, id=3))
    assert out is not None and out["id"] == 3 and "result" not in out
    assert out["error"]["code"] == -32021
    assert out["error"]["data"] == {"requiredCapabilities": {"sampling": {}}}
    out = await server.handle(modern("tools/call", {"name": "both"}))
    assert (out or {})["error"]["data"] == {
        "requiredCapabilities": {"elicitation": {}, "sampling": {}}}
    # a tool that does without it answers; a declared one is asked for (input_required)
    out = await server.handle(modern("tools/call", {"name": "without"}))
    assert (out or {})["result"]["content"][0]["text"] == "did without"
    message = modern("tools/call", {"name": "samples"})
    message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = {"sampling": {}}
    assert (await server.handle(message) or {})["result"]["resultType"] == "input_required"
    # the 2025 revisions without a channel: still a tool error result, as before
    legacy = await server.handle({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                                  "params": {"name": "samples"}})
    assert (legacy or {})["result"]["isError"] is True


async def _named(arguments: Any, ctx: CallContext) -> ToolResult:
    form = {"type": "object", "properties": {"name": {"type": "string"}}}
    answer = await ctx.elicit("Name?", form, key=arguments.get("key", "user_name"))
    if arguments.get("twice"):
        await ctx.elicit("Again?", form, key="user_name")
    return ToolResult.text(f"hi {(answer.content or {}).get('name')}")


async def test_a_tool_names_its_question_with_key() -> None:
    server = McpServer("demo", "1", [make_tool("named", _named, schema={})])
    caps = {"elicitation": {}}

    async def call(arguments: dict[str, Any], **extra: Any) -> dict[str, Any]:
        message = modern("tools/call", {"name": "named", "arguments": arguments, **extra})
        message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = caps
        return (await server.handle(message) or {})["result"]

    first = await call({})
    assert first["resultType"] == "input_required"
    assert list(first["inputRequests"]) == ["user_name"]
    done = await call({}, inputResponses={"user_name": {"action": "accept",
                                                         "content": {"name": "Al"}}},
                      requestState=first["requestState"])
    assert done["content"][0]["text"] == "hi Al"
    for bad in ["", "toolhost-1", "a b", "x" * 65, "-x", "é"]:
        out = await call({"key": bad})
        assert out["isError"] is True and "key" in out["content"][0]["text"], bad
    twice = await call({"twice": True}, inputResponses={
        "user_name": {"action": "accept", "content": {"name": "Al"}}})
    assert twice["isError"] is True and "twice" in twice["content"][0]["text"]


@pytest.mark.parametrize("caps", ["missing", None, [], "x", 1, True])
@pytest.mark.parametrize("method", ["server/discover", "tools/list", "tools/call", "ping",
                                    "resources/list", "no/such"])
async def test_a_modern_request_must_declare_client_capabilities(method: str,
                                                                 caps: Any) -> None:
    server = McpServer("demo", "1", [make_tool()])
    message = modern(method, {"name": "greet", "arguments": {"name": "Bo"}}, id=9)
    meta = message["params"]["_meta"]
    if caps == "missing":
        del meta["io.modelcontextprotocol/clientCapabilities"]
    else:
        meta["io.modelcontextprotocol/clientCapabilities"] = caps
    out = await server.handle(message)
    assert out is not None and out["id"] == 9 and "result" not in out
    assert out["error"]["code"] == -32602
    assert "io.modelcontextprotocol/clientCapabilities" in out["error"]["message"]
    # a version nobody serves is still named first (-32022), and {} (none) is declared
    meta["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"
    assert (await server.handle(message) or {})["error"]["code"] == -32022
    meta["io.modelcontextprotocol/protocolVersion"] = "2026-07-28"
    meta["io.modelcontextprotocol/clientCapabilities"] = {}
    assert (await server.handle(message) or {}).get("error", {}).get("code") != -32602


@pytest.mark.parametrize("method", ["initialize", "ping", "logging/setLevel",
                                    "resources/subscribe", "resources/unsubscribe"])
async def test_methods_the_stateless_revision_removed_are_not_found_there(method: str) -> None:
    server = McpServer("demo", "1", [])
    params = {"protocolVersion": "2025-06-18", "level": "info", "uri": "x://y"}
    out = await server.handle(modern(method, params, id=7))
    assert out is not None and out["id"] == 7
    assert out["error"]["code"] == -32601
    assert method in out["error"]["message"] and "2026-07-28" in out["error"]["message"]
    if method.startswith("resources/"):
        return  # (served only with resources declared: tests/serve/test_subscribe_rules.py)
    # the 2025 revisions keep them
    legacy = await server.handle({"jsonrpc": "2.0", "id": 8, "method": method,
                                  "params": params})
    assert legacy is not None and legacy.get("error", {}).get("code") != -32601


async def test_a_legacy_initialize_still_negotiates() -> None:
    out = await McpServer("demo", "1", []).handle(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}}})
    assert out is not None
    assert out["result"]["protocolVersion"] == "2025-06-18"
    assert "resultType" not in out["result"]


# -- the official mcp client, over an in-process transport that feeds McpServer.handle --


@asynccontextmanager
async def core_transport(server: McpServer) -> AsyncIterator[tuple[Any, Any]]:
    from mcp.shared.message import SessionMessage
    from mcp_types import jsonrpc_message_adapter

    to_server_send, to_server_recv = anyio.create_memory_object_stream[Any](100)
    to_client_send, to_client_recv = anyio.create_memory_object_stream[Any](100)

    async def reply(message: dict[str, Any]) -> None:
        await to_client_send.send(SessionMessage(jsonrpc_message_adapter.validate_python(message)))

    async def serve_one(data: dict[str, Any]) -> None:
        response = await server.handle(data, notify=reply)
        if response is not None:
            await reply(response)

    async def pump() -> None:
        async with anyio.create_task_group() as tg:
            async for item in to_server_recv:
                data = item.message.model_dump(by_alias=True, mode="json", exclude_none=True)
                tg.start_soon(serve_one, data)

    async with anyio.create_task_group() as tg, to_server_recv, to_client_send:
        tg.start_soon(pump)
        try:
            async with to_client_recv, to_server_send:
                yield to_client_recv, to_server_send
        finally:
            tg.cancel_scope.cancel()


async def sums(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    return ToolResult.json({"sum": arguments["a"] + arguments["b"]})


def sum_tool() -> Any:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
              "required": ["a", "b"]}
    return make_tool("add", sums, schema=schema, output="structured", output_schema={
        "type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]})


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_official_client_lists_and_calls(mode: str) -> None:
    from mcp import Client

    server = McpServer("demo", "1.0", [make_tool(), sum_tool()], page_size=1)
    async with Client(core_transport(server), mode=mode) as client:  # type: ignore[arg-type]
        expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
        assert client.session.protocol_version == expected
        listed = await client.list_tools()
        names = [t.name for t in listed.tools]
        while listed.next_cursor:
            listed = await client.list_tools(cursor=listed.next_cursor)
            names += [t.name for t in listed.tools]
        assert names == ["greet", "add"]
        out = await client.call_tool("greet", {"name": "Ann"})
        assert out.content[0].text == "Hello, Ann!"  # type: ignore[union-attr]
        assert out.is_error is False
        added = await client.call_tool("add", {"a": 2, "b": 3})
        assert added.structured_content == {"sum": 5}
        bad = await client.call_tool("greet", {})
        assert bad.is_error is True


@pytest.mark.parametrize("level", ["verbose", "INFO", "", 3, None, ["info"], {"level": "info"}])
@pytest.mark.parametrize("method", ["tools/call", "tools/list", "server/discover"])
async def test_an_unknown_log_level_in_meta_is_invalid_params(method: str, level: Any) -> None:
    """A 2026-07-28 request's ``_meta`` logLevel is a LoggingLevel: any other value is -32602
    naming the key and the levels. It was ignored: the request was served and heard no log
    line, silence the client never asked for."""
    server = McpServer("demo", "1", [make_tool()])
    request = modern(method, {"name": "greet", "arguments": {"name": "Bo"}})
    request["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = level
    out = await server.handle(request)
    assert out is not None and "error" in out, out
    assert out["error"]["code"] == -32602
    assert "io.modelcontextprotocol/logLevel" in out["error"]["message"]
    assert "debug, info, notice, warning" in out["error"]["message"]


@pytest.mark.parametrize("level", ["debug", "info", "emergency"])
async def test_a_known_log_level_in_meta_is_served(level: str) -> None:
    server = McpServer("demo", "1", [make_tool()])
    request = modern("tools/call", {"name": "greet", "arguments": {"name": "Bo"}})
    request["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = level
    out = await server.handle(request)
    assert out is not None and out["result"]["content"] == [{"type": "text",
                                                             "text": "Hello, Bo!"}]
