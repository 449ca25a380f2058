"""Runs that end together are swept together: ending N runs walks the process tree a few
times, not N times (it was quadratic: 300 calls open at exit took half a minute), and every
escaped descendant of every run is still killed (real processes, real /proc)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from toolhost.backends import reap_batch, reaper

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")

RUNS = 24
# the leader, and a child that left its group (setsid) and so is found by its marker
SCRIPT = "setsid sleep 60 & echo $! > {out}; sleep 60"


class Started:
    def __init__(self) -> None:
        self.procs: list[subprocess.Popen[bytes]] = []
        self.runs: list[reaper.ToolRun] = []
        self.escapees: list[int] = []


@pytest.fixture
def started(tmp_path: Any) -> Iterator[Started]:
    assert reaper.enable_subreaper()
    got = Started()
    for i in range(RUNS):
        run = reaper.ToolRun()
        out = tmp_path / f"pid{i}"
        proc = subprocess.Popen(["sh", "-c", SCRIPT.format(out=out)], start_new_session=True,
                                env=run.env(dict(os.environ)))
        run.started(proc.pid)
        got.procs.append(proc)
        got.runs.append(run)
    for i in range(RUNS):
        out = tmp_path / f"pid{i}"
        for _ in range(500):
            if out.exists() and out.read_text().strip():
                break
            time.sleep(0.01)
        got.escapees.append(int(out.read_text()))
    yield got
    for run in got.runs:
        run.end()
    for proc in got.procs:
        proc.kill()
        proc.wait()


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def count_walks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the listings of the host's own tasks: one per walk of its descendants."""
    calls = [0]
    listdir = os.listdir
    own = f"/proc/{os.getpid()}/task"

    def counting(path: Any = ".") -> list[str]:
        if path == own:
            calls[0] += 1
        return listdir(path)

    monkeypatch.setattr(os, "listdir", counting)
    return calls


def test_all_runs_at_exit_in_a_few_walks(started: Started,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    walks = count_walks(monkeypatch)
    assert reaper.kill_all_tool_processes() >= RUNS
    assert walks[0] <= 6, walks[0]  # a few rounds, not a few per run
    assert not [pid for pid in started.escapees if alive(pid)]
    for proc in started.procs:
        assert proc.wait(timeout=10) is not None
    assert all(run.ended for run in started.runs)
    assert not [run for run in reaper.live_runs() if run in started.runs]


def test_ends_that_arrive_together_share_a_sweep(started: Started,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Each run's own end (one thread each, as calls end), held until all have asked: one
    sweep takes the rest; each end returns with its own escapee dead, and counts it."""
    walks = count_walks(monkeypatch)
    batcher = reaper._batcher
    queued = threading.Event()
    real_sweep: Callable[..., dict[str, int]] = reap_batch.sweep
    first = [True]

    def held_sweep(runs: Any, orphans: Any) -> dict[str, int]:
        if first[0]:
            first[0] = False
            assert queued.wait(30)
        return real_sweep(runs, orphans)

    monkeypatch.setattr(reap_batch, "sweep", held_sweep)
    counts: dict[int, int] = {}

    def end(i: int) -> None:
        counts[i] = started.runs[i].end()
        assert not alive(started.escapees[i])

    threads = [threading.Thread(target=end, args=(i,)) for i in range(RUNS)]
    for thread in threads:
        thread.start()
    for _ in range(3000):  # until every other end is waiting for the first sweep
        with batcher._cond:
            if len(batcher._queue) == RUNS - 1:
                break
        time.sleep(0.01)
    queued.set()
    for thread in threads:
        thread.join(30)
    assert not [t for t in threads if t.is_alive()]
    assert counts == dict.fromkeys(range(RUNS), 2)  # its escapee and its foreground sleep
    assert walks[0] <= 12, walks[0]  # two sweeps of a few rounds each
    assert not [pid for pid in started.escapees if alive(pid)]


def test_one_run_ended_by_two_callers_at_once(started: Started) -> None:
    """The output cap and the call's own end may end one run together: both return."""
    run = started.runs[0]
    results: list[int] = []
    threads = [threading.Thread(target=lambda: results.append(run.end())) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not [t for t in threads if t.is_alive()]
    assert len(results) == 4
    assert not alive(started.escapees[0])
    assert alive(started.escapees[1])  # another run's is not touched
