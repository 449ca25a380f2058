"""The CLI dies with toolhost: the parent-death signal shim, with real processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolhost.runner.deathsig import with_parent_death_signal


def test_elsewhere_the_argv_is_unchanged() -> None:
    assert with_parent_death_signal(["claude", "-p"], platform="darwin") == ["claude", "-p"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")
def test_the_child_is_killed_when_its_parent_is_killed(tmp_path: os.PathLike[str]) -> None:
    pidfile = os.path.join(str(tmp_path), "child")
    # A parent that starts `sleep` through the shim, then waits; we SIGKILL the parent.
    parent = subprocess.Popen([sys.executable, "-c", f"""
import subprocess, sys, time
from toolhost.runner.deathsig import with_parent_death_signal
child = subprocess.Popen(with_parent_death_signal(["sleep", "6112"]))
open({pidfile!r}, "w").write(str(child.pid))
time.sleep(600)
"""])
    deadline = time.monotonic() + 60
    while not os.path.exists(pidfile) or not Path(pidfile).read_text():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    child = int(Path(pidfile).read_text())
    # the shim exec'd sleep: same pid
    deadline = time.monotonic() + 60
    while b"sleep" not in Path(f"/proc/{child}/cmdline").read_bytes():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 30
    while True:
        try:
            state = Path(f"/proc/{child}/stat").read_text().split(")")[1].split()[0]
        except OSError:
            break  # gone (reaped by init)
        if state == "Z":
            break
        assert time.monotonic() < deadline, "the child outlived its parent"
        time.sleep(0.05)
