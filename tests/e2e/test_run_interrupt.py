"""Ctrl-C and interactive turns of ``toolhost run``, as a terminal user drives it."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pytest

from .conftest import CONFIG, start_toolhost

pytestmark = pytest.mark.e2e

SLOW = """\
toolhost: 1
servers:
  e2e:
    tools:
      slow: {python: "e2e_tools:slow"}
permissions:
  default: allow
"""

SLOW_SCENARIO = """\
turns:
  - tool_calls:
      - {tool: mcp__e2e__slow, input: {}}
  - text: "(not reached: the turn is interrupted)"
"""


class Lines:
    """Collect a stream's lines in a thread; wait for one that contains some text."""

    def __init__(self, stream: IO[str] | None) -> None:
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(stream,))
        self._thread.start()

    def _read(self, stream: IO[str] | None) -> None:
        for line in stream or ():
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()
        with self._changed:
            self.lines.append("")  # end of stream
            self._changed.notify_all()

    def wait_for(self, text: str, timeout: float = 60) -> bool:
        with self._changed:
            return self._changed.wait_for(
                lambda: any(text in line for line in self.lines) or "" in self.lines, timeout)

    @property
    def text(self) -> str:
        return "".join(self.lines)

    def join(self) -> None:
        self._thread.join()


def wait_for_file(path: Path, proc: subprocess.Popen[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, "toolhost exited before the tool started"
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


@pytest.fixture
def slow_env(tmp_path: Path, tool_log: Path) -> dict[str, str]:
    return {"E2E_STARTED": str(tmp_path / "started"),
            "E2E_CANCELLED": str(tmp_path / "cancelled")}


def _finish(proc: subprocess.Popen[str], *readers: Lines) -> int:
    try:
        return proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for r in readers:
            r.join()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def test_ctrl_c_interrupts_the_turn_and_cancels_the_running_tool(
        cli: str, tmp_path: Path, slow_env: dict[str, str],
        scenario: Callable[[str], Path]) -> None:
    config = tmp_path / "slow.yaml"
    config.write_text(SLOW)
    proc = start_toolhost(cli, str(config), "--script", str(scenario(SLOW_SCENARIO)),
                          "-p", "wait", env=slow_env)
    out, err = Lines(proc.stdout), Lines(proc.stderr)
    wait_for_file(Path(slow_env["E2E_STARTED"]), proc)
    os.kill(proc.pid, signal.SIGINT)  # what Ctrl-C sends the foreground process
    code = _finish(proc, out, err)
    assert code == 130, err.text  # -p: the run was ended by Ctrl-C
    assert "interrupting the turn" in err.text
    assert Path(slow_env["E2E_CANCELLED"]).read_text() == "cancelled"
    assert "— interrupted (error_during_execution)" in out.text


def test_second_ctrl_c_exits_130(cli: str, tmp_path: Path, slow_env: dict[str, str],
                                 scenario: Callable[[str], Path]) -> None:
    config = tmp_path / "slow.yaml"
    config.write_text(SLOW)
    # Interactive (no -p): the session waits for the next turn after the interrupted one.
    proc = start_toolhost(cli, str(config), "--script", str(scenario(SLOW_SCENARIO)),
                          env=slow_env, stdin=subprocess.PIPE)
    out, err = Lines(proc.stdout), Lines(proc.stderr)
    assert proc.stdin is not None
    proc.stdin.write("wait\n")
    proc.stdin.flush()
    wait_for_file(Path(slow_env["E2E_STARTED"]), proc)
    os.kill(proc.pid, signal.SIGINT)
    assert err.wait_for("interrupting the turn")
    wait_for_file(Path(slow_env["E2E_CANCELLED"]), proc)
    os.kill(proc.pid, signal.SIGINT)
    code = _finish(proc, out, err)
    assert code == 130, err.text


def test_interactive_session_reads_turns_from_stdin(
        cli: str, tool_log: Path, scenario: Callable[[str], Path]) -> None:
    script = scenario("""\
turns:
  - tool_calls:
      - {tool: mcp__e2e__write_note, input: {name: one, text: first}}
  - expect_results:
      - {equals: "saved one: first"}
    text: First answer.
  - text: Second answer.
""")
    env = {"PYTHONPATH": str(CONFIG.parent)}
    proc = start_toolhost(cli, str(CONFIG), "--script", str(script), env=env,
                          stdin=subprocess.PIPE)
    stdout, stderr = proc.communicate("save a note\nand now?\n", timeout=120)
    assert proc.returncode == 0, stderr
    first, second = stdout.index("First answer."), stdout.index("Second answer.")
    assert stdout.index('→ #1 mcp__e2e__write_note(name="one", text="first")') < first < second
    assert stdout.count("— done: ") == 2


def test_ctrl_c_under_p_stops_a_cli_that_ignores_the_interrupt(tmp_path: Path) -> None:
    # The fake CLI never answers `interrupt` nor ends its turn (for a minute): with -p, one
    # Ctrl-C ends the run after the bounded wait (5 s; 1.5 s here, by
    # $TOOLHOST_INTERRUPT_GRACE), the CLI stopped, status 130.
    from .fakecli import ECHO_SERVER, FAKE_CLI, lines_file

    config = tmp_path / "echo.yaml"
    config.write_text(ECHO_SERVER)
    log = tmp_path / "fake.log"
    env = {"FAKE_LOG": str(log), "FAKE_LINES": str(lines_file(tmp_path, [])),
           "FAKE_WAIT": "60", "TOOLHOST_INTERRUPT_GRACE": "1.5"}
    proc = start_toolhost(str(FAKE_CLI), str(config), "--cli", str(FAKE_CLI), "-p", "hi",
                          env=env)
    out, err = Lines(proc.stdout), Lines(proc.stderr)
    deadline = time.monotonic() + 60
    while b'"type":"user"' not in (log.read_bytes() if log.exists() else b""):
        assert proc.poll() is None and time.monotonic() < deadline, err.text
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGINT)
    code = _finish(proc, out, err)  # waits at most 60 s (the fake's own turn) before failing
    assert code == 130, err.text
    assert "did not end the turn 1.5 s after the interrupt: stopping it" in err.text
    assert "Traceback" not in err.text and "WARNING: interrupt" not in err.text
    assert '"subtype":"interrupt"' in log.read_text()  # it was asked first
