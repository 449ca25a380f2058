"""A permission question at a real terminal while another call logs: the lines the tool logs
meanwhile wait until the question is answered, so they neither bury the question nor land
between it and the answer typed. The real CLI, keys typed in a tmux pane."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import read_log
from .tty import WAIT, Pane, assert_nothing_left, kill_leftovers, tmux_available

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")]

CONFIG = """\
toolhost: 1
servers:
  e2e:
    tools:
      chatter:
        python: "e2e_tools:chatter"
        annotations: {readOnlyHint: true}
      write_note:  # read-only here: the CLI runs it beside chatter, not after it
        python: "e2e_tools:write_note"
        annotations: {readOnlyHint: true}
permissions:
  default: allow
  ask: [mcp__e2e__write_note]
"""


def test_lines_logged_while_a_question_is_open_wait_for_its_answer(
        cli: str, tmp_path: Path, tool_log: Path, scenario: Callable[[str], Path]) -> None:
    config = tmp_path / "team.yaml"
    config.write_text(CONFIG)
    script = scenario("""\
turns:
  - tool_calls:
      - {tool: mcp__e2e__chatter, input: {}}
      - {tool: mcp__e2e__write_note, input: {name: n1, text: hi}}
  - expect_results:
      - {matches: "^chattered [0-9]+$"}
      - {equals: "saved n1: hi"}
    text: Both done.
""")
    started, go = tmp_path / "started", tmp_path / "go"
    pane = Pane(tmp_path, cli, [str(config), "--script", str(script), "-p", "go"],
                env={"E2E_LOG": str(tool_log), "E2E_STARTED": str(started),
                     "E2E_GO": str(go)})
    try:
        pane.wait_for("Allow? [y] once")
        logged = lambda: int(started.read_text()) if started.exists() else 0  # noqa: E731
        before, deadline = logged(), time.monotonic() + WAIT
        while logged() < before + 20:  # 20 lines logged with the question open
            assert time.monotonic() < deadline, pane.screen()
            time.sleep(0.05)
        pane.line("y")
        pane.wait_for("#2 ✓ allowed")
        go.touch()
        screen = pane.wait_for("— done: ")
        assert pane.exit_status() == 0, screen
        assert_nothing_left(pane.token)
    finally:
        pane.close()
        kill_leftovers(pane.token)
    lines = screen.splitlines()
    asked = next(i for i, line in enumerate(lines) if "Allow? [y] once" in line)
    # the question is whole and the answer typed right after it, no log line in between
    assert lines[asked].endswith("(an ask rule asks every time): y"), screen
    assert sum("WARNING: chatter" in line for line in lines) >= 20  # none lost
    assert read_log(tool_log) == [{"tool": "write_note", "name": "n1", "text": "hi"}]
