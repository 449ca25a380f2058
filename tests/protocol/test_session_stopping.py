"""The host stopping (a signal) with permission questions open: each ``can_use_tool`` still
waiting for a person is answered with a deny at once, exactly once, before the CLI's stdin
closes (``ControlSession.deny_open_permissions``)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from toolhost.permissions.decision import Decision

from .session_harness import running_session

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


def stopping(tool: str) -> str:
    return f"Nobody answered the question about {tool}: toolhost is stopping (SIGTERM)."


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
        assert session.deny_open_permissions(stopping) == 2
        assert session.deny_open_permissions(stopping) == 0  # never twice
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
        assert session.deny_open_permissions(stopping) == 0  # the signal: nothing open yet
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
