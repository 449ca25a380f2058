"""ControlSession over in-memory streams: routing, answers, permissions, outgoing requests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.errors import ProtocolError
from toolhost.mcp import McpServer
from toolhost.permissions.decision import Decision
from toolhost.results import ToolResult

from .session_harness import make_tool, running_session

pytestmark = pytest.mark.anyio

CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "greet", "arguments": {"name": "Alice"},
                   "_meta": {"claudecode/toolUseId": "toolu_1", "progressToken": 2}}}


async def test_tools_call_round_trip() -> None:
    async with running_session() as (_, cli):
        await cli.mcp("r1", CALL)
        await cli.wait_for(lambda: "r1" in cli.answers())
    assert cli.answer("r1") == {
        "subtype": "success", "request_id": "r1",
        "response": {"mcp_response": {"jsonrpc": "2.0", "id": 2, "result": {
            "content": [{"type": "text", "text": "Hello, Alice!"}], "isError": False}}}}


async def test_initialized_notification_is_acked() -> None:
    async with running_session() as (_, cli):
        await cli.mcp("n1", {"jsonrpc": "2.0", "method": "notifications/initialized"})
        await cli.wait_for(lambda: "n1" in cli.answers())
    assert cli.answer("n1")["response"] == {"mcp_response": {"jsonrpc": "2.0", "result": {}}}


async def test_unknown_server_is_a_jsonrpc_error_not_a_crash() -> None:
    async with running_session() as (_, cli):
        await cli.mcp("u1", CALL, server="nosuch")
        await cli.mcp("u2", CALL)
        await cli.wait_for(lambda: {"u1", "u2"} <= cli.answers().keys())
    bad = cli.answer("u1")
    assert bad["subtype"] == "success"
    error = bad["response"]["mcp_response"]["error"]
    assert error["code"] == -32601 and "nosuch" in error["message"] and "demo" in error["message"]
    assert cli.answer("u2")["response"]["mcp_response"]["result"]["isError"] is False


async def test_unknown_subtype_and_bad_requests_get_error_answers() -> None:
    async with running_session() as (_, cli):
        await cli.request("x1", {"subtype": "hook_callback", "callback_id": "h"})
        await cli.send({"type": "control_request", "request_id": "x2", "request": "oops"})
        await cli.request("x3", {"subtype": "mcp_message", "server_name": "demo"})
        await cli.wait_for(lambda: {"x1", "x2", "x3"} <= cli.answers().keys())
    for rid in ("x1", "x2", "x3"):
        assert cli.answer(rid)["subtype"] == "error"
    assert "hook_callback" in cli.answer("x1")["error"]


async def test_malformed_and_overlong_lines_are_skipped() -> None:
    async with running_session(max_line_bytes=4096) as (_, cli):
        await cli.send_raw(b"not json at all\n")
        await cli.send_raw(b"[1, 2, 3]\n\n   \n")
        await cli.send_raw(b'{"type": "control_request", "request_id": "half"')  # ...cut
        await cli.send_raw(b"x" * 10_000 + b"\n")  # same line, now too long: skipped whole
        await cli.send_raw(b'{"type": "control_request"}\n')  # no request_id: cannot answer
        await cli.mcp("after", CALL)
        await cli.wait_for(lambda: {"after", "half"} <= cli.answers().keys())
    # The over-long control request is answered (an error naming the limit), so the CLI
    # never waits for it; the lines that name no request are only logged.
    assert set(cli.answers()) == {"after", "half"}
    assert cli.answer("half")["subtype"] == "error"
    assert "10,048 bytes" in cli.answer("half")["error"]
    assert "4,096" in cli.answer("half")["error"]


async def test_conversation_messages_reach_on_message_in_order() -> None:
    seen: list[dict[str, Any]] = []

    async def on_message(message: dict[str, Any]) -> None:
        seen.append(message)
        if message.get("type") == "boom":
            raise RuntimeError("renderer bug")

    async with running_session(on_message=on_message) as (_, cli):
        await cli.send({"type": "system", "subtype": "init", "brand_new_field": [1]})
        await cli.send({"type": "boom"})
        await cli.send({"type": "something_new", "x": 1})
        await cli.send({"type": "result", "subtype": "success"})
        await cli.mcp("r", CALL)
        await cli.wait_for(lambda: "r" in cli.answers())
    assert [m["type"] for m in seen] == ["system", "boom", "something_new", "result"]
    assert seen[0]["brand_new_field"] == [1]


def can_use(rid: str, name: str = "Alice", tool: str = "mcp__demo__greet") -> dict[str, Any]:
    return {"subtype": "can_use_tool", "tool_name": tool, "input": {"name": name},
            "tool_use_id": f"toolu_{rid}", "mcp_server": {"name": "demo", "source": "sdk"}}


async def test_can_use_tool_allow_deny_rewrite_and_failure() -> None:
    async def policy(tool_name: str, tool_input: dict[str, Any],
                     request: dict[str, Any]) -> Decision:
        assert request["tool_use_id"].startswith("toolu_")
        name = tool_input["name"]
        if name == "Mallory":
            return Decision("deny", message="Not Mallory.")
        if name == "alice":
            return Decision("allow", updated_input={"name": "Alice"})
        if name == "Crash":
            raise RuntimeError("policy file vanished")
        if name == "Ask":
            return Decision("ask")
        return Decision("allow")

    async with running_session(permission=policy) as (_, cli):
        for rid, name in [("a", "Bob"), ("d", "Mallory"), ("w", "alice"), ("c", "Crash"),
                          ("q", "Ask")]:
            await cli.request(rid, can_use(rid, name))
        await cli.wait_for(lambda: len(cli.answers()) == 5)
    assert cli.answer("a")["response"] == {"behavior": "allow",
                                           "updatedInput": {"name": "Bob"}}
    assert cli.answer("d")["response"] == {"behavior": "deny", "message": "Not Mallory."}
    assert cli.answer("w")["response"] == {"behavior": "allow",
                                           "updatedInput": {"name": "Alice"}}
    crashed = cli.answer("c")
    assert crashed["subtype"] == "error" and "policy file vanished" in crashed["error"]
    assert cli.answer("q")["response"]["behavior"] == "deny"


async def test_without_a_policy_every_tool_is_denied_with_a_reason() -> None:
    async with running_session(permission=None) as (_, cli):
        await cli.request("p", can_use("p"))
        await cli.wait_for(lambda: "p" in cli.answers())
    response = cli.answer("p")["response"]
    assert response["behavior"] == "deny" and "no permission policy" in response["message"]


async def test_slow_tool_does_not_block_other_requests() -> None:
    release = anyio.Event()

    async def slow(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        await release.wait()
        return ToolResult.text("slow done")

    servers = {"demo": McpServer("demo", "1", [make_tool(), make_tool("slow", slow, schema={})])}
    async with running_session(servers) as (_, cli):
        await cli.mcp("s", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                            "params": {"name": "slow"}})
        await cli.mcp("f", CALL)
        await cli.wait_for(lambda: "f" in cli.answers())
        assert "s" not in cli.answers()
        release.set()
        await cli.wait_for(lambda: "s" in cli.answers())
    order = [line["response"]["request_id"] for line in cli.lines]
    assert order == ["f", "s"]


async def test_outgoing_requests_are_matched_by_id_in_any_order() -> None:
    async with running_session() as (session, cli):
        results: dict[str, Any] = {}

        async def ask(key: str, subtype: str) -> None:
            try:
                results[key] = await session.request(subtype, mode=key)
            except ProtocolError as exc:
                results[key] = exc

        async with anyio.create_task_group() as tg:
            tg.start_soon(ask, "one", "set_permission_mode")
            tg.start_soon(ask, "two", "set_permission_mode")
            tg.start_soon(ask, "three", "set_model")
            await cli.wait_for(lambda: len(cli.requests()) == 3)
            by_mode = {r["request"]["mode"]: r["request_id"] for r in cli.requests()}
            # Answer in reverse order, one of them with an error.
            await cli.send({"type": "control_response", "response": {
                "subtype": "error", "request_id": by_mode["three"], "error": "no such model"}})
            await cli.send({"type": "control_response", "response": {
                "subtype": "success", "request_id": by_mode["two"], "response": {"n": 2}}})
            await cli.send({"type": "control_response", "response": {
                "subtype": "success", "request_id": by_mode["one"], "response": {"n": 1}}})
            # An answer to nothing we asked is ignored.
            await cli.send({"type": "control_response", "response": {
                "subtype": "success", "request_id": "stray"}})
    assert results["one"] == {"n": 1} and results["two"] == {"n": 2}
    assert isinstance(results["three"], ProtocolError)
    assert "no such model" in str(results["three"])
    assert len({r["request_id"] for r in cli.requests()}) == 3


async def test_initialize_interrupt_and_user_turn_wire_shapes() -> None:
    async with running_session() as (session, cli):
        async with anyio.create_task_group() as tg:
            async def init() -> None:
                answer = await session.initialize(sdkMcpServers=["demo"])
                assert answer == {"commands": []}
            tg.start_soon(init)
            await cli.wait_for(lambda: len(cli.requests("initialize")) == 1)
            (sent,) = cli.requests("initialize")
            assert sent["request"] == {"subtype": "initialize", "hooks": None,
                                       "sdkMcpServers": ["demo"]}
            await cli.send({"type": "control_response", "response": {
                "subtype": "success", "request_id": sent["request_id"],
                "response": {"commands": []}}})
        turn = {"type": "user", "message": {"role": "user", "content": "hi"},
                "parent_tool_use_id": None, "session_id": "default"}
        await session.send_message(turn)
        async with anyio.create_task_group() as tg:
            tg.start_soon(session.interrupt)
            await cli.wait_for(lambda: len(cli.requests("interrupt")) == 1)
            await cli.send({"type": "control_response", "response": {
                "subtype": "success", "request_id": cli.requests("interrupt")[0]["request_id"]}})
    assert turn in cli.lines


async def test_pending_request_fails_when_the_cli_goes_away() -> None:
    errors: list[Exception] = []
    async with running_session() as (session, cli):
        async def ask() -> None:
            try:
                await session.request("mcp_status")
            except ProtocolError as exc:
                errors.append(exc)
        async with anyio.create_task_group() as tg:
            tg.start_soon(ask)
            await cli.wait_for(lambda: len(cli.requests()) == 1)
            await cli.close()
    assert len(errors) == 1 and "closed" in str(errors[0])
    with pytest.raises(ProtocolError):
        await session.request("mcp_status")


async def test_deep_and_hostile_control_lines_are_answered_or_logged_never_fatal() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    async with running_session() as (_, cli):
        await cli.send_raw(deep + b"\n")  # names no request: logged
        await cli.send_raw(b'{"type": "control_request", "request_id": "deep", "request": '
                           + deep + b"}\n")
        await cli.send_raw(b'{"type": "control_request", "request_id": "nan", "request": '
                           b'{"subtype": "can_use_tool", "tool_name": NaN}}\n')
        await cli.mcp("ids", {"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"})
        await cli.mcp("after", CALL)
        await cli.wait_for(lambda: {"deep", "nan", "ids", "after"} <= cli.answers().keys())
    assert cli.answer("deep")["subtype"] == "error"
    assert "100,001 levels deep; the limit is 256" in cli.answer("deep")["error"]
    assert cli.answer("nan")["subtype"] == "error"
    bad_id = cli.answer("ids")["response"]["mcp_response"]
    assert bad_id["id"] is None and bad_id["error"]["code"] == -32600
    assert cli.answer("after")["response"]["mcp_response"]["result"]["isError"] is False


async def test_a_request_id_that_is_a_number_or_empty_still_gets_its_one_answer() -> None:
    # red team runner5 R3: such a request was only logged, so a CLI that sent one (the
    # official SDK answers any id as it came) waited for its answer for ever
    async with running_session() as (_, cli):
        for request_id in (7, 2.5, ""):
            await cli.send({"type": "control_request", "request_id": request_id,
                            "request": {"subtype": "mcp_message", "server_name": "demo",
                                        "message": CALL}})
        await cli.send({"type": "control_request", "request_id": None,
                        "request": {"subtype": "interrupt"}})  # nothing to answer under
        await cli.mcp("after", CALL)
        await cli.wait_for(lambda: {7, 2.5, "", "after"} <= cli.answers().keys())
    for request_id in (7, 2.5, ""):
        answer = cli.answer(request_id)  # type: ignore[arg-type]
        assert answer["subtype"] == "error" and "request_id" in answer["error"]
    assert set(cli.answers()) == {7, 2.5, "", "after"}
    assert cli.answer("after")["response"]["mcp_response"]["result"]["isError"] is False
