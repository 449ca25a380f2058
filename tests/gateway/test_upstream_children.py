"""What an upstream starts ends with it: the whole process group is stopped, also when the
upstream itself exits at the end of its stdin (as most servers do) and leaves workers behind."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from .conftest import hostile_config


def running_with(marker: str) -> list[int]:
    """PIDs whose command line holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if marker.encode() in handle.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def gone_within(marker: str, seconds: float) -> list[int]:
    """The processes still running with ``marker`` after waiting up to ``seconds``."""
    deadline = time.monotonic() + seconds
    while (left := running_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


# how the upstream's use ends: a call answered and the host exiting, or a start that fails
# (no answer to tools/list within connect_timeout); each kind of worker in its own host, the
# three hosts side by side
@pytest.mark.parametrize("mode", ["", "hang_list"])
def test_workers_of_an_upstream_end_with_it(tmp_path: Path, mode: str) -> None:
    config = hostile_config(tmp_path, connect_timeout="3s" if mode else "60s")
    markers = {kind: f"toolhost-test-worker-{uuid.uuid4().hex}"
               for kind in ("plain", "stubborn", "orphan")}
    try:
        calls = {kind: subprocess.Popen(
            [sys.executable, "-m", "toolhost", "call", str(config), "h.echo", "text=hi"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "HOSTILE_WORKER": marker, "HOSTILE_WORKER_KIND": kind,
                 "HOSTILE_MODE": mode}) for kind, marker in markers.items()}
        for kind, process in calls.items():
            out, err = process.communicate(timeout=60)
            if mode:
                assert process.returncode != 0 and "tools" in err, (kind, err)
            else:
                assert process.returncode == 0 and "called echo" in out, (kind, err)
        for kind, marker in markers.items():
            # the stubborn one needs the SIGKILL that follows 2 s after SIGTERM
            assert gone_within(marker, 6) == [], f"left running ({kind}, {mode or 'call'})"
    finally:
        for marker in markers.values():
            for pid in running_with(marker):
                os.kill(pid, 9)
