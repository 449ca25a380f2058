"""The host stopping (a signal) with requests open: each is answered at once, exactly once,
before the CLI's stdin closes (``ControlSession.stop``): a ``can_use_tool`` still waiting for
a person with a deny, a tools/call with an error result saying why, any other request with a
JSON-RPC error; one read after the stop began is answered so without being served."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.mcp import McpServer
from toolhost.permissions.decision import Decision
from toolhost.protocol import DEFAULT_MAX_LINE_BYTES, ControlSession
from toolhost.protocol.open_requests import StoppedRequest
from toolhost.protocol.pipes import PipeLines
from toolhost.results import ToolResult

from .session_harness import FakeCLI, byte_pipe, make_tool, running_session

pytestmark = pytest.mark.anyio


class Person:
    """A permission function that waits for an answer (a question at the terminal)."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.answer = anyio.Event()
        self.cancelled: list[str] = []

    async def __call__(self, tool_name: str, tool_input: dict[str, Any],
                       request: dict[str, Any]) -> Decision:
        self.asked.append(request.get("tool_use_id", ""))
        try:
            await self.answer.wait()
        except anyio.get_cancelled_exc_class():
            self.cancelled.append(request.get("tool_use_id", ""))
            raise
        return Decision("allow", answered_by="person")

    async def wait_asked(self, n: int) -> None:
        with anyio.fail_after(5):
            while len(self.asked) < n:
                await anyio.sleep(0.01)


def ask(tool_use_id: str, tool: str = "mcp__demo__greet") -> dict[str, Any]:
    return {"subtype": "can_use_tool", "tool_name": tool, "input": {"name": "x"},
            "tool_use_id": tool_use_id}


WHY = "toolhost is stopping (SIGTERM)"


def stopping(tool: str) -> str:
    return f"Nobody answered the question about {tool}: {WHY}."


async def test_open_questions_are_denied_once_when_the_host_stops() -> None:
    person = Person()
    async with running_session(permission=person) as (session, cli):
        await cli.request("q1", ask("t1"))
        await cli.request("q2", ask("t2", "Bash"))
        await cli.request("gone", ask("t3"))
        await person.wait_asked(3)
        await cli.send({"type": "control_cancel_request", "request_id": "gone"})
        with anyio.fail_after(5):
            while "t3" not in person.cancelled:
                await anyio.sleep(0.01)
        assert [s.request_id for s in session.stop(WHY, stopping)] == ["q1", "q2"]
        assert session.stop(WHY, stopping) == []  # never twice
        await cli.wait_for(lambda: {"q1", "q2"} <= cli.answers().keys())
        person.answer.set()  # the person answers after all: too late, not sent
    # the session has ended and the CLI read all it wrote
    assert cli.answers()["q1"] == [{"subtype": "success", "request_id": "q1", "response": {
            "behavior": "deny", "message": stopping("mcp__demo__greet")}}]
    assert cli.answers()["q2"][0]["response"]["message"] == stopping("Bash")
    assert len(cli.answers()["q2"]) == 1
    assert "gone" not in cli.answers()  # withdrawn by the CLI: no answer, as before


async def test_a_question_opened_as_the_host_stops_is_denied_when_it_is_cancelled() -> None:
    person = Person()
    async with running_session(permission=person) as (session, cli):
        assert session.stop(WHY, stopping) == []  # the signal: nothing open yet
        await cli.request("late", ask("t1"))
        await person.wait_asked(1)
        await session.aclose()  # the session is cancelled: the question ends unanswered
        await cli.wait_for(lambda: "late" in cli.answers())
        assert cli.answer("late")["response"] == {"behavior": "deny",
                                                  "message": stopping("mcp__demo__greet")}


async def test_without_a_stop_a_cancelled_question_is_not_answered() -> None:
    person = Person()
    async with running_session(permission=person) as (session, cli):
        await cli.request("q", ask("t1"))
        await person.wait_asked(1)
        await session.aclose()
    assert "q" not in cli.answers() and person.cancelled == ["t1"]  # all read: none came


class Slow:
    """A tool that runs until it is cancelled (or ``done`` is set), noting both."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.cancelled: list[str] = []
        self.done = anyio.Event()

    async def __call__(self, arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        self.started.append(arguments["name"])
        try:
            await self.done.wait()
        except anyio.get_cancelled_exc_class():
            self.cancelled.append(arguments["name"])
            raise
        return ToolResult.text("finished")

    async def wait_started(self, n: int) -> None:
        with anyio.fail_after(5):
            while len(self.started) < n:
                await anyio.sleep(0.01)


def call(jsonrpc_id: int, name: str, tool: str = "slow") -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": jsonrpc_id, "method": "tools/call", "params": {
        "name": tool, "arguments": {"name": name},
        "_meta": {"claudecode/toolUseId": f"toolu_{name}"}}}


CUT_SHORT = ("The call was cancelled before it ended: toolhost is stopping (SIGTERM). "
             "It may have done part of its work.")


def cut_short(jsonrpc_id: int) -> dict[str, Any]:
    return {"mcp_response": {"jsonrpc": "2.0", "id": jsonrpc_id, "result": {
        "content": [{"type": "text", "text": CUT_SHORT}], "isError": True}}}


def slow_server(slow: Slow) -> dict[str, McpServer]:
    return {"demo": McpServer("demo", "1.0.0", [make_tool("slow", slow)])}


async def test_tool_calls_in_flight_get_an_error_result_once_when_the_host_stops() -> None:
    slow = Slow()
    noted: list[StoppedRequest] = []
    async with running_session(slow_server(slow)) as (session, cli):
        await cli.mcp("c1", call(1, "a"))
        await cli.mcp("c2", call(2, "b"))
        await slow.wait_started(2)
        stopped = session.stop(WHY, on_stopped=noted.append)
        # written at once, before anything is cancelled: the tools are still running
        await cli.wait_for(lambda: {"c1", "c2"} <= cli.answers().keys())
        assert slow.cancelled == []
        slow.done.set()  # they finish after all: their own answers are not sent
        await anyio.sleep(0.05)
    assert cli.answers()["c1"] == [{"subtype": "success", "request_id": "c1",
                                    "response": cut_short(1)}]
    assert cli.answer("c2")["response"] == cut_short(2)
    assert stopped == noted
    assert [(s.kind, s.tool, dict(s.arguments), s.tool_use_id, s.message, s.started)
            for s in stopped] == [
        ("call", "mcp__demo__slow", {"name": "a"}, "toolu_a", CUT_SHORT, True),
        ("call", "mcp__demo__slow", {"name": "b"}, "toolu_b", CUT_SHORT, True)]


def error_result(jsonrpc_id: int, text: str) -> dict[str, Any]:
    return {"mcp_response": {"jsonrpc": "2.0", "id": jsonrpc_id, "result": {
        "content": [{"type": "text", "text": text}], "isError": True}}}


async def test_a_tool_call_read_after_the_stop_is_answered_and_never_started() -> None:
    # it was told it "may have done part of its work": it never started
    slow = Slow()
    noted: list[StoppedRequest] = []
    async with running_session(slow_server(slow)) as (session, cli):
        assert session.stop(WHY, on_stopped=noted.append) == []
        await cli.mcp("late", call(7, "c"))
        await cli.wait_for(lambda: "late" in cli.answers())
    assert cli.answer("late")["response"] == error_result(
        7, "The call was not started: toolhost is stopping (SIGTERM).")
    assert slow.started == [] and [(s.request_id, s.started) for s in noted] == [("late", None)]


async def test_a_tool_call_still_at_its_question_is_denied_as_the_question_is() -> None:
    # the second lock asks a person at tools/call time (the CLI did not ask first); the stop
    # came while the question was open: the call never started, and says so
    slow = Slow()
    person = anyio.Event()
    asked: list[str] = []

    async def guard(tool: Any, arguments: Mapping[str, Any],
                    ctx: CallContext) -> ToolResult | None:
        asked.append(arguments["name"])
        await person.wait()
        return None

    servers = {"demo": McpServer("demo", "1.0.0", [make_tool("slow", slow)], guard=guard)}
    noted: list[StoppedRequest] = []
    async with running_session(servers) as (session, cli):
        await cli.mcp("c1", call(1, "a"))
        with anyio.fail_after(5):
            while not asked:
                await anyio.sleep(0.01)
        session.stop(WHY, stopping, on_stopped=noted.append)
        await cli.wait_for(lambda: "c1" in cli.answers())
        person.set()  # answered after all: too late, the tool never runs
        await anyio.sleep(0.05)
    assert cli.answers()["c1"] == [{"subtype": "success", "request_id": "c1",
                                    "response": error_result(1, stopping("mcp__demo__slow"))}]
    assert [(s.kind, s.started) for s in noted] == [("call", False)]
    assert slow.started == []


@pytest.mark.parametrize(("message", "response"), [
    ({"jsonrpc": "2.0", "id": "r", "method": "resources/read", "params": {"uri": "x://y"}},
     {"mcp_response": {"jsonrpc": "2.0", "id": "r", "error": {
         "code": -32603, "message": CUT_SHORT}}}),
    ({"jsonrpc": "2.0", "method": "notifications/initialized"},
     {"mcp_response": {"jsonrpc": "2.0", "result": {}}}),
], ids=["request", "notification"])
async def test_other_mcp_messages_read_after_the_stop_get_their_one_answer(
        message: dict[str, Any], response: dict[str, Any]) -> None:
    async with running_session() as (session, cli):
        session.stop(WHY)
        await cli.mcp("m", message)
        await cli.wait_for(lambda: "m" in cli.answers())
    assert cli.answer("m")["response"] == response


async def test_a_tool_call_the_cli_withdrew_gets_no_answer_at_the_stop() -> None:
    slow = Slow()
    async with running_session(slow_server(slow)) as (session, cli):
        await cli.mcp("gone", call(1, "a"))
        await slow.wait_started(1)
        await cli.send({"type": "control_cancel_request", "request_id": "gone"})
        with anyio.fail_after(5):
            while "a" not in slow.cancelled:
                await anyio.sleep(0.01)
        assert session.stop(WHY) == []
    assert "gone" not in cli.answers()


async def test_a_call_the_cli_cancels_after_the_stop_keeps_its_one_answer() -> None:
    # the CLI's notifications/cancelled read after the stop answered the call: acked, never
    # a second answer (-32800) for the call
    slow = Slow()
    async with running_session(slow_server(slow)) as (session, cli):
        await cli.mcp("c1", call(1, "a"))
        await slow.wait_started(1)
        session.stop(WHY)
        await cli.mcp("n", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                            "params": {"requestId": 1}})
        await cli.wait_for(lambda: {"c1", "n"} <= cli.answers().keys())
        slow.done.set()
        await anyio.sleep(0.05)
    assert cli.answer("c1")["response"] == cut_short(1)
    assert cli.answer("n")["response"] == {"mcp_response": {"jsonrpc": "2.0", "result": {}}}


async def test_a_call_cancelled_just_before_the_stop_is_answered_once() -> None:
    # notifications/cancelled served, the tool still cleaning up (a process group being
    # killed) when the stop answers the call: the -32800 that followed was a second answer
    cleaning = anyio.Event()

    async def tidy(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        try:
            await anyio.sleep_forever()
        finally:
            with anyio.CancelScope(shield=True):
                cleaning.set()
                await stopped.wait()
        return ToolResult.text("never")

    stopped = anyio.Event()
    servers = {"demo": McpServer("demo", "1.0.0", [make_tool("slow", tidy)])}
    async with running_session(servers) as (session, cli):
        await cli.mcp("c1", call(1, "a"))
        await cli.mcp("n", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                            "params": {"requestId": 1}})
        with anyio.fail_after(5):
            await cleaning.wait()
        assert [s.request_id for s in session.stop(WHY)] == ["c1"]
        stopped.set()
        await cli.wait_for(lambda: "c1" in cli.answers())
        await anyio.sleep(0.05)
    assert cli.answers()["c1"] == [{"subtype": "success", "request_id": "c1",
                                    "response": cut_short(1)}]


def request_line(request_id: str, request: Mapping[str, Any]) -> bytes:
    return (json.dumps({"type": "control_request", "request_id": request_id,
                        "request": dict(request)}) + "\n").encode()


async def test_requests_the_cli_wrote_before_the_stop_are_answered_though_never_read() -> None:
    # The CLI wrote a second question and a tool call just before the signal; the event loop
    # had not read them yet. The stop answered only what was being served: the CLI waited
    # for the others until its stdin closed (a flaky CI run of a two-question hang-up).
    person, slow, noted, told = Person(), Slow(), [], []
    read_fd, write_fd = os.pipe()
    session_out, cli_in = byte_pipe()
    unused_out, unused_in = byte_pipe()  # (this CLI writes into the OS pipe itself)
    cli = FakeCLI(unused_out, cli_in)

    async def on_message(message: dict[str, Any]) -> None:
        told.append(message)

    session_in = await PipeLines.open(read_fd, DEFAULT_MAX_LINE_BYTES)
    session = ControlSession(session_in, session_out, servers=slow_server(slow), permission=person,
                             on_message=on_message)
    async with anyio.create_task_group() as tg:
        tg.start_soon(cli.collect)
        tg.start_soon(session.run)
        os.write(write_fd, request_line("q1", ask("t1")))
        await person.wait_asked(1)
        os.write(write_fd, request_line("q2", ask("t2")) + b'{"type": "user"}\n'
                 + request_line("c", {"subtype": "mcp_message", "server_name": "demo",
                                      "message": call(7, "c")}) + b'{"type": "contr')
        # no pause between the writes and the stop: nothing of them read by the loop
        stopped = session.stop(WHY, stopping, on_stopped=noted.append)
        assert [(s.request_id, s.kind, s.started) for s in stopped] == [
            ("q1", "permission", False), ("q2", "permission", None), ("c", "call", None)]
        assert [(s.request_id, s.tool, s.tool_use_id) for s in noted[1:]] == [
            ("q2", "mcp__demo__greet", "t2"), ("c", "mcp__demo__slow", "toolu_c")]
        os.close(write_fd)  # the CLI's output ends: the session stops by itself
        await cli.wait_for(lambda: {"q1", "q2", "c"} <= cli.answers().keys())
        with anyio.fail_after(5):
            while not told:  # the line between them is still read, as it came
                await anyio.sleep(0.01)
        await session_out.aclose()
        await unused_out.aclose()
        await unused_in.aclose()
        session_in.aclose()
    assert cli.answer("q2")["response"] == {"behavior": "deny",
                                            "message": stopping("mcp__demo__greet")}
    assert cli.answer("c")["response"] == error_result(
        7, "The call was not started: toolhost is stopping (SIGTERM).")
    assert person.asked == ["t1"] and slow.started == [] and told == [{"type": "user"}]
    assert len(cli.answers()["q1"]) == 1
