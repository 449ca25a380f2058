"""runner.signal_watch: the state is looked at after calls at most every EVERY, and a change made
between two looks is still put back (from the loop, when the owed look is made), and told."""

from __future__ import annotations

import asyncio
import ctypes
import importlib
import signal
import threading
from types import FrameType

import pytest

from toolhost.runner import signal_watch
from toolhost.runner.owned_signals import _C
from toolhost.runner.signal_watch import EVERY, SignalWatch

SIGNUM = signal.SIGUSR2  # not one pytest or xdist holds


@pytest.fixture
def handled() -> list[int]:
    seen: list[int] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        seen.append(signum)

    before = signal.signal(SIGNUM, handler)
    try:
        yield seen
    finally:
        signal.signal(SIGNUM, before)


def _ignore_below_python() -> None:
    """What a tool's ctypes call does: the kernel ignores the signal, Python's table is as
    it was."""
    libc = ctypes.CDLL(None)
    libc.signal.argtypes = (ctypes.c_int, ctypes.c_void_p)
    libc.signal.restype = ctypes.c_void_p
    libc.signal(int(SIGNUM), 1)  # SIG_IGN


def test_a_kernel_change_between_reads_is_put_back_from_the_loop(handled: list[int]) -> None:
    told: list[tuple[str, list[str]]] = []

    async def main() -> list[str]:
        watch = SignalWatch([SIGNUM], _C, asyncio.get_running_loop(),
                            lambda tool, changed: told.append((tool, changed)))
        try:
            assert watch.put_back("first") == []  # the first call's look: nothing moved
            _ignore_below_python()
            now = watch.put_back("second")  # within EVERY of the last look: owed, not made
            for _ in range(500):
                if told:
                    break
                await asyncio.sleep(EVERY)
            return now
        finally:
            watch.close()

    now = asyncio.run(main())
    assert now == []
    assert told == [("second", ["SIGUSR2"])]
    signal.raise_signal(SIGNUM)  # the kernel calls Python's handler again
    assert handled == [SIGNUM]


def test_a_change_after_the_last_read_is_put_back_at_the_next_call(handled: list[int],
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    ) -> None:
    clock = [1000.0]
    monkeypatch.setattr(signal_watch, "_monotonic", lambda: clock[0])
    watch = SignalWatch([SIGNUM], _C)
    assert watch.put_back() == []
    _ignore_below_python()
    clock[0] += EVERY
    assert watch.put_back() == ["SIGUSR2"]
    signal.raise_signal(SIGNUM)
    assert handled == [SIGNUM]


def test_calls_faster_than_the_deep_read_do_not_each_read_the_kernel(
        handled: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    # /proc/self/status costs ~7 us of system time a read, more than the rest of a call's
    # watch; 500 calls inside one EVERY read it once
    clock = [1000.0]
    monkeypatch.setattr(signal_watch, "_monotonic", lambda: clock[0])
    reads = [0]

    async def main() -> None:
        watch = SignalWatch([SIGNUM], _C, asyncio.get_running_loop())
        real = watch._read_status

        def counted() -> bytes:
            reads[0] += 1
            return real()

        monkeypatch.setattr(watch, "_read_status", counted)
        try:
            for _ in range(500):
                assert watch.put_back() == []
                clock[0] += EVERY / 1000
        finally:
            watch.close()

    asyncio.run(main())
    assert reads[0] == 1


def test_without_a_loop_to_owe_it_to_every_call_looks(handled: list[int],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr(signal_watch, "_monotonic", lambda: clock[0])
    watch = SignalWatch([SIGNUM], _C)
    assert watch.put_back() == []
    _ignore_below_python()
    assert watch.put_back() == ["SIGUSR2"]  # the same instant: no look owed, one made
    signal.raise_signal(SIGNUM)
    assert handled == [SIGNUM]


def test_a_python_level_change_between_looks_is_put_back_from_the_loop(
        handled: list[int]) -> None:
    told: list[tuple[str, list[str]]] = []

    async def main() -> None:
        watch = SignalWatch([SIGNUM], _C, asyncio.get_running_loop(),
                            lambda tool, changed: told.append((tool, changed)))
        try:
            assert watch.put_back("first") == []
            _C["signal"](SIGNUM, importlib.import_module("_signal").SIG_IGN)
            assert watch.put_back("second") == []
            for _ in range(500):
                if told:
                    break
                await asyncio.sleep(EVERY)
        finally:
            watch.close()

    asyncio.run(main())
    assert told == [("second", ["SIGUSR2"])]
    signal.raise_signal(SIGNUM)
    assert handled == [SIGNUM]


def test_the_watch_s_thread_ends_when_it_is_closed(handled: list[int]) -> None:
    async def main() -> threading.Thread | None:
        watch = SignalWatch([SIGNUM], _C, asyncio.get_running_loop())
        watch.put_back("first")
        watch.put_back("second")  # owed: the thread waits for its time
        thread = watch._thread
        watch.close()
        return thread

    thread = asyncio.run(main())
    assert thread is not None
    thread.join(timeout=30)
    assert not thread.is_alive()
