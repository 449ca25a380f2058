"""A pool thread's OS scheduling: batch while it waits, normal while a tool runs."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable

import anyio
import pytest

from toolhost.backends.thread_sched import Scheduling
from toolhost.backends.threads import SyncPool

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


def test_a_thread_changes_only_what_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    # each change is a system call: batch twice, or normal when normal, is none
    real = os.sched_setscheduler
    calls: list[int] = []

    def counted(pid: int, policy: int, param: os.sched_param) -> None:
        calls.append(policy)
        real(pid, policy, param)

    def steps() -> int:
        scheduling = Scheduling()
        scheduling.working()  # normal already
        scheduling.waiting()
        scheduling.waiting()
        scheduling.working()
        scheduling.working()
        return os.sched_getscheduler(0)
    if not _batch_allowed():
        pytest.skip("threads may not turn batch here (a sandbox refused it)")
    monkeypatch.setattr(os, "sched_setscheduler", counted)
    assert in_a_thread(steps) == os.SCHED_OTHER
    assert calls == [os.SCHED_BATCH, os.SCHED_OTHER]


def _pool_calls(busy: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], int]:
    """20 sequential calls of a sync pool, from a loop with (``busy``) or without other work
    due: the policy changes its thread made, and its policy as it waits for the next."""
    real = os.sched_setscheduler
    calls: list[int] = []

    def counted(pid: int, policy: int, param: os.sched_param) -> None:
        calls.append(policy)
        real(pid, policy, param)

    monkeypatch.setattr(os, "sched_setscheduler", counted)
    pool = SyncPool()

    async def main() -> int:
        loop = asyncio.get_running_loop()
        tids: set[int] = set()
        for _ in range(20):
            if busy:
                loop.call_soon(lambda: None)  # something else due: the loop is not idle
            await pool.run(lambda: tids.add(threading.get_native_id()), tool="t")
        (tid,) = tids  # (the thread took its policy before it handed the call back)
        return os.sched_getscheduler(tid)

    waits_as = anyio.run(main)
    return calls, waits_as


def test_calls_from_an_idle_loop_change_no_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    # An idle loop yields to the call itself: the thread's wake-up cannot preempt it, so the
    # thread stays normal (before: batch and normal again around every call, 40 changes)
    if not _batch_allowed():
        pytest.skip("threads may not turn batch here (a sandbox refused it)")
    calls, waits_as = _pool_calls(False, monkeypatch)
    assert calls.count(os.SCHED_BATCH) <= 1 and len(calls) <= 2
    assert waits_as == os.SCHED_OTHER


def test_calls_from_a_busy_loop_leave_the_thread_waiting_batch(
        monkeypatch: pytest.MonkeyPatch) -> None:
    if not _batch_allowed():
        pytest.skip("threads may not turn batch here (a sandbox refused it)")
    calls, waits_as = _pool_calls(True, monkeypatch)
    assert waits_as == os.SCHED_BATCH
    assert calls[-1] == os.SCHED_BATCH and os.SCHED_OTHER in calls


def test_a_policy_a_tool_gave_its_thread_is_put_back_before_the_next_call() -> None:
    if not _batch_allowed():
        pytest.skip("threads may not turn batch here (a sandbox refused it)")
    pool = SyncPool()

    def turns_itself_batch() -> int:
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
        return threading.get_native_id()

    async def main() -> tuple[int, tuple[int, int]]:
        first = await pool.run(turns_itself_batch, tool="t")
        return first, await pool.run(lambda: (threading.get_native_id(),
                                              os.sched_getscheduler(0)), tool="t")

    first, (then, policy) = anyio.run(main)
    assert then == first  # the same pool thread (it was the one idle)
    assert policy == os.SCHED_OTHER
