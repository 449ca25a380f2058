"""Replay the CLI's side of real captured exchanges and compare our answers to the recorded ones.

The traces (see the shared protocol notes) were recorded against CLI 2.1.330 with a ``greet``
tool. We feed every cli->sdk line, in order, to a ControlSession serving the same tool and
check each answer against what the official SDK sent back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.mcp import McpServer
from toolhost.permissions.decision import Decision
from toolhost.results import ToolResult

from .session_harness import make_tool, running_session

pytestmark = pytest.mark.anyio

# Real exchanges captured from the Claude CLI 2.1.330 (see docs/protocol.md).
TRACES = Path(__file__).resolve().parents[1] / "traces"
TRACE_FILES = sorted(TRACES.glob("*.wire.jsonl"))
GREET_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}},
                "required": ["name"]}
DENY_MESSAGE = "The user does not want anyone greeted."


def test_the_traces_ship_with_the_tests() -> None:
    assert [p.name for p in TRACE_FILES] == [
        "allow.wire.jsonl", "deny.wire.jsonl", "not-logged-in.wire.jsonl",
        "parallel-readonly.wire.jsonl"]


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("trace", TRACE_FILES, ids=lambda p: p.name)
async def test_replayed_trace_gets_the_recorded_answers(trace: Path) -> None:
    entries = load(trace)
    incoming = [e["msg"] for e in entries if e["dir"] == "cli->sdk"]
    recorded = {e["msg"]["response"]["request_id"]: e["msg"]["response"]
                for e in entries
                if e["dir"] == "sdk->cli" and e["msg"].get("type") == "control_response"}
    deny = trace.name.startswith("deny")
    concurrent_calls = sum(1 for m in incoming if m.get("type") == "control_request"
                           and m["request"].get("message", {}).get("method") == "tools/call")
    active = 0
    peak = 0
    everyone_in = anyio.Event()

    async def greet(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        if active == concurrent_calls:
            everyone_in.set()
        with anyio.fail_after(5):  # parallel calls must all be running at once
            await everyone_in.wait()
        active -= 1
        return ToolResult.text(f"Hello, {arguments['name']}!")

    async def policy(tool_name: str, tool_input: dict[str, Any],
                     request: dict[str, Any]) -> Decision:
        assert tool_name == "mcp__demo__greet"
        return Decision("deny", message=DENY_MESSAGE) if deny else Decision("allow")

    # The parallel trace's tool was read-only: that is what let the CLI run two at once.
    annotations = {"readOnlyHint": True} if concurrent_calls > 1 else {}
    tool = make_tool("greet", greet, schema=GREET_SCHEMA, description="Greet a person by name",
                     annotations=annotations)
    servers = {"demo": McpServer("demo", "1.0.0", [tool])}
    conversation: list[dict[str, Any]] = []

    async def on_message(message: dict[str, Any]) -> None:
        conversation.append(message)

    async with running_session(servers, permission=policy, on_message=on_message) as (_, cli):
        for message in incoming:
            await cli.send(message)
        wanted = {m["request_id"] for m in incoming if m.get("type") == "control_request"}
        await cli.wait_for(lambda: wanted <= cli.answers().keys())

    assert peak == concurrent_calls
    assert [m["type"] for m in conversation] == [
        m["type"] for m in incoming if not m["type"].startswith("control_")]
    for request_id in wanted:
        ours, theirs = cli.answer(request_id), recorded[request_id]
        assert ours["subtype"] == theirs["subtype"] == "success"
        mine, rec = ours["response"], theirs["response"]
        if "mcp_response" not in rec:
            assert mine == rec  # can_use_tool: identical allow / deny answers
            continue
        m, r = mine["mcp_response"], rec["mcp_response"]
        assert m.get("id") == r.get("id") and m["jsonrpc"] == r["jsonrpc"]
        assert set(m["result"]) == set(r["result"])
        if "protocolVersion" in r["result"]:
            assert m["result"]["protocolVersion"] == r["result"]["protocolVersion"]
            assert m["result"]["serverInfo"] == r["result"]["serverInfo"]
            assert m["result"]["capabilities"]["tools"]["listChanged"] is True
        else:
            assert m["result"] == r["result"]  # tools/list, tools/call, the initialized ack
