"""``toolhost run`` in a real terminal (tmux): questions, Ctrl-C, Ctrl-D and the prompt.

The real CLI, the scripted model (whose scenario checks fail the run when the model gets
something it did not expect, e.g. a `y` sent as a turn), keys typed into a tmux pane, and
after each test a check that no process of the run is left.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .conftest import read_log
from .tty import Pane, assert_nothing_left, kill_leftovers, tmux_available

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")]

ASK = """\
toolhost: 1
servers:
  e2e:
    tools:
      write_note: {python: "e2e_tools:write_note"}
permissions:
  default: ask
  audit_log: AUDIT
"""

ONE_CALL = """\
turns:
  - tool_calls:
      - {tool: mcp__e2e__write_note, input: {name: n1, text: hello}}
  - expect_results:
      - RESULT
    text: Turn one is over.
"""

QUESTION = "Allow? [y] once, [a] for this session, [n] deny: "


@pytest.fixture
def panes(tmp_path: Path) -> Iterator[list[Pane]]:
    made: list[Pane] = []
    yield made
    for pane in made:
        pane.close()
        kill_leftovers(pane.token)


@pytest.fixture
def start(cli: str, tmp_path: Path, tool_log: Path, panes: list[Pane],
          scenario: Callable[[str], Path]) -> Callable[..., Pane]:
    def run(script: str, *extra: str, result: str = '{equals: "saved n1: hello"}') -> Pane:
        config = tmp_path / "ask.yaml"
        config.write_text(ASK.replace("AUDIT", str(tmp_path / "audit.jsonl")))
        path = scenario(script.replace("RESULT", result))
        pane = Pane(tmp_path, cli, [str(config), "--script", str(path), *extra],
                    env={"E2E_LOG": str(tool_log)})
        panes.append(pane)
        return pane
    return run


def _end(pane: Pane) -> int:
    code = pane.exit_status()
    assert_nothing_left(pane.token)
    return code


def test_y_at_the_question_allows_the_call_and_the_prompt_returns(
        start: Callable[..., Pane], tool_log: Path) -> None:
    pane = start(ONE_CALL + "  - text: Turn two is over.\n")
    pane.wait_for("> ")
    pane.line("save it")
    pane.wait_for(QUESTION)
    pane.line("y")
    screen = pane.wait_for("— done: ")
    assert "#1 ✓ allowed by default (person)" in screen
    assert "#1 ← mcp__e2e__write_note: saved n1: hello" in screen
    # the prompt is back as soon as the turn ended, before anything is typed
    assert pane.wait_for("> ", count=2).rstrip().endswith(">")
    pane.line("and now?")
    pane.wait_for("Turn two is over.")
    pane.wait_for("> ", count=3)
    pane.key("C-d")
    assert _end(pane) == 0, pane.screen()  # 0: every scenario check passed
    assert read_log(tool_log) == [{"tool": "write_note", "name": "n1", "text": "hello"}]


def test_n_with_a_reason_denies_and_the_model_reads_the_reason(
        start: Callable[..., Pane], tool_log: Path) -> None:
    pane = start(ONE_CALL, result='{contains: "not today", is_error: true}')
    pane.wait_for("> ")
    pane.line("save it")
    pane.wait_for(QUESTION)
    pane.line("n")
    pane.wait_for("Reason for the model (optional): ")
    pane.line("not today")
    screen = pane.wait_for("— done: ")
    assert "#1 ⊘ denied by default (person): A person denied mcp__e2e__write_note: " \
           "not today" in screen
    pane.wait_for("> ", count=2)
    pane.key("C-d")
    assert _end(pane) == 0, pane.screen()
    assert read_log(tool_log) == []


def test_keys_typed_before_the_question_do_not_answer_it(
        start: Callable[..., Pane], tool_log: Path) -> None:
    pane = start(ONE_CALL, result='{contains: "A person denied", is_error: true}')
    pane.wait_for("> ")
    pane.line("save it")
    pane.line("y")  # typed ahead, before the question showed: must not allow the call
    pane.wait_for(QUESTION)
    pane.line("n")
    pane.wait_for("Reason for the model (optional): ")
    pane.line("")
    pane.wait_for("— done: ")
    pane.wait_for("> ", count=2)
    pane.key("C-d")
    assert _end(pane) == 0, pane.screen()
    assert read_log(tool_log) == []


def test_ctrl_d_at_the_question_denies(start: Callable[..., Pane], tool_log: Path) -> None:
    pane = start(ONE_CALL, result='{contains: "A person denied", is_error: true}')
    pane.wait_for("> ")
    pane.line("save it")
    pane.wait_for(QUESTION)
    pane.key("C-d")
    screen = pane.wait_for("— done: ")
    assert "#1 ⊘ denied by default (person)" in screen
    pane.wait_for("> ", count=2)
    pane.key("C-d")
    assert _end(pane) == 0, pane.screen()
    assert read_log(tool_log) == []


def test_ctrl_c_at_the_question_denies_and_returns_to_the_prompt(
        start: Callable[..., Pane], tool_log: Path, tmp_path: Path) -> None:
    # The turn is interrupted: the model is never asked again in it (no turn 2 check).
    pane = start("turns:\n  - tool_calls:\n"
                 "      - {tool: mcp__e2e__write_note, input: {name: n1, text: hello}}\n"
                 "  - text: The second turn.\n")
    pane.wait_for("> ")
    pane.line("save it")
    pane.wait_for(QUESTION)
    pane.key("C-c")
    screen = pane.wait_for("> ", count=2)
    assert "Ctrl-C at the question: the call is denied" in screen
    assert "#1 ⊘ denied by default (person (Ctrl-C))" in screen
    pane.line("next")  # the session goes on; the abandoned question takes nothing
    pane.wait_for("The second turn.")
    pane.wait_for("> ", count=3)
    pane.key("C-d")
    assert _end(pane) == 0, pane.screen()
    assert read_log(tool_log) == []
    audit = (tmp_path / "audit.jsonl").read_text()
    assert '"deny"' in audit and "Ctrl-C" in audit


def test_ctrl_c_at_the_question_with_p_ends_the_run_with_130(
        start: Callable[..., Pane], tool_log: Path) -> None:
    pane = start("turns:\n  - tool_calls:\n"
                 "      - {tool: mcp__e2e__write_note, input: {name: n1, text: hello}}\n",
                 "-p", "save it")
    pane.wait_for(QUESTION)
    pane.key("C-c")
    assert _end(pane) == 130, pane.screen()
    assert read_log(tool_log) == []


def test_sigterm_at_the_question_denies_it_and_ends_the_run_with_143(
        start: Callable[..., Pane], tool_log: Path, tmp_path: Path) -> None:
    # the real CLI gets its can_use_tool answered (a deny) before its stdin closes
    pane = start(ONE_CALL, "-p", "save it")
    pane.wait_for(QUESTION)
    os.kill(pane.pid, signal.SIGTERM)
    assert _end(pane) == 143, pane.screen()
    assert read_log(tool_log) == []
    [record] = [json.loads(line) for line in
                (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert record["decision"] == "deny" and record["answered_by"] == "nobody (question ended)"
    assert record["message"] == ("Nobody answered the question about mcp__e2e__write_note: "
                                 "toolhost is stopping (SIGTERM).")


def test_y_at_the_question_with_p(start: Callable[..., Pane], tool_log: Path) -> None:
    pane = start(ONE_CALL, "-p", "save it")
    pane.wait_for(QUESTION)
    pane.line("y")
    assert _end(pane) == 0, pane.screen()
    assert "Turn one is over." in pane.screen()
    assert read_log(tool_log) == [{"tool": "write_note", "name": "n1", "text": "hello"}]


def test_ctrl_d_at_the_prompt_ends_the_session(start: Callable[..., Pane]) -> None:
    pane = start("turns:\n  - text: never asked\n")
    pane.wait_for("> ")
    pane.key("C-d")
    # 1: the scenario's turn was never played (the run says so); nothing hangs or is left
    assert _end(pane) == 1, pane.screen()
    assert "turn 1 was never played" in pane.screen()


def test_a_multi_line_paste_at_the_prompt_is_one_turn(start: Callable[..., Pane]) -> None:
    # round 8 left it: each pasted line was a turn (the scenario would run out at the third);
    # round 10 left it: a Ctrl-C or Ctrl-Z in the paste was a signal (the session ended)
    pane = start("turns:\n  - text: Turn one is over.\n  - text: Turn two is over.\n")
    pane.wait_for("> ")
    pane.paste("first pasted line\nsecond\x03 line\nthird\x1a line")
    pane.key("Enter")
    pane.wait_for("Turn one is over.")
    assert "(a paste of 3 lines: one turn; it carried 2 Ctrl-C, Ctrl-Z or Ctrl-\\ " \
        "characters of its own" in pane.screen().replace("\n", ""), pane.screen()
    pane.wait_for("> ", count=2)
    pane.line("typed")
    pane.wait_for("Turn two is over.")
    pane.wait_for("> ", count=3)
    pane.key("C-d")
    assert _end(pane) == 0, pane.screen()


def test_ctrl_c_twice_at_the_prompt_exits_130(start: Callable[..., Pane]) -> None:
    pane = start("turns:\n  - text: never asked\n")
    pane.wait_for("> ")
    pane.key("C-c")
    assert _end(pane) == 130, pane.screen()


def test_a_for_the_session_allows_the_next_call_without_asking(
        start: Callable[..., Pane], tool_log: Path) -> None:
    pane = start("""\
turns:
  - tool_calls:
      - {tool: mcp__e2e__write_note, input: {name: n1, text: one}}
  - tool_calls:
      - {tool: mcp__e2e__write_note, input: {name: n2, text: two}}
  - text: Both saved.
""")
    pane.wait_for("> ")
    pane.line("save twice")
    pane.wait_for(QUESTION)
    pane.line("a")
    screen = pane.wait_for("Both saved.")
    assert screen.count(QUESTION) == 1, screen  # the second call was not asked about
    pane.wait_for("> ", count=2)
    pane.key("C-d")
    assert _end(pane) == 0, pane.screen()
    assert [e["name"] for e in read_log(tool_log)] == ["n1", "n2"]


def test_two_questions_in_one_turn_are_asked_one_after_the_other(
        start: Callable[..., Pane], tool_log: Path) -> None:
    pane = start("""\
turns:
  - tool_calls:
      - {tool: mcp__e2e__write_note, input: {name: n1, text: one}}
      - {tool: mcp__e2e__write_note, input: {name: n2, text: two}}
  - expect_results:
      - {contains: saved}
      - {is_error: true}
    text: One of two.
""", "-p", "save both")
    pane.wait_for(QUESTION)
    pane.line("y")
    pane.wait_for(QUESTION, count=2)  # the second question only after the first answer
    pane.line("n")
    pane.wait_for("Reason for the model (optional): ")
    pane.line("not that one")
    screen = pane.wait_for("One of two.")
    # the second call's line waited for the first answer instead of landing in the question
    assert f"{QUESTION}→" not in screen, screen
    # each question names its call by the tag of its call line (lead's leftover, round 7)
    assert "permission needed for #1 mcp__e2e__write_note" in screen, screen
    assert "permission needed for #2 mcp__e2e__write_note" in screen, screen
    assert "#2 ⊘ denied by default (person): A person denied mcp__e2e__write_note: not " \
        "that one" in screen
    assert _end(pane) == 0, pane.screen()
    assert [e["name"] for e in read_log(tool_log)] == ["n1"]


@pytest.mark.parametrize(("signum", "status"), [("TERM", 143), ("HUP", 129)])
def test_a_signal_while_the_model_thinks_ends_everything(
        start: Callable[..., Pane], signum: str, status: int) -> None:
    import signal

    pane = start("turns:\n  - text: too late\n    delay: 60\n", "-p", "think")
    pane.wait_for("session: ")  # the CLI is up and waiting for the model's answer
    os.kill(pane.pid, getattr(signal, f"SIG{signum}"))
    assert _end(pane) == status, pane.screen()  # _end: no claude left either


def test_sighup_at_the_idle_prompt_exits_129(start: Callable[..., Pane]) -> None:
    import signal

    pane = start("turns:\n  - text: never asked\n")
    pane.wait_for("> ")
    os.kill(pane.pid, signal.SIGHUP)
    assert _end(pane) == 129, pane.screen()
