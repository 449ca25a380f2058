"""Property: whatever lines the CLI's side writes, the control session answers each control
request it can identify once, never crashes, and still answers the next honest request."""

from __future__ import annotations

import json
from typing import Any

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.mcp.test_mcp_hostile import fields as jsonrpc_messages
from toolhost.protocol.framing import request_id_in

from .session_harness import running_session

HONEST = {"jsonrpc": "2.0", "id": "h", "method": "tools/call",
          "params": {"name": "greet", "arguments": {"name": "Al"}}}

json_leaf = st.none() | st.booleans() | st.integers() | st.text(max_size=12)
json_any = st.recursive(json_leaf, lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=12)
requests = st.fixed_dictionaries({}, optional={
    "subtype": st.sampled_from(["mcp_message", "can_use_tool", "interrupt"]) | json_any,
    "server_name": st.sampled_from(["demo", "nope"]) | json_any,
    "message": jsonrpc_messages | json_any,
    "tool_name": st.sampled_from(["Bash", "mcp__demo__greet"]) | json_any,
    "input": json_any})
control_lines = st.one_of(
    st.fixed_dictionaries({"type": st.just("control_request"),
                           "request_id": st.text(min_size=1, max_size=20).map(lambda s: "x" + s)},
                          optional={"request": requests | json_any}).map(json.dumps),
    st.fixed_dictionaries({}, optional={"type": json_any | st.sampled_from(
        ["control_response", "control_cancel_request", "assistant"]),
        "request_id": json_any, "response": json_any}).map(json.dumps),
).map(str.encode)
raw_lines = st.binary(max_size=200).map(lambda b: b.replace(b"\n", b" "))
deep = st.integers(min_value=257, max_value=20_000).map(lambda n: b"[" * n + b"]" * n)


@settings(max_examples=40)
@given(st.lists(control_lines | raw_lines | deep, min_size=1, max_size=6))
def test_property_hostile_lines_then_an_honest_request(lines: list[bytes]) -> None:
    expected = {rid for rid in (request_id_in(line[:4096]) for line in lines) if rid}

    async def run() -> dict[str, list[dict[str, Any]]]:
        with anyio.fail_after(10):
            async with running_session(max_line_bytes=64 * 1024) as (_, cli):
                for line in lines:
                    await cli.send_raw(line + b"\n")
                await cli.mcp("honest", HONEST)
                await cli.wait_for(lambda: "honest" in cli.answers()
                                   and expected <= cli.answers().keys())
            return cli.answers()

    answers = anyio.run(run)
    assert len(answers["honest"]) == 1  # exactly one answer
    honest = answers["honest"][0]["response"]["mcp_response"]
    assert honest["result"]["content"][0]["text"] == "Hello, Al!"
    for answer in (a for each in answers.values() for a in each):
        assert answer["subtype"] in ("success", "error")
        if answer["subtype"] == "error":
            assert len(answer["error"]) < 1000
