"""Cancelling calls: the CLI's notifications/cancelled, control_cancel_request, aclose()."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.mcp import McpServer
from toolhost.protocol.outbox import Outbox
from toolhost.results import ToolResult

from .session_harness import make_tool, running_session

pytestmark = pytest.mark.anyio


class Blocker:
    """A tool that runs until cancelled, recording what happened to each call."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.cancelled: list[str] = []
        self._started = anyio.Event()

    async def __call__(self, arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        self.started.append(arguments["name"])
        self._started.set()
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            self.cancelled.append(arguments["name"])
            raise
        raise AssertionError("unreachable")

    async def wait_started(self, n: int) -> None:
        with anyio.fail_after(5):
            while len(self.started) < n:
                await self._started.wait()
                self._started = anyio.Event()


def call(jsonrpc_id: int, name: str, tool: str = "block") -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": jsonrpc_id, "method": "tools/call",
            "params": {"name": tool, "arguments": {"name": name}}}


def servers(blocker: Blocker) -> dict[str, McpServer]:
    return {name: McpServer(name, "1", [make_tool("block", blocker, server=name)])
            for name in ("demo", "other")}


async def test_notifications_cancelled_cancels_the_call_by_jsonrpc_id() -> None:
    blocker = Blocker()
    async with running_session(servers(blocker)) as (_, cli):
        await cli.mcp("c2", call(2, "a"))
        await cli.mcp("c3", call(3, "b"))
        await cli.mcp("o2", call(2, "c"), server="other")  # same JSON-RPC id, other server
        await blocker.wait_started(3)
        await cli.mcp("cancel", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                 "params": {"requestId": 2, "reason": "AbortError: remote-cancel"}})
        await cli.wait_for(lambda: {"cancel", "c2"} <= cli.answers().keys())
        assert blocker.cancelled == ["a"]
        assert "c3" not in cli.answers() and "o2" not in cli.answers()
        # The cancel notification is acked; the cancelled call's (ignored) answer is an error.
        assert cli.answer("cancel")["response"] == {"mcp_response": {"jsonrpc": "2.0",
                                                                     "result": {}}}
        late = cli.answer("c2")["response"]["mcp_response"]
        assert late["id"] == 2 and late["error"]["code"] == -32800
        for rid, server in (("c3", "demo"), ("o2", "other")):
            jsonrpc_id = 3 if rid == "c3" else 2
            await cli.mcp(f"x{rid}", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                      "params": {"requestId": jsonrpc_id}}, server=server)
        await cli.wait_for(lambda: {"c3", "o2"} <= cli.answers().keys())
    assert sorted(blocker.cancelled) == ["a", "b", "c"]


async def test_control_cancel_request_cancels_by_request_id_without_an_answer() -> None:
    blocker = Blocker()
    async with running_session(servers(blocker)) as (session, cli):
        await cli.mcp("keep", call(1, "keep"))
        await cli.mcp("drop", call(2, "drop"))
        await blocker.wait_started(2)
        await cli.send({"type": "control_cancel_request", "request_id": "drop"})
        await cli.send({"type": "control_cancel_request", "request_id": "never-sent"})
        with anyio.fail_after(5):
            while "drop" not in blocker.cancelled:
                await anyio.sleep(0.005)
        assert session.in_flight == 1
        await cli.mcp("cancel-keep", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                      "params": {"requestId": 1}})
        await cli.wait_for(lambda: "keep" in cli.answers())
    assert "drop" not in cli.answers()  # the CLI withdrew it: nobody waits for an answer


async def test_a_withdrawn_call_stays_unanswered_when_its_notifications_cancelled_follows(
        ) -> None:
    # The call's own request scope serves both cancels: the withdrawal wins, in either order
    # of arrival, and the other call is untouched.
    blocker = Blocker()
    async with running_session(servers(blocker)) as (session, cli):
        await cli.mcp("drop", call(7, "drop"))
        await cli.mcp("keep", call(8, "keep"))
        await blocker.wait_started(2)
        # one write: both are read before the call's task next runs
        withdraw = {"type": "control_cancel_request", "request_id": "drop"}
        notify = {"type": "control_request", "request_id": "n7", "request": {
            "subtype": "mcp_message", "server_name": "demo", "message": {
                "jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 7}}}}
        await cli.send_raw((json.dumps(withdraw) + "\n" + json.dumps(notify) + "\n").encode())
        await cli.wait_for(lambda: "n7" in cli.answers())
        with anyio.fail_after(5):
            while "drop" not in blocker.cancelled:
                await anyio.sleep(0.005)
        await cli.mcp("n8", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                             "params": {"requestId": 8}})
        await cli.wait_for(lambda: "keep" in cli.answers())
        assert cli.answer("keep")["response"]["mcp_response"]["error"]["code"] == -32800
    assert "drop" not in cli.answers()
    assert session.in_flight == 0


async def test_a_cancelled_call_is_answered_once_and_later_calls_run_normally() -> None:
    blocker = Blocker()
    async with running_session(servers(blocker)) as (_, cli):
        for round_ in range(3):
            rid = f"c{round_}"
            await cli.mcp(rid, call(100 + round_, rid))
            await blocker.wait_started(round_ + 1)
            await cli.mcp(f"n{round_}", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                         "params": {"requestId": 100 + round_}})
            await cli.wait_for(lambda rid=rid: rid in cli.answers())  # type: ignore[misc]
            answer = cli.answer(rid)["response"]["mcp_response"]
            assert answer == {"jsonrpc": "2.0", "id": 100 + round_,
                              "error": {"code": -32800, "message": "Request cancelled"}}
        await cli.mcp("after", {"jsonrpc": "2.0", "id": 200, "method": "tools/list"})
        await cli.wait_for(lambda: "after" in cli.answers())
        for round_ in range(3):
            cli.answer(f"c{round_}")  # still exactly one answer each


async def test_aclose_cancels_calls_in_flight() -> None:
    blocker = Blocker()
    async with running_session(servers(blocker)) as (session, cli):
        for i in range(5):
            await cli.mcp(f"r{i}", call(i, f"n{i}"))
        await blocker.wait_started(5)
        await session.aclose()
        with anyio.fail_after(5):
            while len(blocker.cancelled) < 5:
                await anyio.sleep(0.005)
    assert sorted(blocker.cancelled) == [f"n{i}" for i in range(5)]
    assert session.in_flight == 0


@pytest.mark.parametrize("calls", [1, 5])
async def test_the_cli_closing_its_output_cancels_calls_in_flight(calls: int) -> None:
    # red team runner2 F7: the session waited for them, for ever with no timeout, while
    # nobody could read their answers
    blocker = Blocker()
    async with running_session(servers(blocker)) as (session, cli):
        for i in range(calls):
            await cli.mcp(f"r{i}", call(i, f"n{i}"))
        await blocker.wait_started(calls)
        with anyio.fail_after(5):
            await cli.close()  # its end of output, the calls still running
            while len(blocker.cancelled) < calls:
                await anyio.sleep(0.005)
    assert sorted(blocker.cancelled) == [f"n{i}" for i in range(calls)]
    assert session.in_flight == 0
    assert not [a for a in cli.answers() if a.startswith("r")]  # nobody to answer


async def test_progress_goes_out_as_mcp_message_notifications() -> None:
    async def reporting(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        await ctx.progress(1, 3, "one")
        return ToolResult.text("done")

    servers = {"demo": McpServer("demo", "1", [make_tool("rep", reporting, schema={})])}
    async with running_session(servers) as (_, cli):
        await cli.mcp("r", {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                            "params": {"name": "rep", "_meta": {"progressToken": 5}}})
        await cli.wait_for(lambda: "r" in cli.answers())
        (note,) = cli.requests("mcp_message")
        assert note["request"] == {
            "subtype": "mcp_message", "server_name": "demo",
            "message": {"jsonrpc": "2.0", "method": "notifications/progress",
                        "params": {"progressToken": 5, "progress": 1, "total": 3,
                                   "message": "one"}}}
        # The CLI's ack (no response body) is consumed quietly.
        await cli.send({"type": "control_response", "response": {
            "subtype": "success", "request_id": note["request_id"]}})


async def test_reload_sends_list_changed_and_the_cli_relists() -> None:
    async with running_session() as (session, cli):
        async with anyio.create_task_group() as tg:
            async def reload() -> None:
                assert await session.set_tools("demo", [make_tool(), make_tool("wave")]) is True
            tg.start_soon(reload)
            await cli.wait_for(lambda: len(cli.requests("mcp_message")) == 1)
            (sent,) = cli.requests("mcp_message")
            assert sent["request"]["message"] == {"jsonrpc": "2.0",
                                                  "method": "notifications/tools/list_changed"}
            await cli.send({"type": "control_response", "response": {
                "subtype": "success", "request_id": sent["request_id"]}})
        await cli.mcp("l", {"jsonrpc": "2.0", "id": 9, "method": "tools/list"})
        await cli.wait_for(lambda: "l" in cli.answers())
        tools = cli.answer("l")["response"]["mcp_response"]["result"]["tools"]
        assert [t["name"] for t in tools] == ["greet", "wave"]
        # Same tools again: nothing to tell the CLI.
        assert await session.set_tools("demo", [make_tool(), make_tool("wave")]) is False
    assert len(cli.requests("mcp_message")) == 1


async def test_our_jsonrpc_request_is_answered_by_a_cli_mcp_message() -> None:
    async with running_session() as (session, cli):
        answers: list[dict[str, Any]] = []
        async with anyio.create_task_group() as tg:
            async def ask() -> None:
                answers.append(await session.mcp_request("demo", "ping"))
            tg.start_soon(ask)
            await cli.wait_for(lambda: len(cli.requests("mcp_message")) == 1)
            (sent,) = cli.requests("mcp_message")
            jsonrpc_id = sent["request"]["message"]["id"]
            await cli.send({"type": "control_response", "response": {
                "subtype": "success", "request_id": sent["request_id"]}})
            await cli.mcp("back", {"jsonrpc": "2.0", "id": jsonrpc_id, "result": {}})
        await cli.wait_for(lambda: "back" in cli.answers())
    assert answers == [{"jsonrpc": "2.0", "id": jsonrpc_id, "result": {}}]
    assert cli.answer("back")["response"] == {"mcp_response": {"jsonrpc": "2.0", "result": {}}}


async def test_a_request_id_reused_while_in_flight_is_refused_and_never_orphaned() -> None:
    # red team runner5 R1: a second request under the id of one still running replaced it
    # in the table of requests; the first could then be neither withdrawn nor cancelled at
    # end of input (the session waited for it for ever), and the same id sent again and
    # again escaped the limit of requests in flight.
    blocker = Blocker()
    async with running_session(servers(blocker)) as (session, cli):
        await cli.mcp("dup", call(1, "first"))
        await blocker.wait_started(1)
        for i in range(3):
            await cli.mcp("dup", call(2 + i, f"again{i}"))
        await cli.wait_for(lambda: len(cli.answers().get("dup", ())) == 3)
        assert all(a["subtype"] == "error" and "already" in a["error"]
                   for a in cli.answers()["dup"])
        assert blocker.started == ["first"] and session.in_flight == 1
        await cli.send({"type": "control_cancel_request", "request_id": "dup"})
        with anyio.fail_after(5):
            while blocker.cancelled != ["first"]:
                await anyio.sleep(0.005)
        await cli.mcp("dup", call(9, "later"))  # free again once the first has ended
        await blocker.wait_started(2)
        with anyio.fail_after(5):
            await cli.close()
            while len(blocker.cancelled) < 2:
                await anyio.sleep(0.005)
    assert session.in_flight == 0


async def test_a_jsonrpc_id_reused_while_its_call_runs_is_refused_and_the_cancel_reaches_it(
) -> None:
    # red team runner6: a second tools/call under the JSON-RPC id of one still running took
    # its place in the core's table; a notifications/cancelled for that id then cancelled
    # the second call (or nothing, when it had ended) and the first ran on, never answered
    blocker = Blocker()
    async with running_session(servers(blocker)) as (session, cli):
        await cli.mcp("first", call(7, "first"))
        await blocker.wait_started(1)
        await cli.mcp("again", call(7, "again"))
        await cli.mcp("other", call(7, "other"), server="other")  # another server's 7: fine
        await cli.wait_for(lambda: "again" in cli.answers())
        refused = cli.answer("again")["response"]["mcp_response"]
        assert refused["id"] == 7 and refused["error"]["code"] == -32600
        assert "in flight" in refused["error"]["message"]
        await blocker.wait_started(2)
        assert blocker.started == ["first", "other"]
        await cli.mcp("cancel", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                 "params": {"requestId": 7}})
        await cli.wait_for(lambda: "first" in cli.answers())
        assert blocker.cancelled == ["first"]
        assert cli.answer("first")["response"]["mcp_response"]["error"]["code"] == -32800
        await cli.mcp("later", call(7, "later"))  # free again once cancelled
        await blocker.wait_started(3)
        assert blocker.started[-1] == "later"
        with anyio.fail_after(5):
            await cli.close()
            while len(blocker.cancelled) < 3:
                await anyio.sleep(0.005)
    assert session.in_flight == 0 and not session._rpc_calls


async def test_notifications_the_cli_never_acks_are_not_remembered_without_end(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # red team runner5 R4: each notification's request_id was kept until its ack came; a
    # CLI that never acks (or a tool reporting progress for hours) grew that table for ever
    async def chatty(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        for i in range(1000):
            await ctx.progress(i, 1000)
        return ToolResult.text("done")

    monkeypatch.setattr(Outbox, "MAX_UNACKED", 100, raising=False)
    servers = {"demo": McpServer("demo", "1", [make_tool("chatty", chatty, schema={})])}
    async with running_session(servers) as (session, cli):
        await cli.mcp("r", {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                            "params": {"name": "chatty", "_meta": {"progressToken": 5}}})
        await cli.wait_for(lambda: "r" in cli.answers(), timeout=20)
        notes = cli.requests("mcp_message")
        assert len(notes) == 1000
        assert len(session._outbox._pending) <= 100
        # the latest are still matched: an error ack is logged, not mistaken
        await cli.send({"type": "control_response", "response": {
            "subtype": "success", "request_id": notes[-1]["request_id"]}})
        await cli.mcp("after", {"jsonrpc": "2.0", "id": 6, "method": "tools/list"})
        await cli.wait_for(lambda: "after" in cli.answers())
        assert notes[-1]["request_id"] not in session._outbox._pending


@pytest.mark.parametrize(("held", "named"), [
    ("5", 5), ("5.0", 5.0), ("None", None), ("True", True), ("[1]", [1]),
    ("{'a': 1}", {"a": 1}), ("False", False)])
async def test_a_control_cancel_request_withdraws_only_the_id_it_names(held: str,
                                                                        named: Any) -> None:
    # runner36 R36-3: the id was compared as str(request_id), so a cancel naming the number
    # 5 (or null, true, [1], ...) withdrew the request "5" ("None", "True", "[1]", ...): that
    # request's task stopped and its answer never came, though the CLI never withdrew it
    blocker = Blocker()
    async with running_session(servers(blocker)) as (session, cli):
        await cli.mcp(held, call(1, "held"))
        await blocker.wait_started(1)
        await cli.send({"type": "control_cancel_request", "request_id": named})
        await cli.mcp("after", call(2, "after", tool="nope"))  # read after the cancel
        await cli.wait_for(lambda: "after" in cli.answers())
        assert blocker.cancelled == [] and session.in_flight == 1
        await cli.mcp("cancel", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                 "params": {"requestId": 1}})
        await cli.wait_for(lambda: held in cli.answers())
    assert cli.answer(held)["response"]["mcp_response"]["error"]["code"] == -32800
