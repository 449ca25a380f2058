"""runner.signal_watch: the kernel's side is read at most every DEEP_EVERY, and a change made
there between two reads is still put back (from the loop), and told."""

from __future__ import annotations

import asyncio
import ctypes
import importlib
import signal
from types import FrameType

import pytest

from toolhost.runner import signal_watch
from toolhost.runner.owned_signals import _C
from toolhost.runner.signal_watch import DEEP_EVERY, SignalWatch

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
    told: list[list[str]] = []

    async def main() -> list[str]:
        watch = SignalWatch([SIGNUM], _C, asyncio.get_running_loop(), told.append)
        assert watch.put_back() == []  # the first call's read: nothing moved
        _ignore_below_python()
        now = watch.put_back()  # within DEEP_EVERY of the last read: owed, not read
        for _ in range(200):
            if told:
                break
            await asyncio.sleep(DEEP_EVERY)
        return now

    now = asyncio.run(main())
    assert now == []
    assert told == [["SIGUSR2"]]
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
    clock[0] += DEEP_EVERY
    assert watch.put_back() == ["SIGUSR2"]
    signal.raise_signal(SIGNUM)
    assert handled == [SIGNUM]


def test_calls_faster_than_the_deep_read_do_not_each_read_the_kernel(
        handled: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    # /proc/self/status costs ~7 us of system time a read, more than the rest of a call's
    # watch; 500 calls inside one DEEP_EVERY read it once
    clock = [1000.0]
    monkeypatch.setattr(signal_watch, "_monotonic", lambda: clock[0])
    watch = SignalWatch([SIGNUM], _C)
    reads = [0]
    real = watch._read_status

    def counted() -> bytes:
        reads[0] += 1
        return real()

    monkeypatch.setattr(watch, "_read_status", counted)
    for _ in range(500):
        assert watch.put_back() == []
        clock[0] += DEEP_EVERY / 1000
    assert reads[0] == 1


def test_a_python_level_change_is_put_back_at_once(handled: list[int],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # what Python's own table shows is read after every call, whatever the deep read's time
    clock = [1000.0]
    monkeypatch.setattr(signal_watch, "_monotonic", lambda: clock[0])
    watch = SignalWatch([SIGNUM], _C)
    assert watch.put_back() == []
    _C["signal"](SIGNUM, importlib.import_module("_signal").SIG_IGN)
    assert watch.put_back() == ["SIGUSR2"]
    signal.raise_signal(SIGNUM)
    assert handled == [SIGNUM]
