"""The second lock (``RunnerGate.guard``): a tools/call of a toolhost tool runs as it is only
when the CLI asked ``can_use_tool`` about that very call and was answered allow; any other
call is decided again when it arrives, as if the CLI had asked."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile.tool import CompiledTool
from toolhost.host import Host, load_host
from toolhost.permissions import PermissionGate, second_lock
from toolhost.permissions.decision import Decision
from toolhost.runner.gate import RunnerGate

pytestmark = pytest.mark.anyio

CONFIG = """\
toolhost: 1
servers:
  kb:
    tools:
      note:
        command: [echo, "{{ text }}"]
        params: {text: {type: string}}
permissions:
  default: ask
  allow:
    - tool: mcp__kb__note
      when: {text: {glob: "ok*"}}
    - tool: mcp__kb__note
      when: {text: big}
      rewrite: {set: {text: small}}
  deny:
    - tool: mcp__kb__note
      when: {text: bad}
      message: bad notes are refused
"""


class Person:
    """Answers every question allow, and counts them."""

    def __init__(self) -> None:
        self.asked: list[Mapping[str, Any]] = []

    async def ask(self, tool_name: str, tool_input: Mapping[str, Any],
                  decision: Decision) -> Decision:
        self.asked.append(dict(tool_input))
        return Decision("allow", rule=decision.rule, answered_by="person")


class Screen:
    def __init__(self) -> None:
        self.shown: list[tuple[str, str]] = []

    def decision(self, tool_name: str, decision: Decision, *,
                 tool_use_id: str | None = None) -> None:
        self.shown.append((tool_name, decision.behavior))

    def message(self, message: Mapping[str, Any]) -> None: ...
    def status(self, text: str) -> None: ...
    def close(self) -> None: ...


@pytest.fixture
def host(tmp_path: Path) -> Host:
    (tmp_path / "kb.yaml").write_text(CONFIG)
    return load_host(tmp_path / "kb.yaml", layers=False)


@pytest.fixture
def person() -> Person:
    return Person()


@pytest.fixture
def runner_gate(host: Host, person: Person) -> RunnerGate:
    gate = PermissionGate(host.policy, person)
    return RunnerGate(gate, Screen())


def tool(host: Host) -> CompiledTool:
    return host.servers["kb"].tools[0]


def ctx(tool_use_id: str = "") -> CallContext:
    return CallContext(call_id="1", tool="mcp__kb__note", tool_use_id=tool_use_id)


async def asked(gate: RunnerGate, text: str, tool_use_id: str = "toolu_1") -> Decision:
    """The CLI's can_use_tool, as the control session hands it on."""
    return await gate("mcp__kb__note", {"text": text}, {"tool_use_id": tool_use_id})


async def test_the_call_the_cli_asked_about_runs_as_allowed(
        host: Host, runner_gate: RunnerGate, person: Person) -> None:
    assert (await asked(runner_gate, "hello")).behavior == "allow"  # the person said yes
    assert await runner_gate.guard(tool(host), {"text": "hello"}, ctx("toolu_1")) is None
    assert len(person.asked) == 1  # not asked twice
    # the allow was for one call: the same id again is decided again (and asked)
    assert await runner_gate.guard(tool(host), {"text": "hello"}, ctx("toolu_1")) is None
    assert len(person.asked) == 2


async def test_a_call_with_another_input_than_allowed_is_decided_again(
        host: Host, runner_gate: RunnerGate, person: Person) -> None:
    assert (await asked(runner_gate, "ok")).behavior == "allow"  # a rule, nobody asked
    refused = await runner_gate.guard(tool(host), {"text": "bad"}, ctx("toolu_1"))
    assert refused is not None and refused.is_error
    assert "bad notes are refused" in refused.to_mcp()["content"][0]["text"]
    # another tool's allow does not carry over either
    runner_gate._noted("mcp__kb__other", {"text": "bad"}, {"tool_use_id": "toolu_2"},
                       Decision("allow"))
    refused = await runner_gate.guard(tool(host), {"text": "bad"}, ctx("toolu_2"))
    assert refused is not None and refused.is_error
    assert person.asked == []


@pytest.mark.parametrize("tool_use_id", ["", "toolu_never_asked"])
async def test_a_call_the_cli_never_asked_about_meets_every_rule(
        host: Host, runner_gate: RunnerGate, person: Person, tool_use_id: str) -> None:
    refused = await runner_gate.guard(tool(host), {"text": "bad"}, ctx(tool_use_id))
    assert refused is not None and refused.is_error
    assert await runner_gate.guard(tool(host), {"text": "ok go"}, ctx(tool_use_id)) is None
    assert person.asked == []
    # an ask: the person is asked now, since the CLI did not
    assert await runner_gate.guard(tool(host), {"text": "hmm"}, ctx(tool_use_id)) is None
    assert person.asked == [{"text": "hmm"}]
    # an allow that rewrites: the tool runs with the rewritten input
    rewritten = await runner_gate.guard(tool(host), {"text": "big"}, ctx(tool_use_id))
    assert rewritten is not None and not rewritten.is_error
    assert rewritten.to_mcp()["content"][0]["text"].strip() == "small"
    assert ("mcp__kb__note", "deny") in runner_gate.renderer.shown  # type: ignore[attr-defined]


async def test_a_rewritten_allow_matches_the_call_with_the_rewritten_input(
        host: Host, runner_gate: RunnerGate, person: Person) -> None:
    decision = await asked(runner_gate, "big")
    assert decision.updated_input == {"text": "small"}
    assert await runner_gate.guard(tool(host), {"text": "small"}, ctx("toolu_1")) is None
    assert person.asked == []


async def test_allows_never_called_for_are_bounded(
        runner_gate: RunnerGate, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(second_lock, "MAX_NOTED", 10)
    for n in range(25):
        await asked(runner_gate, "ok", tool_use_id=f"toolu_{n}")
    assert runner_gate.noted.ids() == [f"toolu_{n}" for n in range(15, 25)]


@pytest.mark.parametrize("odd_id", [1, 1.5, True, None, ["toolu_1"], {"id": "toolu_1"},
                                    "", "toolu_" + "x" * 100_000, "toolu_\ud800"])
async def test_an_odd_tool_use_id_on_the_wire_is_decided_by_the_rules(
        host: Host, runner_gate: RunnerGate, person: Person, odd_id: Any) -> None:
    """Whatever `_meta["claudecode/toolUseId"]` holds, a call that does not name a noted
    allow exactly is decided when it arrives: never matched loosely, never a crash."""
    core = host.servers["kb"]
    core.guard = runner_gate.guard
    assert (await asked(runner_gate, "ok")).behavior == "allow"  # noted as toolu_1

    async def call(text: str) -> dict[str, Any]:
        answer = await core.handle({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                    "params": {"name": "note", "arguments": {"text": text},
                                               "_meta": {"claudecode/toolUseId": odd_id}}})
        assert answer is not None and "result" in answer, answer
        result: dict[str, Any] = answer["result"]
        return result

    refused = await call("bad")
    assert refused["isError"] and "bad notes are refused" in refused["content"][0]["text"]
    assert (await call("ok then"))["isError"] is False
    assert person.asked == []
    assert "toolu_1" in runner_gate.noted.ids()  # a look-alike id did not spend the real note


async def test_decisions_made_on_arrival_are_shown_by_after_answer_in_order(
        runner_gate: RunnerGate, person: Person) -> None:
    # The session writes the CLI's answer, then calls after_answer: the screen shows each
    # decision once, in order, and an "ask" (None: decided later, by awaiting) shows nothing
    screen = runner_gate.renderer
    assert isinstance(screen, Screen)
    for i, text in enumerate(("ok 1", "bad", "who knows", "ok 2")):
        runner_gate.decide_now("mcp__kb__note", {"text": text}, {"tool_use_id": f"t{i}"})
    assert screen.shown == []  # nothing before the answers are out
    runner_gate.after_answer()
    assert screen.shown == [("mcp__kb__note", "allow"), ("mcp__kb__note", "deny"),
                            ("mcp__kb__note", "allow")]
    runner_gate.after_answer()
    assert len(screen.shown) == 3 and person.asked == []


async def test_a_read_the_cli_asked_about_is_not_asked_again(
        runner_gate: RunnerGate, person: Person) -> None:
    """Under ``run`` the CLI asks ``can_use_tool`` about ``ReadMcpResourceTool`` and then
    sends ``resources/read``: the read guard claims that allow (one question, not two), once
    per allow, for that server and that URI only, and only a URI with no other form."""
    from toolhost.serve.guard import read_guard

    guard = read_guard(runner_gate.gate, "kb", claim=runner_gate.reads.claim)

    async def asked_read(uri: str, server: str = "kb") -> str:
        decision = await runner_gate("ReadMcpResourceTool", {"server": server, "uri": uri},
                                     {"tool_use_id": "toolu_r"})
        return decision.behavior

    assert await asked_read("docs://kb/a.md") == "allow"  # default ask: the person said yes
    assert await guard("docs://kb/a.md") is None
    assert len(person.asked) == 1
    assert await guard("docs://kb/a.md") is None  # one read per allow: asked again
    assert len(person.asked) == 2
    for uri, server in (("docs://kb/b.md", "other"), ("docs://kb/b%20c.md", "kb")):
        assert await asked_read(uri, server) == "allow"
        before = len(person.asked)
        assert await guard(uri) is None  # another server's allow, or a URI of two forms
        assert len(person.asked) > before
    assert len(runner_gate.reads) == 2  # neither allow was claimed: both still noted


@pytest.mark.parametrize("tool_input", [
    {"server": "kb"}, {"server": "kb", "uri": 1}, {"server": ["kb"], "uri": "x"},
    {"server": "kb", "uri": "x", "extra": 1}, {"server": "kb", "uri": "x" * 5000}])
def test_only_a_plain_read_is_noted(tool_input: dict[str, Any]) -> None:
    reads = second_lock.NotedReads()
    reads.note("ReadMcpResourceTool", tool_input, Decision("allow"))
    reads.note("ReadMcpResourceTool", {"server": "kb", "uri": "y"}, Decision("deny"))
    reads.note("mcp__kb__note", {"server": "kb", "uri": "y"}, Decision("allow"))
    assert len(reads) == 0 and not reads.claim("kb", "x") and not reads.claim("kb", "y")


def test_noted_reads_are_bounded() -> None:
    reads = second_lock.NotedReads()
    for k in range(second_lock.MAX_NOTED + 10):
        reads.note("ReadMcpResourceTool", {"server": "kb", "uri": f"u{k}"}, Decision("allow"))
    assert len(reads) == second_lock.MAX_NOTED
    assert not reads.claim("kb", "u0") and reads.claim("kb", f"u{second_lock.MAX_NOTED + 9}")


async def test_an_allow_noted_under_rules_a_reload_replaced_is_decided_again(
        host: Host, runner_gate: RunnerGate, tmp_path: Path, person: Person) -> None:
    """`run --watch`: the CLI was answered allow, then a reload brought a deny of that call
    before its tools/call arrived: the call meets the new rules, not the old allow."""
    assert (await asked(runner_gate, "ok now")).behavior == "allow"
    runner_gate.reads.note("ReadMcpResourceTool", {"server": "kb", "uri": "kb://a"},
                           Decision("allow"))
    (tmp_path / "kb.yaml").write_text(CONFIG.replace("bad notes are refused", "refused\n"
                                                     "    - tool: mcp__kb__note\n"
                                                     "      message: notes are off now"))
    runner_gate.gate.policy = load_host(tmp_path / "kb.yaml", layers=False).policy
    refused = await runner_gate.guard(tool(host), {"text": "ok now"}, ctx("toolu_1"))
    assert refused is not None and refused.is_error
    assert "notes are off now" in refused.to_mcp()["content"][0]["text"]
    assert not runner_gate.claim_read("kb", "kb://a")  # a read allowed before: decided again
    assert person.asked == []


@pytest.mark.parametrize("where", ["top", "inside"])
async def test_an_allow_is_not_claimed_by_a_tool_whose_defaults_changed_since(
        where: str) -> None:
    """The CLI's can_use_tool is allowed with the listed default (5); the upstream re-lists
    the tool with 50 before the CLI's tools/call arrives: the note does not hold for the new
    tool, whose call is decided again, with the defaults it runs with (G24-6)."""
    from tests.serve.relisted_tools import NAME, relisted

    host = relisted(where, 5)
    gate = RunnerGate(host.gate, Screen())
    ctx_of = CallContext(call_id="1", tool=NAME, tool_use_id="toolu_1")
    assert (await gate(NAME, host.call, {"tool_use_id": "toolu_1"})).behavior == "allow"
    refused = await gate.guard(host.relist(50), host.call, ctx_of)
    assert refused is not None and refused.is_error
    assert refused.to_mcp()["content"][0]["text"] == "no big limits"
    # decided at once (decide_now) the same: noted with 50's defaults, claimed only by them
    host.relist(5)
    assert gate.decide_now(NAME, host.call, {"tool_use_id": "toolu_2"}) is not None
    assert await gate.guard(host.relist(50), host.call, CallContext(
        call_id="2", tool=NAME, tool_use_id="toolu_2")) is not None
    # a tool unchanged claims its allow; an old tool (looked up before a re-listing) is
    # judged with its own defaults when the call is decided here
    allowed = host.relist(5)
    assert (await gate(NAME, host.call, {"tool_use_id": "toolu_3"})).behavior == "allow"
    assert await gate.guard(allowed, host.call, CallContext(
        call_id="3", tool=NAME, tool_use_id="toolu_3")) is None
    old = host.server.tools[0]
    host.relist(50)
    host.relist(5)
    assert await gate.guard(old, host.call, CallContext(call_id="4", tool=NAME)) is None
    old = host.relist(50)
    host.relist(5)
    assert await gate.guard(old, host.call, CallContext(call_id="5", tool=NAME)) is not None
