"""The host's sweep of its orphans (``reaper._orphans``): what a run's killed subreaper left
to the host is found, and nothing the host started itself, nor a live run's process (a
marker naming no live run spares nothing), nor a process older than the run (real
processes, real /proc)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from toolhost.backends import reaper, watchdog

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")

SLEEP = [sys.executable, "-c", "import time; time.sleep(60)"]


def start_time(pid: int) -> int:
    return int(reaper._fields(pid)[19])


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[bytes]]]:
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for proc in procs:
        proc.kill()
        proc.wait()


def spawn(procs: list[subprocess.Popen[bytes]], *, session: bool,
          env: dict[str, str] | None = None) -> int:
    proc = subprocess.Popen(SLEEP, start_new_session=session, env=env)
    procs.append(proc)
    return proc.pid


def test_only_new_strangers_are_orphans(started: list[subprocess.Popen[bytes]]) -> None:
    clean = {k: v for k, v in os.environ.items() if k != reaper.MARKER}
    old = spawn(started, session=True, env=clean)  # a stranger older than the run
    time.sleep(0.05)  # start times count clock ticks (10 ms)
    leader = spawn(started, session=True, env=clean)
    run = reaper.ToolRun()
    run.started(leader)  # a live run's leader: known
    try:
        time.sleep(0.05)
        own_session = spawn(started, session=False, env=clean)  # as `git` is started
        marked = spawn(started, session=True, env={**clean, reaper.MARKER: run.run_id})
        # a marker naming no live run is written by whoever likes (env -i TOOLHOST_RUN_ID=x)
        forged = spawn(started, session=True, env={**clean, reaper.MARKER: "other.1"})
        prefixed = spawn(started, session=True, env={**clean, reaper.MARKER: run.run_id + "0"})
        stranger = spawn(started, session=True, env=clean)
        time.sleep(0.2)  # each has exec'd its program (its environment is its own)
        assert start_time(old) < run.born <= start_time(stranger)
        found = reaper._orphans(run.born)
        assert {stranger, forged, prefixed} <= set(found)
        assert not {old, leader, own_session, marked} & set(found)
        assert watchdog.pid() is not None  # started by ``started``, after the leader
        assert watchdog.pid() not in found
    finally:
        run.end()


def test_a_run_being_started_is_waited_for() -> None:
    """While a leader is between ``starting`` and ``started`` it is not known: the sweep
    waits for it rather than take it for an orphan."""
    run = reaper.ToolRun()
    run.starting()
    order: list[str] = []
    sweep = threading.Thread(target=lambda: (reaper._orphans(0), order.append("swept")))
    sweep.start()
    time.sleep(0.1)
    order.append("started")
    run.not_started()
    sweep.join(5)
    assert order == ["started", "swept"]
    assert reaper._pending == 0
