"""PermissionGate: decide + ask + audit, with a real pseudo-terminal and a real subprocess."""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.config.model import HostConfig, Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import PermissionGate, TerminalAsker, compile_policy
from toolhost.permissions.decision import Decision


def host(tmp_path: Path, *rules: RuleConfig, **perms: Any) -> HostConfig:
    return HostConfig(version=1, servers={},
                      permissions=PermissionsConfig(rules=rules, **perms),
                      secrets=frozenset({"s3cr3t-value"}))


ASK = RuleConfig("ask", "mcp__db__write", origin=Origin("team.yaml", 4),
                 message="Writes need a human")
DENY = RuleConfig("deny", "mcp__db__drop", origin=Origin("base.yaml", 2))
ALLOW = RuleConfig("allow", "mcp__db__query", origin=Origin("team.yaml", 9),
                   rewrite={"clamp": {"limit": {"max": 10}}})


def check(gate: PermissionGate, tool: str, args: dict[str, Any],
          request: dict[str, Any] | None = None) -> Decision:
    async def go() -> Decision:
        return await gate.check(tool, args, request)
    return anyio.run(go)


def test_audit_log_records_every_decision_with_secrets_redacted(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "audit.jsonl"
    config = host(tmp_path, DENY, ALLOW, ASK, audit_log=str(log), ask_mode="deny")
    gate = PermissionGate.from_config(config, interactive=False)
    try:
        d1 = check(gate, "mcp__db__drop", {"token": "abc", "why": "s3cr3t-value!"},
                   {"tool_use_id": "toolu_1"})
        d2 = check(gate, "mcp__db__query", {"limit": 99, "dsn": "pg://u:s3cr3t-value@h"})
        d3 = check(gate, "mcp__db__write", {"row": 1})
    finally:
        gate.close()
    assert [d.behavior for d in (d1, d2, d3)] == ["deny", "allow", "deny"]
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["decision"] for r in records] == ["deny", "allow", "deny"]
    first, second, third = records
    assert first["arguments"] == {"token": "***", "why": "***!"}
    assert first["rule"] == "mcp__db__drop" and first["origin"] == "base.yaml:2"
    assert first["tool_use_id"] == "toolu_1" and first["answered_by"] == "policy"
    assert second["updatedInput"] == {"limit": 10, "dsn": "pg://u:***@h"}
    assert third["answered_by"] == "ask_mode: deny" and "Writes need a human" in third["message"]
    assert "s3cr3t-value" not in log.read_text()
    assert all(r["time"].endswith("+00:00") for r in records)


class _Silent:
    """An asker nobody answers."""

    async def ask(self, tool_name: str, tool_input: Any, decision: Decision) -> Decision:
        await anyio.sleep_forever()
        raise AssertionError


@pytest.mark.parametrize("ending", [None, "toolhost got SIGTERM and stopped"])
def test_a_question_ended_unanswered_leaves_a_deny_in_the_audit_log(
        tmp_path: Path, ending: str | None) -> None:
    log = tmp_path / "audit.jsonl"
    gate = PermissionGate.from_config(host(tmp_path, ASK, audit_log=str(log)),
                                      asker=_Silent())
    gate.ending = ending

    async def go() -> None:
        with anyio.move_on_after(0.2):
            await gate.check("mcp__db__write", {"row": 1}, {"tool_use_id": "toolu_9"})
            raise AssertionError("answered")

    try:
        anyio.run(go)
    finally:
        gate.close()
    [record] = [json.loads(line) for line in log.read_text().splitlines()]
    assert record["decision"] == "deny" and record["tool_use_id"] == "toolu_9"
    assert record["answered_by"] == "nobody (question ended)"
    assert record["rule"] == "mcp__db__write" and record["origin"] == "team.yaml:4"
    assert record["message"] == ("Nobody answered the question about mcp__db__write: "
                                 f"{ending or 'the request was cancelled'}.")


def test_audit_log_follows_the_gates_redaction_after_a_reload(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    gate = PermissionGate.from_config(host(tmp_path, DENY, audit_log=str(log)),
                                      interactive=False)
    try:
        check(gate, "mcp__db__drop", {"dsn": "new-secret"})
        reloaded = HostConfig(version=1, servers={}, secrets=frozenset({"new-secret"}))
        gate.redact = reloaded.redact  # what a reload does when the secrets change
        check(gate, "mcp__db__drop", {"dsn": "new-secret"})
    finally:
        gate.close()
    before, after = (json.loads(line)["arguments"] for line in log.read_text().splitlines())
    assert before == {"dsn": "new-secret"} and after == {"dsn": "***"}


@pytest.mark.parametrize("left", [frozenset(), frozenset({"other-secret"})])
def test_audit_log_hides_a_secret_a_reload_dropped(tmp_path: Path, left: frozenset[str]) -> None:
    # The process never forgets a secret (the screen still hides it): nor does the log.
    from toolhost.redaction import remember

    log = tmp_path / "audit.jsonl"
    config = host(tmp_path, DENY, audit_log=str(log))
    remember(config.secrets)  # what loading the config does
    gate = PermissionGate.from_config(config, interactive=False)
    try:
        gate.redact = HostConfig(version=1, servers={}, secrets=left).redact  # a reload
        check(gate, "mcp__db__drop", {"dsn": "s3cr3t-value", "n": "s3cr3t-value"})
    finally:
        gate.close()
    assert "s3cr3t-value" not in log.read_text()


def test_yes_turns_ask_into_allow_but_not_deny(tmp_path: Path,
                                               caplog: pytest.LogCaptureFixture) -> None:
    gate = PermissionGate.from_config(host(tmp_path, DENY, ASK), assume_yes=True)
    assert "ALLOW without asking" in caplog.text
    allowed = check(gate, "mcp__db__write", {})
    assert (allowed.behavior, allowed.answered_by) == ("allow", "--yes")
    assert check(gate, "mcp__db__drop", {}).behavior == "deny"


def test_ask_mode_allow_from_config(tmp_path: Path) -> None:
    gate = PermissionGate.from_config(host(tmp_path, ASK, ask_mode="allow"), interactive=False)
    assert check(gate, "mcp__db__write", {}).answered_by == "ask_mode: allow"


def test_no_terminal_denies_saying_a_person_was_needed(tmp_path: Path) -> None:
    # A new session has no controlling terminal: detection must say so and deny.
    script = """
import anyio, json
from toolhost.config.model import HostConfig, PermissionsConfig, RuleConfig
from toolhost.permissions import PermissionGate
cfg = HostConfig(version=1, servers={}, permissions=PermissionsConfig(
    rules=(RuleConfig("ask", "Bash"),)))
gate = PermissionGate.from_config(cfg)
d = anyio.run(gate.check, "Bash", {"command": "ls"})
print(json.dumps(d.to_control_response()), d.answered_by)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, start_new_session=True, timeout=60, check=True)
    response, answered_by = out.stdout.rsplit(" ", 1)
    body = json.loads(response)
    assert body["behavior"] == "deny" and "person's approval" in body["message"]
    assert answered_by.strip() == "no-terminal"


class Pty:
    """A terminal with a person at it: each line ``type``d answers the next prompt once it is
    shown (keys typed before a question are dropped: runner36 R36-6); ``screen`` is what was
    shown since the last look."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        self.path = os.ttyname(self.slave)
        self._shown = bytearray()
        self._seen = 0  # of ``_shown``, given by ``screen``
        self._answers: list[bytes] = []
        self._prompted = 0  # prompts answered
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._person = threading.Thread(target=self._watch, daemon=True)
        self._person.start()

    def _watch(self) -> None:
        while not self._done.is_set():
            if not select.select([self.master], [], [], 0.02)[0]:
                continue
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            with self._lock:
                self._shown.extend(chunk)
                prompts = self._shown.count(b"Allow? ") + self._shown.count(b"(optional): ")
                if self._answers and prompts > self._prompted and self._shown.endswith(b": "):
                    self._prompted = prompts
                    with contextlib.suppress(OSError):
                        os.write(self.master, self._answers.pop(0))

    def type(self, text: str) -> None:
        with self._lock:
            self._answers += [line.encode() + b"\n" for line in text.split("\n")[:-1]]

    def screen(self) -> str:
        with self._lock:
            shown, self._seen = bytes(self._shown[self._seen:]), len(self._shown)
        return shown.decode(errors="replace")

    def close(self) -> None:
        self._done.set()
        self._person.join(5)
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def pty() -> Any:
    p = Pty()
    yield p
    p.close()


def gate_with_terminal(pty: Pty) -> PermissionGate:
    policy = compile_policy(PermissionsConfig(rules=(ASK,)))
    return PermissionGate(policy, TerminalAsker(pty.path, redact=lambda s: s.replace("pw1", "***")))


def test_terminal_allow_once_shows_tool_arguments_and_rule(pty: Pty) -> None:
    gate = gate_with_terminal(pty)
    pty.type("y\n")
    decision = check(gate, "mcp__db__write", {"sql": "insert pw1", "password": "hunter2"})
    assert (decision.behavior, decision.answered_by) == ("allow", "person")
    screen = pty.screen()
    assert "mcp__db__write" in screen and "insert ***" in screen
    assert "hunter2" not in screen and "pw1" not in screen
    assert "rule 'mcp__db__write'" in screen and "team.yaml:4" in screen
    assert "Writes need a human" in screen
    pty.type("\n")  # a second call asks again: an empty answer is a deny, no reason asked
    assert check(gate, "mcp__db__write", {}).behavior == "deny"
    assert "Reason" not in pty.screen()


def test_terminal_allow_for_session_remembers_the_tool(pty: Pty) -> None:
    gate = gate_with_terminal(pty)
    pty.type("a\n")  # a question the default raised (no rule names the tool)
    assert check(gate, "mcp__db__other", {"n": 1}).behavior == "allow"
    pty.screen()
    again = check(gate, "mcp__db__other", {"n": 2})  # nothing typed: must not prompt
    assert (again.behavior, again.answered_by) == ("allow", "person (this session)")
    assert pty.screen() == ""


def test_terminal_a_at_an_ask_rule_allows_that_call_once(pty: Pty) -> None:
    gate = gate_with_terminal(pty)
    pty.type("a\n")
    assert check(gate, "mcp__db__write", {"n": 1}).behavior == "allow"
    assert "asks every time" in pty.screen()
    pty.type("\n")  # the rule asks again: an empty answer denies
    assert check(gate, "mcp__db__write", {"n": 2}).behavior == "deny"


def test_terminal_deny_with_reason(pty: Pty) -> None:
    gate = gate_with_terminal(pty)
    pty.type("n\nuse the staging db\n")
    decision = check(gate, "mcp__db__write", {})
    assert decision.behavior == "deny"
    assert decision.to_control_response()["message"] == (
        "A person denied mcp__db__write: use the staging db")


# Red team runner2 F8: a secret in a can_use_tool's tool name or tool_use_id went raw to the
# audit log. Every field of a record goes through the redactor, in any spelling of it.
SPELLED_SECRET = ["s3cr3t-value", "S3CR3T-VALUE", "s3cr3t%2Dvalue", "\\u0073\\u0033cr3t-value",
                  "s3cr3t&#45;value", "czNjcjN0LXZhbHVl"]


@pytest.mark.parametrize("spelled", SPELLED_SECRET)
@pytest.mark.parametrize("where", ["tool", "tool_use_id", "rule"])
def test_no_field_of_an_audit_record_holds_a_secret(
        tmp_path: Path, spelled: str, where: str) -> None:
    log = tmp_path / "audit.jsonl"
    tool = f"mcp__s__x{spelled}" if where == "tool" else "mcp__s__x"
    rules = [RuleConfig("deny", tool, origin=Origin(f"{spelled}.yaml", 1),
                        message=f"no {spelled}")] if where == "rule" else []
    config = host(tmp_path, *rules, audit_log=str(log), default="deny")
    gate = PermissionGate.from_config(config, interactive=False)
    try:
        decision = check(gate, tool, {"a": 1}, {"tool_use_id": f"toolu_{spelled}"})
    finally:
        gate.close()
    assert decision.behavior == "deny"
    text = log.read_text()
    assert spelled not in text and "s3cr3t" not in text.lower(), text
    record = json.loads(text)
    assert record["tool_use_id"] == "toolu_***"
    assert "***" in record["tool"] or where != "tool"


def test_a_decision_reading_a_slow_repository_holds_no_other_call(tmp_path: Path) -> None:
    """Review 19: deciding a git command runs git in the repository (later.git); its
    alternates a FIFO, every read waited (10 s each) with the event loop held: no other call,
    cancel or signal was served meanwhile. Such a call is decided in a worker thread."""
    import errno

    from tests.permissions.gitrepo import evil_repo
    from toolhost.permissions.ask import FixedAsker

    root = evil_repo(tmp_path / "r")
    fifo = root / ".git/objects/info/alternates"
    os.mkfifo(fifo)
    rules = (RuleConfig("deny", "Bash(rm:*)"), RuleConfig("allow", "Bash"))
    gate = PermissionGate(compile_policy(PermissionsConfig(rules=rules), cwd=str(root)),
                          FixedAsker("deny", answered_by="test"))
    slow = {"command": "git checkout evil"}
    assert gate.check_now("Bash", slow) is None  # (decided by check, off the loop)
    order: list[tuple[str, str]] = []

    async def go() -> None:
        async def decide_slow() -> None:
            order.append(("git", (await gate.check("Bash", slow)).behavior))

        async with anyio.create_task_group() as tg:
            tg.start_soon(decide_slow)
            await anyio.sleep(0)
            order.append(("ls", (await gate.check("Bash", {"command": "ls"})).behavior))
            while len(order) < 2:  # each git read opening the FIFO gets an empty file
                try:
                    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
                except OSError as exc:
                    assert exc.errno == errno.ENXIO  # (no reader yet)
                await anyio.sleep(0.01)

    anyio.run(go)
    assert order == [("ls", "allow"), ("git", "deny")]


class _Reloading:
    """A person who answers ``answer`` while a reload installs ``then``'s rules."""

    def __init__(self, gate: list[PermissionGate], then: Any, answer: str) -> None:
        self.gate, self.then, self.answer = gate, then, answer

    async def ask(self, tool_name: str, tool_input: Any, decision: Decision) -> Decision:
        self.gate[0].policy = self.then
        return Decision(self.answer, rule=decision.rule, answered_by="person")  # type: ignore[arg-type]


@pytest.mark.parametrize(("then", "answer", "expected"), [
    # the new rules deny it: a "yes" given after they arrived does not run the call
    (RuleConfig("deny", "mcp__db__write", message="Writes are frozen"), "allow",
     ("deny", "Writes are frozen (the config was reloaded while the question was open")),
    # they allow it (with a rewrite): the allow of the rules in force, rewrite included
    (RuleConfig("allow", "mcp__db__write", rewrite={"set": {"row": 2}}), "allow",
     ("allow", {"row": 2})),
    # they still ask: the person's answer stands; a person's no stays a no
    (ASK, "allow", ("allow", None)),
    (RuleConfig("allow", "mcp__db__write"), "deny", ("deny", "")),
])
def test_a_question_answered_after_a_reload_meets_the_rules_in_force(
        tmp_path: Path, then: RuleConfig, answer: str, expected: tuple[str, Any]) -> None:
    new = compile_policy(PermissionsConfig(rules=(then,)))
    holder: list[PermissionGate] = []
    gate = PermissionGate(compile_policy(PermissionsConfig(rules=(ASK,))),
                          _Reloading(holder, new, answer))
    holder.append(gate)
    decision = check(gate, "mcp__db__write", {"row": 1})
    assert decision.behavior == expected[0]
    if expected[0] == "deny":
        assert decision.message.startswith(expected[1])
    else:
        assert decision.updated_input == expected[1]
    assert gate.generation == 1
