"""A signal while the Claude CLI is starting (``initialize`` not answered yet) ends the run
with the short grace: a CLI that ignores its closed stdin and SIGTERM is killed within
seconds, not after the full exit grace (10 s + 3 s)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolhost.runner.process import EXIT_GRACE, HURRY_GRACE

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


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129),
                                                (signal.SIGINT, 130)],
                         ids=["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_during_start_up_uses_the_short_grace(tmp_path: Path, signum: int,
                                                        status: int) -> None:
    pid_file = tmp_path / "cli.pid"
    (tmp_path / "hang.py").write_text(HANG)
    cli = tmp_path / "claude"
    cli.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{tmp_path / "hang.py"}" '
                   f'"{pid_file}"\n')
    cli.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("TOOLHOST_DEBUG", "TOOLHOST_CLI")}
    host = subprocess.Popen([TOOLHOST, "run", str(CONFIG), "--cli", str(cli), "-p", "hi"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not (pid_file.exists() and pid_file.read_text()):
            assert time.monotonic() < deadline and host.poll() is None
            time.sleep(0.05)
        cli_pid = int(pid_file.read_text())
        sent = time.monotonic()
        host.send_signal(signum)
        host.wait(timeout=60)
        took = time.monotonic() - sent
        _, err = host.communicate()
        assert host.returncode == status, err
        assert took < 2 * HURRY_GRACE + 3 < EXIT_GRACE, (took, err)
        assert not _alive(cli_pid)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
        if pid_file.exists() and pid_file.read_text():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
