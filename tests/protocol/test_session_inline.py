"""Lines served as they arrive (``PipeLines`` + ``ControlSession._take_line``).

Each test runs over in-memory streams and over real OS pipes (tests/protocol/conftest.py):
the answers must be the same either way; over pipes, a permission with ``decide_now`` is
asked without a pause, and the slow path is kept for what needs one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.ask import FixedAsker
from toolhost.permissions.audit import AuditLog
from toolhost.permissions.decision import Decision
from toolhost.permissions.gate import PermissionGate

from . import session_harness
from .session_harness import running_session

pytestmark = pytest.mark.anyio


def can_use(rid: str, name: str, tool: str = "mcp__demo__greet") -> dict[str, Any]:
    return {"subtype": "can_use_tool", "tool_name": tool, "input": {"name": name},
            "tool_use_id": f"toolu_{rid}"}


class Policy:
    """A permission function that can also decide without a pause; records which way."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def _decide(self, name: str) -> Decision:
        if name == "Mallory":
            return Decision("deny", message="Not Mallory.")
        if name == "alice":
            return Decision("allow", updated_input={"name": "Alice"})
        if name == "Crash":
            raise RuntimeError("policy file vanished")
        if name == "Ask":
            return Decision("ask")
        return Decision("allow")

    async def __call__(self, tool_name: str, tool_input: dict[str, Any],
                       request: dict[str, Any]) -> Decision:
        self.events.append(("awaited", tool_input["name"]))
        decision = self._decide(tool_input["name"])
        if decision.behavior == "ask":
            await anyio.sleep(0.01)  # a person answering
            return Decision("deny", message="A person said no.")
        return decision

    def decide_now(self, tool_name: str, tool_input: dict[str, Any],
                   request: dict[str, Any]) -> Decision | None:
        self.events.append(("now", tool_input["name"]))
        decision = self._decide(tool_input["name"])
        return None if decision.behavior == "ask" else decision


async def test_the_same_answers_with_or_without_a_pause(_transport: str) -> None:
    policy = Policy()
    names = {"a": "Bob", "d": "Mallory", "w": "alice", "c": "Crash", "q": "Ask"}
    async with running_session(permission=policy) as (_, cli):
        # The first line may come before the session waits for one (it then queues);
        # from the second on, a line comes to a waiting session.
        await cli.request("first", can_use("first", "Bob"))
        await cli.wait_for(lambda: "first" in cli.answers())
        del policy.events[:]
        for rid, name in names.items():
            await cli.request(rid, can_use(rid, name))
            await cli.wait_for(lambda rid=rid: rid in cli.answers())  # one at a time
    assert cli.answer("a")["response"] == {"behavior": "allow",
                                           "updatedInput": {"name": "Bob"}}
    assert cli.answer("d")["response"] == {"behavior": "deny", "message": "Not Mallory."}
    assert cli.answer("w")["response"] == {"behavior": "allow",
                                           "updatedInput": {"name": "Alice"}}
    assert cli.answer("c")["subtype"] == "error"
    assert "policy file vanished" in cli.answer("c")["error"]
    assert cli.answer("q")["response"] == {"behavior": "deny", "message": "A person said no."}
    if _transport == "pipes":  # decided on arrival; only the "ask" was awaited after
        assert policy.events == [("now", "Bob"), ("now", "Mallory"), ("now", "alice"),
                                 ("now", "Crash"), ("now", "Ask"), ("awaited", "Ask")]
    else:
        assert [way for way, _ in policy.events] == ["awaited"] * 5


async def test_a_decision_never_overtakes_the_messages_sent_before_it() -> None:
    policy = Policy()
    seen: list[str] = []

    async def on_message(message: dict[str, Any]) -> None:
        seen.append(message["type"])
        await anyio.sleep(0.01)  # a slow screen: the request behind it must wait
        seen.append(f"{message['type']} shown")

    async with running_session(permission=policy, on_message=on_message) as (_, cli):
        await cli.send_raw(b"".join(
            (json.dumps(line) + "\n").encode() for line in (
                {"type": "assistant", "message": {"content": []}},
                {"type": "control_request", "request_id": "p", "request": can_use("p", "Bob")},
                {"type": "system", "subtype": "x"},
                {"type": "control_request", "request_id": "r",
                 "request": can_use("r", "Ann")})))
        await cli.wait_for(lambda: {"p", "r"} <= cli.answers().keys())
    assert seen == ["assistant", "assistant shown", "system", "system shown"]
    assert [name for _, name in policy.events] == ["Bob", "Ann"]


async def test_the_audit_record_is_on_file_before_the_answer(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    rules = (RuleConfig("allow", "mcp__demo__greet", origin=Origin("p.yaml", 3),
                        when={"name": "Bob"}),)
    gate = PermissionGate(compile_policy(PermissionsConfig(default="deny", rules=rules)),
                          FixedAsker("deny", answered_by="test"), AuditLog(str(log)))

    class Gate:
        async def __call__(self, name: str, tool_input: dict[str, Any],
                           request: dict[str, Any]) -> Decision:
            return await gate.check(name, tool_input, request)

        def decide_now(self, name: str, tool_input: dict[str, Any],
                       request: dict[str, Any]) -> Decision | None:
            return gate.check_now(name, tool_input, request)

    on_file: dict[str, int] = {}
    async with running_session(permission=Gate()) as (_, cli):
        for i in range(20):
            rid = f"r{i}"
            await cli.request(rid, can_use(rid, "Bob" if i % 2 else "Eve"))
            await cli.wait_for(lambda rid=rid: rid in cli.answers())
            on_file[rid] = len(log.read_text().splitlines())
    gate.close()
    assert on_file == {f"r{i}": i + 1 for i in range(20)}
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["decision"] for r in records] == ["deny", "allow"] * 10
    assert {r["tool_use_id"] for r in records} == {f"toolu_r{i}" for i in range(20)}


async def test_a_peer_that_stops_reading_gets_every_answer_when_it_reads_again() -> None:
    # 3,000 permission requests of 2 KB while the CLI reads none of the answers (its pipe
    # and the session's buffer fill up): the session stops taking more instead of holding
    # unbounded answers, and once the CLI reads, every request has exactly one answer.
    policy = Policy()
    pad = "x" * 2000
    count = 3000

    async def flood(cli: session_harness.FakeCLI) -> None:
        for i in range(count):
            request = can_use(f"f{i}", "Bob")
            request["input"]["pad"] = pad
            await cli.request(f"f{i}", request)

    async with running_session(permission=policy) as (session, cli):
        cli.hold()
        await flood(cli)
        with anyio.move_on_after(0.5):  # let it answer what it can into the full pipe
            while session.in_flight:
                await anyio.sleep(0.01)
        cli.release()
        await cli.wait_for(lambda: len(cli.answers()) == count, timeout=60)
    answers = cli.answers()
    assert all(len(answers[f"f{i}"]) == 1 for i in range(count))


async def test_past_the_in_flight_limit_requests_are_refused_at_once_then_served_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Memory stays bounded: requests past the limit are answered with an error at once
    # (the CLI is never left waiting); those admitted finish; then new ones are admitted.
    from toolhost.backends.base import CallContext
    from toolhost.mcp import McpServer
    from toolhost.protocol import tasks
    from toolhost.results import ToolResult

    from .session_harness import make_tool

    monkeypatch.setattr(tasks, "MAX_IN_FLIGHT", 5)
    gate = anyio.Event()

    async def held(arguments: Any, ctx: CallContext) -> ToolResult:
        await gate.wait()
        return ToolResult.text(f"Hello, {arguments['name']}!")

    def call(i: int) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": "greet", "arguments": {"name": f"n{i}"}}}

    servers = {"demo": McpServer("demo", "1.0.0", [make_tool(invoke=held)])}
    async with running_session(servers) as (session, cli):
        for i in range(12):
            await cli.mcp(f"c{i}", call(i))
        await cli.wait_for(lambda: len(cli.answers()) == 7)
        assert session.in_flight == 5
        refused = {rid for rid, answers in cli.answers().items()
                   if answers[0]["subtype"] == "error"}
        assert len(refused) == 7
        assert "the limit is 5 requests" in cli.answer(sorted(refused)[0])["error"]
        gate.set()
        await cli.wait_for(lambda: len(cli.answers()) == 12)
        await cli.mcp("later", call(99))
        await cli.wait_for(lambda: "later" in cli.answers())
    assert cli.answer("later")["subtype"] == "success"
    served = [rid for rid, answers in cli.answers().items() if answers[0]["subtype"] == "success"]
    assert len(served) == 6 and all(len(a) == 1 for a in cli.answers().values())


class ShowingPolicy(Policy):
    """A ``decide_now`` permission that shows its decisions in ``after_answer``."""

    def __init__(self, crash: bool = False) -> None:
        super().__init__()
        self.crash = crash
        self._unshown: list[str] = []

    def decide_now(self, tool_name: str, tool_input: dict[str, Any],
                   request: dict[str, Any]) -> Decision | None:
        decision = super().decide_now(tool_name, tool_input, request)
        if decision is not None:
            self._unshown.append(tool_input["name"])
        return decision

    def after_answer(self) -> None:
        while self._unshown:
            self.events.append(("shown", self._unshown.pop(0)))
        if self.crash:
            raise RuntimeError("the screen is gone")


@pytest.mark.parametrize("crash", [False, True])
async def test_a_decision_made_on_arrival_is_shown_after_its_answer_once(
        _transport: str, crash: bool) -> None:
    # Shown in the same turn of the loop as the answer went out (no turn spent on the
    # screen); a failing screen never gets the request served (decided, audited) twice.
    policy = ShowingPolicy(crash)
    async with running_session(permission=policy) as (_, cli):
        await cli.request("first", can_use("first", "Bob"))
        await cli.wait_for(lambda: "first" in cli.answers())
        del policy.events[:]
        for rid, name in (("a", "Bob"), ("d", "Mallory"), ("q", "Ask"), ("b", "Ann")):
            await cli.request(rid, can_use(rid, name))
            await cli.wait_for(lambda rid=rid: rid in cli.answers())
    answers = cli.answers()
    assert all(len(answers[rid]) == 1 for rid in ("a", "d", "q", "b"))
    assert cli.answer("d")["response"] == {"behavior": "deny", "message": "Not Mallory."}
    if _transport == "pipes":
        assert policy.events == [("now", "Bob"), ("shown", "Bob"), ("now", "Mallory"),
                                 ("shown", "Mallory"), ("now", "Ask"), ("awaited", "Ask"),
                                 ("now", "Ann"), ("shown", "Ann")]
    else:
        assert [way for way, _ in policy.events] == ["awaited"] * 4


class AskingPolicy(Policy):
    """Names starting with "Ask" are asked (a person answers). Recorded: each request as the
    permission function begins it (before any pause: where ``RunnerGate`` takes its place in
    line) and each decision made at once as ``after_answer`` shows it."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []
        self._unshown: list[str] = []

    def _decide(self, name: str) -> Decision:
        return Decision("ask") if name.startswith("Ask") else super()._decide(name)

    async def __call__(self, tool_name: str, tool_input: dict[str, Any],
                       request: dict[str, Any]) -> Decision:
        self.seen.append(tool_input["name"])
        return await super().__call__(tool_name, tool_input, request)

    def decide_now(self, tool_name: str, tool_input: dict[str, Any],
                   request: dict[str, Any]) -> Decision | None:
        decision = super().decide_now(tool_name, tool_input, request)
        if decision is not None:
            self._unshown.append(tool_input["name"])
        return decision

    def after_answer(self) -> None:
        self.seen.extend(self._unshown)
        self._unshown.clear()


@pytest.mark.parametrize("names", [["Ask", "Ask2"], ["Ask", "Bob"], ["Ask", "Ask2", "Bob"],
                                   ["Bob", "Ask", "Ann", "Ask2"]],
                         ids=["two-questions", "question-then-allow", "three", "mixed"])
async def test_requests_read_together_reach_the_person_in_the_order_they_came(
        _transport: str, names: list[str]) -> None:
    # R24-6: a request with nothing behind it began at once, one with a line behind it a
    # turn later: two questions read together were asked last-first, and a call decided at
    # once showed its decision before the question about a call read ahead of it
    policy = AskingPolicy()
    async with running_session(permission=policy) as (_, cli):
        await cli.request("first", can_use("first", "Bob"))
        await cli.wait_for(lambda: "first" in cli.answers())
        del policy.seen[:]
        await cli.send_raw(b"".join(
            (json.dumps({"type": "control_request", "request_id": f"r{i}",
                         "request": can_use(f"r{i}", name)}) + "\n").encode()
            for i, name in enumerate(names)))
        await cli.wait_for(lambda: {f"r{i}" for i in range(len(names))} <= cli.answers().keys())
    assert policy.seen == names
    assert all(len(cli.answers()[f"r{i}"]) == 1 for i in range(len(names)))  # one answer each
