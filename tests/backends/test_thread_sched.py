"""A pool thread's OS scheduling: batch while it waits, normal while a tool runs."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

import pytest

from toolhost.backends.thread_sched import Scheduling

pytestmark = pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="no SCHED_BATCH here")


def _batch_allowed() -> bool:
    def probe() -> int:
        try:
            os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
        except OSError:
            return 0
        return 1
    return hasattr(os, "SCHED_BATCH") and in_a_thread(probe) == 1



def in_a_thread(fn: Callable[[], int]) -> int:
    seen: list[int] = []
    thread = threading.Thread(target=lambda: seen.append(fn()))
    thread.start()
    thread.join()
    return seen[0]


def test_waiting_is_batch_and_working_is_normal() -> None:
    if not _batch_allowed():
        pytest.skip("threads may not turn batch here (a sandbox refused it)")
    def steps() -> int:
        scheduling = Scheduling()
        scheduling.waiting()
        assert os.sched_getscheduler(0) == os.SCHED_BATCH
        scheduling.working()
        return os.sched_getscheduler(0)
    assert in_a_thread(steps) == os.SCHED_OTHER


def test_a_refused_change_leaves_the_thread_normal_and_stops_trying(
        monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.sched_setscheduler
    calls: list[int] = []

    def refuse_batch(pid: int, policy: int, param: os.sched_param) -> None:
        calls.append(policy)
        if policy == os.SCHED_BATCH:
            raise PermissionError("not allowed")
        real(pid, policy, param)

    def steps() -> int:
        scheduling = Scheduling()
        scheduling.waiting()
        scheduling.working()
        scheduling.waiting()
        return os.sched_getscheduler(0)
    monkeypatch.setattr(os, "sched_setscheduler", refuse_batch)
    assert in_a_thread(steps) == os.SCHED_OTHER
    assert calls == [os.SCHED_BATCH, os.SCHED_OTHER]  # one try, then normal, then no more
