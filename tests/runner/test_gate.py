"""``RunnerGate``: decision lines shown in the order the CLI's requests came."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from toolhost.permissions import PermissionGate
from toolhost.permissions.decision import Decision
from toolhost.runner.gate import RunnerGate

from .cli_harness import CONFIG, at_terminal, read_until
from .test_second_lock import Screen, host  # noqa: F401  (the fixture)
from .test_signal_at_question import TWO

pytestmark = pytest.mark.anyio


class Waiting:
    """A person who answers allow once told to (``answer``); records who was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.go = anyio.Event()

    async def ask(self, tool_name: str, tool_input: Mapping[str, Any],
                  decision: Decision) -> Decision:
        self.asked.append(tool_input["text"])
        await self.go.wait()
        return Decision("allow", rule=decision.rule, answered_by="person")


@pytest.mark.parametrize("withdrawn", [False, True], ids=["answered", "withdrawn"])
async def test_a_call_decided_at_once_is_shown_after_the_question_read_ahead_of_it(
        host: Any, withdrawn: bool) -> None:  # noqa: F811
    # R24-6: the decision of a call read after one whose question is open was shown first
    person, screen = Waiting(), Screen()
    gate = RunnerGate(PermissionGate(host.policy, person), screen)
    shown: list[str] = []
    screen.decision = lambda tool_name, decision, tool_use_id=None: shown.append(  # type: ignore[method-assign]
        tool_use_id or "")
    asking = anyio.CancelScope()

    async def ask() -> None:
        with asking:
            await gate("mcp__kb__note", {"text": "hello"}, {"tool_use_id": "q"})

    async with anyio.create_task_group() as tg:
        tg.start_soon(ask)
        while not person.asked:
            await anyio.lowlevel.checkpoint()
        decided = gate.decide_now("mcp__kb__note", {"text": "ok"}, {"tool_use_id": "r"})
        assert decided is not None and decided.behavior == "allow"
        gate.after_answer()
        assert shown == []  # not before the decision of the question read ahead of it
        if withdrawn:
            asking.cancel()
        else:
            person.go.set()
    assert shown == (["r"] if withdrawn else ["q", "r"])


# as TWO, but the turn ends once both are answered (as a real CLI's does: a turn that ended
# with the second question still open took, now and then, one more Enter to answer it)
BOTH_ANSWERED = TWO.replace('''["request_id"] == "q"''', '''["request_id"] == "q2"''')


def test_two_questions_read_together_are_asked_in_the_order_they_came(tmp_path: Path) -> None:
    # R24-6 at a real terminal: the CLI writes two can_use_tool requests at once; the later
    # one was asked first. Each still gets exactly one answer.
    assert BOTH_ANSWERED != TWO  # the replacement took
    with at_terminal(tmp_path, CONFIG, BOTH_ANSWERED) as (process, master):
        assert "> " in read_until(master, "> ")
        os.write(master, b"save it\n")
        first = read_until(master, "Allow?")
        os.write(master, b"y\n")
        second = read_until(master, "Allow?")
        os.write(master, b"y\n")
        read_until(master, "\n> ")
        os.write(master, b"\x04")  # Ctrl-D at the prompt: the session ends
        process.wait(timeout=30)  # (1: the fake CLI's turn ends in an error result)
    assert '"q"' in first and '"q2"' not in first, first
    assert '"q2"' in second, second
    read = [json.loads(line) for line in (tmp_path / "cli.log").read_text().splitlines()]
    answers = [m["response"]["request_id"] for m in read if m["type"] == "control_response"]
    assert sorted(answers) == ["q", "q2"]


# as TWO, but Bash calls: the first's rules run git (decided in a thread), the second's not;
# the turn ends once both are answered
BASH_TWO = BOTH_ANSWERED.replace(
    '''for q in ("q", "q2"):''', '''for q, c in (("q", "git checkout HEAD -- a.txt"),
                     ("q2", "echo second")):''').replace(
    '''"tool_name": "mcp__s__echo",
              "input": {{"text": q}}''', '''"tool_name": "Bash",
              "input": {{"command": c}}''')


def test_a_question_whose_rules_run_git_is_asked_before_the_one_read_after_it(
        tmp_path: Path) -> None:
    # R25's left: the first call's decision ran git in a thread; the second, decided at once,
    # was asked first. Each still gets exactly one answer.
    assert "git checkout" in BASH_TWO and '"Bash"' in BASH_TWO  # the replacements took
    assert '== "q2"' in BASH_TWO
    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    with at_terminal(tmp_path, CONFIG + f"run:\n  cwd: {repo}\n", BASH_TWO) as (process,
                                                                                  master):
        assert "> " in read_until(master, "> ")
        os.write(master, b"go\n")
        first = read_until(master, "Allow?")
        os.write(master, b"y\n")
        second = read_until(master, "Allow?")
        os.write(master, b"y\n")
        read_until(master, "\n> ")
        os.write(master, b"\x04")  # Ctrl-D at the prompt: the session ends
        process.wait(timeout=30)
    assert "git checkout" in first and "echo second" not in first, first
    assert "echo second" in second, second
    read = [json.loads(line) for line in (tmp_path / "cli.log").read_text().splitlines()]
    answers = {m["response"]["request_id"]: m["response"]["response"]["behavior"]
               for m in read if m["type"] == "control_response"}
    assert answers == {"q": "allow", "q2": "allow"}, read
