"""``toolhost run --watch`` in a real terminal: the team's deny arrives (the config is
edited) while the person is being asked about a call; their "y" afterwards does not run it.
The real CLI, the scripted model (which checks the result it gets), keys typed in a tmux
pane."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import read_log
from .tty import Pane, assert_nothing_left, kill_leftovers, tmux_available

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")]

ASKS = """\
toolhost: 1
servers:
  e2e:
    tools:
      write_note: {python: "e2e_tools:write_note"}
permissions:
  default: allow
  audit_log: AUDIT
  ask: [mcp__e2e__write_note]
"""
FROZEN = ASKS.replace("  ask: [mcp__e2e__write_note]\n", """\
  deny:
    - tool: mcp__e2e__write_note
      message: Notes are frozen.
""")


def test_a_yes_typed_after_a_reload_denied_the_call_does_not_run_it(
        cli: str, tmp_path: Path, tool_log: Path, scenario: Callable[[str], Path]) -> None:
    audit = tmp_path / "audit.jsonl"
    config = tmp_path / "team.yaml"
    config.write_text(ASKS.replace("AUDIT", str(audit)))
    script = scenario("""\
turns:
  - tool_calls:
      - {tool: mcp__e2e__write_note, input: {name: n1, text: hello}}
  - expect_results:
      - {is_error: true, contains: "Notes are frozen. (the config was reloaded"}
    text: Not saved.
""")
    pane = Pane(tmp_path, cli, [str(config), "--watch", "--watch-interval", "0.1",
                                "--script", str(script), "-p", "save it"],
                env={"E2E_LOG": str(tool_log)})
    try:
        pane.wait_for("Allow? [y] once")
        config.write_text(FROZEN.replace("AUDIT", str(audit)))
        pane.wait_for("toolhost: reloaded")
        pane.line("y")
        screen = pane.wait_for("— done: ")
        assert pane.exit_status() == 0, screen  # 0: the model got the deny it expected
        assert_nothing_left(pane.token)
    finally:
        pane.close()
        kill_leftovers(pane.token)
    assert "#1 ⊘ denied by mcp__e2e__write_note" in screen
    assert read_log(tool_log) == []  # the tool never ran
    decisions = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [(d["decision"], d["answered_by"]) for d in decisions] == [
        ("deny", "policy (reloaded)")]
