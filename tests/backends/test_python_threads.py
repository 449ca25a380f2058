"""The bounded pool for in-process sync tools: stopping, stuck threads, the caps, recursion."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from toolhost.backends import threads
from toolhost.backends.base import CallContext
from toolhost.backends.threads import SyncPool, ToolStuck
from toolhost.compile import compile_tools
from toolhost.config.loader import load_config

pytestmark = pytest.mark.anyio

RELEASE = threading.Event()


def busy_loop() -> None:
    while True:
        pass


def blocked() -> str:
    RELEASE.wait()  # blocked in C: cannot be stopped
    return "released"


def recurse(n: int) -> int:
    return 0 if n == 0 else recurse(n - 1) + 1


def alive(name: str) -> int:
    return sum(1 for t in threading.enumerate() if t.name == name and t.is_alive())


async def test_a_busy_loop_is_stopped_on_timeout_and_its_thread_is_freed() -> None:
    pool = SyncPool()
    with anyio.move_on_after(0.2):
        await pool.run(busy_loop, tool="busy")
    stats = pool.stats()
    assert (stats.running, stats.stuck, stats.stopped_total) == (0, 0, 1)
    assert await pool.run(lambda: "next", tool="busy") == "next"  # same tool, fine


async def test_a_blocked_thread_is_stuck_counted_reported_then_refused_at_the_cap() -> None:
    RELEASE.clear()
    pool = SyncPool(max_per_tool=2, max_stuck=3, stop_grace=0.05)
    for expected in (1, 2):
        with pytest.raises(ToolStuck) as stuck:
            with anyio.fail_after(0.1):
                await pool.run(blocked, tool="hang")
        assert f"{expected} of this tool's calls are stuck" in str(stuck.value)
        assert "isolation: process" in str(stuck.value)
    assert pool.stats().stuck_by_tool == {"hang": 2}
    # At the cap: refused at once, no new thread, no wait.
    before = pool.stats().threads
    with pytest.raises(ToolStuck, match="was not started: 2 earlier calls"):
        await pool.run(blocked, tool="hang")
    assert pool.stats().threads == before
    # Another tool still runs, until the pool's own cap.
    assert await pool.run(lambda: 7, tool="other") == 7
    with pytest.raises(ToolStuck), anyio.fail_after(0.1):
        await pool.run(blocked, tool="other")
    with pytest.raises(ToolStuck, match="3 calls of sync python tools are still running"):
        await pool.run(lambda: 1, tool="third")
    RELEASE.set()  # the stuck calls end: their threads are free, calls run again
    with anyio.fail_after(5):
        while pool.stats().stuck:
            await anyio.sleep(0.01)
    assert await pool.run(lambda: "again", tool="hang") == "again"
    assert pool.stats().stuck_total == 3


async def test_45_hung_calls_leave_at_most_the_cap_of_threads() -> None:
    RELEASE.clear()
    pool = SyncPool(stop_grace=0.02)
    outcomes: list[str] = []

    async def one() -> None:
        try:
            with anyio.fail_after(0.1):
                await pool.run(blocked, tool="hang45")
        except ToolStuck as exc:
            outcomes.append("refused" if "not started" in str(exc) else "stuck")
        except TimeoutError:  # waited for one of the tool's places, in vain
            outcomes.append("waited")

    async with anyio.create_task_group() as tg:
        for _ in range(45):
            tg.start_soon(one)
    assert len(outcomes) == 45
    assert outcomes.count("stuck") == threads.MAX_PER_TOOL
    # the stuck ones, plus (under load) an idle thread or two that calls timed out before
    # using: bounded by the cap, not by the 45 calls, and they leave after IDLE_SECONDS
    stats = pool.stats()
    assert stats.threads - stats.idle == threads.MAX_PER_TOOL
    assert stats.threads <= 2 * threads.MAX_PER_TOOL
    # the tool's places are all stuck: a new call is refused at once
    with pytest.raises(ToolStuck, match="was not started"):
        await pool.run(blocked, tool="hang45")
    assert await pool.run(lambda: "honest", tool="echo") == "honest"
    RELEASE.set()


async def test_exceptions_come_back_with_a_short_traceback() -> None:
    pool = SyncPool()
    with pytest.raises(RecursionError) as info:
        await pool.run(lambda: recurse(10**6), tool="deep")
    depth = 0
    tb = info.value.__traceback__
    while tb is not None:
        depth, tb = depth + 1, tb.tb_next
    assert depth <= threads.MAX_TRACEBACK_FRAMES + 5  # our own frames on top


async def test_the_recursion_limit_is_capped_and_put_back() -> None:
    pool = threads.default_pool()
    before = sys.getrecursionlimit()

    def raise_limit() -> int:
        sys.setrecursionlimit(10**8)
        return sys.getrecursionlimit()

    assert await pool.run(raise_limit, tool="limit") == threads.MAX_RECURSION_LIMIT
    assert sys.getrecursionlimit() == before


async def test_threads_are_daemons_with_names() -> None:
    pool = SyncPool()
    name = await pool.run(lambda: threading.current_thread().name, tool="t")
    assert name == "toolhost-sync-tool"
    assert all(t.daemon for t in threading.enumerate() if t.name == name)


def _batch_allowed() -> bool:
    """Whether a thread here may turn batch and back (a sandbox may refuse the call)."""
    if not hasattr(os, "SCHED_BATCH"):
        return False
    allowed: list[bool] = []

    def probe() -> None:
        try:
            os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
            allowed.append(True)
        except OSError:
            allowed.append(False)
    thread = threading.Thread(target=probe)
    thread.start()
    thread.join()
    return allowed[0]


LINUX_POLICIES = pytest.mark.skipif(not _batch_allowed(),
                                    reason="no SCHED_BATCH here, or threads may not use it")


def policy_here_and_in_a_child() -> tuple[int, int, int]:
    """The calling thread's policy, a child process's, and a new thread's."""
    child = subprocess.run([sys.executable, "-c", "import os; print(os.sched_getscheduler(0))"],
                           capture_output=True, text=True, check=True)
    seen: list[int] = []
    thread = threading.Thread(target=lambda: seen.append(os.sched_getscheduler(0)))
    thread.start()
    thread.join()
    return os.sched_getscheduler(0), int(child.stdout), seen[0]


@LINUX_POLICIES
async def test_a_waiting_thread_is_batch_scheduled_and_a_tool_runs_normal() -> None:
    pool = SyncPool()
    policies = await pool.run(policy_here_and_in_a_child, tool="t")
    # the tool, its children and its threads: normal, never the pool's batch policy
    assert policies == (os.SCHED_OTHER,) * 3
    # a call from a busy loop (something else due, not yielded to): its thread's wake-up
    # could preempt the loop, so it waits for the next call batch (one from an idle loop
    # stays normal: tests/backends/test_thread_sched.py)
    asyncio.get_running_loop().call_soon(lambda: None)
    tid = await pool.run(threading.get_native_id, tool="t")
    with anyio.fail_after(5):  # the thread turns batch just before it waits for work
        while os.sched_getscheduler(tid) != os.SCHED_BATCH:
            await anyio.sleep(0.001)
    assert await pool.run(lambda: os.sched_getscheduler(0), tool="t") == os.SCHED_OTHER


@LINUX_POLICIES
async def test_a_policy_the_user_chose_is_left_alone() -> None:
    os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))  # inherited by new threads
    try:
        pool = SyncPool()
        assert await pool.run(lambda: os.sched_getscheduler(0), tool="t") == os.SCHED_BATCH
    finally:
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))


@pytest.fixture
def faulty_config(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "th_faulty_threads.py").write_text(
        "import time\n"
        "def spin() -> str:\n"
        "    while True:\n        pass\n"
        "def nap(seconds: float) -> str:\n"
        "    time.sleep(seconds)\n    return 'woke'\n")
    config = tmp_path / "t.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    timeout: 0.3s\n    tools:\n"
                      "      spin: {python: 'th_faulty_threads:spin'}\n"
                      "      nap: {python: 'th_faulty_threads:nap'}\n")
    yield config
    sys.modules.pop("th_faulty_threads", None)


async def test_a_compiled_tool_reports_stopped_and_stuck_calls(faulty_config: Path) -> None:
    compiled = compile_tools(load_config(str(faulty_config)))
    try:
        spin = compiled.tool("s", "spin")
        started = time.monotonic()
        result = await spin.call({}, CallContext(tool=spin.wire_name))
        assert result.is_error and "timed out after 0.3s and was stopped" in result.text_content
        assert time.monotonic() - started < 5
        nap = compiled.tool("s", "nap")
        stuck = await nap.call({"seconds": 2}, CallContext(tool=nap.wire_name))
        assert stuck.is_error
        assert stuck.text_content.startswith("Tool 'nap' did not finish in time and its "
                                             "thread could not be stopped")
        fine = await nap.call({"seconds": 0}, CallContext(tool=nap.wire_name))
        assert fine.text_content == "woke"
    finally:
        await compiled.aclose()


async def test_a_call_waiting_for_its_tools_place_runs_without_the_loop() -> None:
    # Under load (more calls than places) the thread that frees a place runs the next
    # waiting call itself: no wait ends on the event loop first. Here the loop is held
    # (it never awaits) once the first call may end: the second still runs.
    pool = SyncPool(max_per_tool=1)
    go, second_ran = threading.Event(), threading.Event()
    results: list[str] = []

    def first() -> str:
        go.wait(10)
        return "first"

    async def call(fn: object, name: str) -> None:
        results.append(await pool.run(fn, tool=name))  # type: ignore[arg-type]

    async with anyio.create_task_group() as tg:
        tg.start_soon(call, first, "one")
        tg.start_soon(call, lambda: second_ran.set() or "second", "one")
        with anyio.fail_after(10):
            await anyio.wait_all_tasks_blocked()  # both calls are in the pool's hands
        assert pool.stats().running == 1
        go.set()
        assert second_ran.wait(10), "the waiting call did not run while the loop was held"
    assert sorted(results) == ["first", "second"]
    stats = pool.stats()
    assert (stats.running, stats.waiting) == (0, 0)


async def test_a_waiting_call_that_times_out_leaves_the_queue_unrun() -> None:
    RELEASE.clear()
    pool = SyncPool(max_per_tool=1, stop_grace=0.02)
    ran: list[int] = []
    async with anyio.create_task_group() as tg:
        async def hold() -> None:
            with pytest.raises(ToolStuck), anyio.fail_after(0.1):
                await pool.run(blocked, tool="slow")
        tg.start_soon(hold)
        with anyio.fail_after(10):
            while pool.stats().running != 1:
                await anyio.sleep(0.005)
        with pytest.raises(TimeoutError), anyio.fail_after(0.05):
            await pool.run(lambda: ran.append(1), tool="slow")
        assert pool.stats().waiting == 0
    RELEASE.set()
    with anyio.fail_after(10):
        while pool.stats().stuck:
            await anyio.sleep(0.005)
    assert await pool.run(lambda: "next", tool="slow") == "next"
    assert ran == []
