"""``toolhost.sdk.load``: servers usable as ClaudeAgentOptions(mcp_servers=...) and the policy as
can_use_tool, checked with the official client and claude_agent_sdk's own types."""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_agent_sdk import (
    ClaudeAgentOptions,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)
from mcp.client.client import Client
from mcp.shared.exceptions import MCPError

from tests.serve.test_serve_command import DEMO, text_of
from toolhost.sdk import load

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
