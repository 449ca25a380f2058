"""A signal while the Claude CLI is starting (``initialize`` not answered yet) ends the run
with the short grace: a CLI that ignores its closed stdin and SIGTERM is killed within
seconds, not after the full exit grace (10 s + 3 s).

The three signals are tried on three runs started side by side (each waits out the same
grace, so one test costs one grace, not three)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from toolhost.runner.process import EXIT_GRACE, HURRY_GRACE, hurry_grace

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "examples" / "configs" / "demo.yaml"
TOOLHOST = str(Path(sys.executable).parent / "toolhost")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

# never answers initialize; ignores SIGTERM/SIGHUP and its stdin
HANG = """\
import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
open(sys.argv[1], "w").write(str(os.getpid()))
time.sleep(600)
"""

GRACE = 0.5
CASES = {"SIGTERM": (signal.SIGTERM, 143), "SIGHUP": (signal.SIGHUP, 129),
         "SIGINT": (signal.SIGINT, 130)}


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@dataclass
class _Run:
    name: str
    signum: int
    status: int
    pid_file: Path
    host: subprocess.Popen[bytes]
    cli_pid: int = 0
    sent: float = 0.0
    took: float = 0.0


def _start(tmp_path: Path, name: str, signum: int, status: int) -> _Run:
    pid_file = tmp_path / f"{name}.pid"
    cli = tmp_path / f"claude-{name}"
    cli.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{tmp_path / "hang.py"}" '
                   f'"{pid_file}"\n')
    cli.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("TOOLHOST_DEBUG", "TOOLHOST_CLI")}
    env["TOOLHOST_SIGNAL_GRACE"] = str(GRACE)  # the short grace, shorter still (1 s, not 4)
    host = subprocess.Popen([TOOLHOST, "run", str(CONFIG), "--cli", str(cli), "-p", "hi"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, start_new_session=True)
    return _Run(name, signum, status, pid_file, host)


def test_a_signal_during_start_up_uses_the_short_grace(tmp_path: Path) -> None:
    (tmp_path / "hang.py").write_text(HANG)
    runs = [_start(tmp_path, name, signum, status)
            for name, (signum, status) in CASES.items()]
    try:
        deadline = time.monotonic() + 60
        for run in runs:  # each signalled as soon as its CLI is up
            while not (run.pid_file.exists() and run.pid_file.read_text()):
                assert time.monotonic() < deadline and run.host.poll() is None, run.name
                time.sleep(0.05)
            run.cli_pid = int(run.pid_file.read_text())
            run.sent = time.monotonic()
            run.host.send_signal(run.signum)
        for run in runs:
            run.host.wait(timeout=60)
            run.took = time.monotonic() - run.sent
        for run in runs:
            _, err = run.host.communicate()
            assert run.host.returncode == run.status, (run.name, err)
            # waited for one after the other: a later one's time is at most its own
            assert run.took < 2 * GRACE + 3 < EXIT_GRACE, (run.name, run.took, err)
            assert not _alive(run.cli_pid), run.name
    finally:
        for run in runs:
            if run.host.poll() is None:
                run.host.kill()
                run.host.wait()
            if run.pid_file.exists() and run.pid_file.read_text():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(run.pid_file.read_text()), signal.SIGKILL)


@pytest.mark.parametrize(("raw", "seconds"), [
    ("0.5", 0.5), ("60", 60.0), ("1e1", 10.0), ("", HURRY_GRACE), ("0.4", HURRY_GRACE),
    ("61", HURRY_GRACE), ("nan", HURRY_GRACE), ("inf", HURRY_GRACE), ("-1", HURRY_GRACE),
    ("two", HURRY_GRACE)])
def test_the_signal_grace_is_read_from_the_environment_within_bounds(
        raw: str, seconds: float) -> None:
    assert hurry_grace({"TOOLHOST_SIGNAL_GRACE": raw}) == seconds
