"""Signals to ``toolhost run`` in a real terminal (tmux) while a command tool runs: one
shutdown path (tool processes killed, the CLI stopped, the audit log written, 128 + signal),
and nothing left in the process table afterwards. SIGKILL of toolhost: the CLI goes too.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .tty import (
    WAIT,
    Pane,
    assert_nothing_left,
    kill_leftovers,
    leftovers,
    new_token,
    tmux_available,
)

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")]

CONFIG = """\
toolhost: 1
servers:
  e2e:
    tools:
      wait:
        command:
          argv: [sh, -c, "sleep 6111; echo finished"]
          env: {E2E_TOKEN: "@TOKEN@"}
      slow: {python: "e2e_tools:slow"}
permissions:
  default: allow
  audit_log: AUDIT
"""

CALL = """\
turns:
  - tool_calls:
      - {tool: mcp__e2e__TOOL, input: {}}
  - text: "(not reached: the run is stopped)"
"""


@pytest.fixture
def panes() -> Iterator[list[Pane]]:
    made: list[Pane] = []
    yield made
    for pane in made:
        pane.close()
        kill_leftovers(pane.token)


@pytest.fixture
def start(cli: str, tmp_path: Path, tool_log: Path, panes: list[Pane],
          scenario: Callable[[str], Path]) -> Callable[..., Pane]:
    def run(tool: str, *extra: str) -> Pane:
        token = new_token()
        config = tmp_path / "signals.yaml"
        config.write_text(CONFIG.replace("@TOKEN@", token)
                          .replace("AUDIT", str(tmp_path / "audit.jsonl")))
        path = scenario(CALL.replace("TOOL", tool))
        pane = Pane(tmp_path, cli, [str(config), "--script", str(path), *extra], token=token,
                    env={"E2E_LOG": str(tool_log), "E2E_STARTED": str(tmp_path / "started"),
                         "E2E_CANCELLED": str(tmp_path / "cancelled")})
        panes.append(pane)
        return pane
    return run


def _wait_for_process(token: str, name: str) -> None:
    deadline = time.monotonic() + WAIT
    while not any(f" {name} " in f" {line.split(': ', 1)[1]} " or
                  line.split(": ", 1)[1].startswith(name) for line in leftovers(token)):
        assert time.monotonic() < deadline, f"no {name!r} process ever ran"
        time.sleep(0.2)


def _audit(tmp_path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
@pytest.mark.parametrize("interactive", [False, True], ids=["p", "interactive"])
def test_signal_during_a_command_tool_stops_everything(
        start: Callable[..., Pane], tmp_path: Path, signum: int, status: int,
        interactive: bool) -> None:
    pane = start("wait", *(() if interactive else ("-p", "wait for it")))
    if interactive:
        pane.wait_for("> ")
        pane.line("wait for it")
    _wait_for_process(pane.token, "sleep")
    os.kill(pane.pid, signum)
    assert pane.exit_status() == status, pane.screen()
    assert_nothing_left(pane.token)  # no claude, sh, sleep
    # the call's allow, then its stop: it was answered before the CLI's stdin closed
    assert [entry.get("decision", entry.get("event")) for entry in _audit(tmp_path)] == [
        "allow", "stopped"]


def test_closing_the_terminal_during_a_command_tool_leaves_nothing(
        start: Callable[..., Pane]) -> None:
    pane = start("wait")
    pane.wait_for("> ")
    pane.line("wait for it")
    _wait_for_process(pane.token, "sleep")
    pane.close()  # the terminal goes away: SIGHUP
    assert_nothing_left(pane.token)


def test_second_ctrl_c_during_a_command_tool_exits_130(start: Callable[..., Pane]) -> None:
    pane = start("wait")
    pane.wait_for("> ")
    pane.line("wait for it")
    _wait_for_process(pane.token, "sleep")
    pane.key("C-c")
    pane.wait_for("interrupting the turn")
    pane.key("C-c")
    code = pane.exit_status()
    assert code in (0, 130), pane.screen()  # 0: the interrupt already ended the turn
    assert_nothing_left(pane.token)


def test_sigkill_of_toolhost_takes_the_cli_with_it(start: Callable[..., Pane],
                                                   tmp_path: Path) -> None:
    pane = start("slow", "-p", "wait")
    deadline = time.monotonic() + WAIT
    while not (tmp_path / "started").exists():
        assert time.monotonic() < deadline, pane.screen()
        time.sleep(0.2)
    assert any(str(pane.pid) != line.split(":")[0] for line in leftovers(pane.token))
    os.kill(pane.pid, signal.SIGKILL)
    assert pane.exit_status() == 128 + signal.SIGKILL
    assert_nothing_left(pane.token, timeout=10)  # the parent-death signal: at once


def test_sigkill_of_toolhost_takes_the_clis_bash_command_with_it(
        cli: str, tmp_path: Path, panes: list[Pane], scenario: Callable[[str], Path]) -> None:
    """The CLI runs its Bash commands in process groups of their own: the parent-death signal
    that ends the CLI does not reach them; the watchdog does (they carry the CLI's run id)."""
    token = new_token()
    config = tmp_path / "signals.yaml"
    config.write_text(CONFIG.replace("@TOKEN@", token)
                      .replace("AUDIT", str(tmp_path / "audit.jsonl")))
    path = scenario("turns:\n  - tool_calls:\n      - {tool: Bash, input: {command: "
                    "'python3 -c \"import time; time.sleep(6555)\"', description: wait}}\n"
                    "  - text: \"(not reached)\"\n")
    pane = Pane(tmp_path, cli, [str(config), "--script", str(path), "-p", "go"], token=token)
    panes.append(pane)
    deadline = time.monotonic() + WAIT
    while not any("time.sleep(6555)" in line for line in leftovers(token)):
        assert time.monotonic() < deadline, pane.screen()
        time.sleep(0.2)
    os.kill(pane.pid, signal.SIGKILL)
    assert pane.exit_status() == 128 + signal.SIGKILL
    assert_nothing_left(token, timeout=10)
