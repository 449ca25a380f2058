"""``toolhost.sdk.load``: servers usable as ClaudeAgentOptions(mcp_servers=...) and the policy as
can_use_tool, checked with the official client and claude_agent_sdk's own types."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import (
    ClaudeAgentOptions,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)
from claude_agent_sdk._internal.sdk_mcp_bridge import SdkMcpBridge
from mcp.client.client import Client
from mcp.shared.exceptions import MCPError

from tests.serve.test_serve_command import DEMO, text_of
from toolhost.errors import ToolhostError
from toolhost.sdk import SdkHost, load

pytestmark = pytest.mark.anyio


async def test_servers_answer_through_the_mcp_server_the_sdk_runs() -> None:
    async with load(DEMO) as host:
        assert set(host.mcp_servers) == {"calc", "text"}
        entry = host.mcp_servers["calc"]
        assert (entry["type"], entry["name"]) == ("sdk", "calc")
        async with Client(entry["instance"], mode="legacy") as client:
            assert client.server_info is not None
            assert client.server_info.name == "calc"
            names = [t.name for t in (await client.list_tools()).tools]
            assert names == ["add", "word_count", "slow_count"]
            assert text_of(await client.call_tool("add", {"a": 40, "b": 2})) == "42"
            bad = await client.call_tool("add", {"a": 2, "b": "x"})
            assert bad.is_error and "'x' is not of type 'number'" in text_of(bad)
            # nobody asked can_use_tool about these calls: the rules decide them here
            denied = await client.call_tool("add", {"a": 13, "b": 2})
            assert denied.is_error
            assert text_of(denied) == "13 is not allowed as the first number (team rule)"
            with pytest.raises(MCPError, match="Unknown tool: 'nope'"):
                await client.call_tool("nope", {})
        async with Client(host.mcp_servers["text"]["instance"], mode="legacy") as client:
            described = await client.call_tool("describe", {"text": "hi"})
            assert described.structured_content == {"length": 2, "kind": "short"}


async def test_can_use_tool_applies_the_rules() -> None:
    async with load(DEMO) as host:
        context = ToolPermissionContext(tool_use_id="toolu_1")
        denied = await host.can_use_tool("mcp__calc__add", {"a": 13, "b": 1}, context)
        assert isinstance(denied, PermissionResultDeny)
        assert denied.message == "13 is not allowed as the first number (team rule)"
        allowed = await host.can_use_tool("mcp__calc__add", {"a": 1, "b": 1}, context)
        assert isinstance(allowed, PermissionResultAllow)
        options = host.options(max_turns=2)
        assert isinstance(options, ClaudeAgentOptions)
        assert options.mcp_servers is host.mcp_servers
        assert options.can_use_tool == host.can_use_tool
        assert options.max_turns == 2


async def test_ask_without_a_terminal_is_a_deny(tmp_path: Path) -> None:
    config = tmp_path / "ask.yaml"
    config.write_text("toolhost: 1\nservers:\n  calc:\n    tools:\n"
                      "      add: {python: \"toolhost.demo:add\"}\n"
                      "permissions: {default: ask}\n")
    async with load(config) as host:
        decision = await host.can_use_tool("mcp__calc__add", {"a": 1, "b": 1})
        assert isinstance(decision, PermissionResultDeny)
        assert decision.message
        # the same at a tools/call nobody asked about (ask_mode prompt, no terminal)
        async with Client(host.mcp_servers["calc"]["instance"], mode="legacy") as client:
            refused = await client.call_tool("add", {"a": 1, "b": 1})
            assert refused.is_error and "approval" in text_of(refused), text_of(refused)


async def bridged(host: SdkHost, server: str = "calc") -> Any:
    """The SDK's own bridge for the server, as the CLI's mcp_message requests reach it."""
    bridge = SdkMcpBridge(server, host.mcp_servers[server]["instance"])
    answer = await bridge.handle({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "claude-code", "version": "2"}}})
    assert answer is not None and "result" in answer, answer
    await bridge.handle({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return bridge


def call(params: Any, request_id: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


ODD_METAS = [None, [], "toolu_1", 7, {"claudecode/toolUseId": 5},
             {"claudecode/toolUseId": ["toolu_1"]}, {"claudecode/toolUseId": None},
             {"claudecode/toolUseId": ""}, {"claudecode/toolUseId": "t" * 100_000},
             {"claudecode/toolUseId": "toolu_\udcff"}, {"claudecode/toolUseId": {"a": 1}},
             {"io.modelcontextprotocol/protocolVersion": "bogus"}]


@pytest.mark.parametrize("meta", ODD_METAS)
async def test_a_call_with_an_odd_meta_is_decided_by_the_rules(meta: Any) -> None:
    async with load(DEMO) as host:
        bridge = await bridged(host)
        try:
            params: dict[str, Any] = {"name": "add", "arguments": {"a": 13, "b": 1}}
            if meta is not None:
                params["_meta"] = meta
            answer = await bridge.handle(call(params))
            assert answer is not None
            if "error" not in answer:  # _meta of a shape the SDK refuses: a plain error
                assert answer["result"]["isError"] is True, answer
                assert answer["result"]["content"][0]["text"] == (
                    "13 is not allowed as the first number (team rule)")
            allowed = await bridge.handle(call({**params, "arguments": {"a": 1, "b": 1}}, 2))
            assert allowed is not None
            assert "error" in allowed or allowed["result"]["content"][0]["text"] == "2"
        finally:
            await bridge.aclose()


@pytest.mark.parametrize("params", [
    {"name": "add", "arguments": []}, {"name": "add", "arguments": "a=1"},
    {"name": "add", "arguments": 5}, {"name": "add\udcff", "arguments": {}},
    {"name": "\ud800", "arguments": {"a": 1}}, {"name": "", "arguments": {}},
    {"name": 5, "arguments": {}}, {"name": "n" * 100_000}, {"arguments": {}},
])  # params that are not an object: the SDK's bridge refuses them before any server
async def test_malformed_calls_get_a_plain_error(params: Any) -> None:
    async with load(DEMO) as host:
        bridge = await bridged(host)
        try:
            answer = await bridge.handle(call(params))
            assert answer is not None
            if "error" in answer:
                assert isinstance(answer["error"]["message"], str)
                assert "Traceback" not in answer["error"]["message"]
            else:
                assert answer["result"]["isError"] is True, answer
        finally:
            await bridge.aclose()


async def test_the_call_can_use_tool_allowed_runs_once_others_are_decided_again(
        tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    config = tmp_path / "toolhost.yaml"
    config.write_text(Path(DEMO).read_text().replace(
        "permissions:\n", f"permissions:\n  audit_log: {audit}\n", 1))
    async with load(config) as host:
        bridge = await bridged(host)
        try:
            context = ToolPermissionContext(tool_use_id="toolu_1")
            allowed = await host.can_use_tool("mcp__calc__add", {"a": 1, "b": 2}, context)
            assert isinstance(allowed, PermissionResultAllow)
            meta = {"claudecode/toolUseId": "toolu_1"}
            first = await bridge.handle(call({"name": "add", "arguments": {"a": 1, "b": 2},
                                              "_meta": meta}))
            assert first is not None and first["result"]["content"][0]["text"] == "3"
            # the same id again, or with the input changed after the allow: decided again
            again = await bridge.handle(call({"name": "add", "arguments": {"a": 13, "b": 2},
                                              "_meta": meta}, 2))
            assert again is not None and again["result"]["isError"] is True
        finally:
            await bridge.aclose()
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [(d["tool"], d["decision"]) for d in lines] == [
        ("mcp__calc__add", "allow"), ("mcp__calc__add", "deny")]


@pytest.mark.parametrize("tool_name,tool_input", [
    (5, {}), (None, {}), ("mcp__calc__add", []), ("mcp__calc__add", "x"),
    ("mcp__calc__add\udcff", {"a": 1})])
@pytest.mark.parametrize("tool_use_id", [None, 5, "", "t" * 100_000, ["x"]])
async def test_can_use_tool_with_odd_requests_denies_or_decides_without_noting(
        tool_name: Any, tool_input: Any, tool_use_id: Any) -> None:
    async with load(DEMO) as host:
        context = ToolPermissionContext(tool_use_id=tool_use_id)
        decision = await host.can_use_tool(tool_name, tool_input, context)
        assert isinstance(decision, (PermissionResultAllow, PermissionResultDeny))
        if not isinstance(tool_name, str) or not isinstance(tool_input, dict):
            assert isinstance(decision, PermissionResultDeny)
        assert len(host.noted) == 0


async def test_a_closed_host_denies_everything_and_closes_once() -> None:
    host = load(DEMO)
    bridge = await bridged(host)
    await host.aclose()
    await host.aclose()  # twice: nothing happens
    decision = await host.can_use_tool("mcp__calc__add", {"a": 1, "b": 1})
    assert isinstance(decision, PermissionResultDeny) and "closed" in decision.message
    answer = await bridge.handle(call({"name": "add", "arguments": {"a": 1, "b": 1}}))
    assert answer is not None and answer["result"]["isError"] is True
    assert "closed" in answer["result"]["content"][0]["text"]
    with pytest.raises(ToolhostError, match="closed"):
        host.options()
    await bridge.aclose()
