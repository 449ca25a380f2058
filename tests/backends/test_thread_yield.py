"""A quick sync call taken back by an idle event loop without a wake-up
(toolhost/backends/threads.py, ``_yield_until_done``): the loop gives the CPU to the pool
thread for a moment instead of sleeping in its selector until the thread's byte arrives.

Each outcome of the race between the window's end and the thread's hand-back must give the
call's value (or its exception) exactly once; a call longer than the window is awaited as
before, and a timeout still stops it.
"""

from __future__ import annotations

import asyncio
import selectors
import time
from typing import Any

import anyio
import pytest

from toolhost.backends import threads
from toolhost.backends.threads import SyncPool


class CountingSelector(selectors.DefaultSelector):  # type: ignore[misc,valid-type]
    """A real selector that counts the times the loop waited in it."""

    def __init__(self) -> None:
        super().__init__()
        self.selects = 0

    def select(self, timeout: float | None = None) -> Any:
        self.selects += 1
        return super().select(timeout)


def run_on_counted_loop(main: Any) -> tuple[Any, int]:
    selector = CountingSelector()
    loop = asyncio.SelectorEventLoop(selector)
    try:
        value = loop.run_until_complete(main())
    finally:
        loop.close()
    return value, selector.selects


def test_quick_calls_come_back_without_a_turn_of_the_loop(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    # A window long enough for any quick call (the test sets it): each of the 20 calls is
    # taken back while the loop waits, so the loop never sleeps in its selector for them.
    # (Before: every call was handed back through the pool's pipe, one select at least.)
    monkeypatch.setattr(threads, "YIELD_SECONDS", 30.0, raising=False)
    pool = SyncPool()

    async def main() -> tuple[list[int], int]:
        await pool.run(lambda: 0, tool="warm")  # the pool's thread and waker exist now
        selector = asyncio.get_running_loop()._selector  # type: ignore[attr-defined]
        before = selector.selects
        got = [await pool.run(lambda i=i: i * i, tool="square") for i in range(20)]
        return got, selector.selects - before

    (got, selects), _ = run_on_counted_loop(main)
    assert got == [i * i for i in range(20)]
    assert selects == 0


@pytest.mark.parametrize("window", [0.0, 1e-6, 0.0002, 30.0])
def test_every_window_gives_each_value_and_exception_once(monkeypatch: pytest.MonkeyPatch,
                                                          window: float) -> None:
    # 0: the loop never waits (the pipe as before); 1e-6: the window ends while the thread
    # runs, so both sides race for the hand-back; 30: it always comes back in the window.
    monkeypatch.setattr(threads, "YIELD_SECONDS", window)
    pool = SyncPool()

    def fails(i: int) -> int:
        raise ValueError(f"no {i}")

    def slow(i: int) -> int:
        time.sleep(0.002)  # longer than the default window
        return -i

    async def main() -> list[Any]:
        out: list[Any] = []
        for i in range(60):
            if i % 3 == 0:
                try:
                    await pool.run(lambda i=i: fails(i), tool="fails")
                except ValueError as exc:
                    out.append(str(exc))
            elif i % 3 == 1:
                out.append(await pool.run(lambda i=i: i, tool="quick"))
            else:
                out.append(await pool.run(lambda i=i: slow(i), tool="slow"))
        # and concurrently: the last call of a turn may wait while others are handed back
        out.append(sorted(await asyncio.gather(
            *(pool.run(lambda i=i: i, tool="many") for i in range(32)))))
        return out

    got, _ = run_on_counted_loop(main)
    want: list[Any] = [f"no {i}" if i % 3 == 0 else i if i % 3 == 1 else -i for i in range(60)]
    assert got == [*want, list(range(32))]
    assert pool.stats().running == 0


@pytest.mark.anyio
async def test_a_timeout_still_stops_a_call_the_loop_waited_for() -> None:
    # The window is the default (short): a busy call outlives it, is awaited as before,
    # and its timeout stops it.
    pool = SyncPool(stop_grace=1.0)

    def busy() -> None:
        while True:
            pass

    with pytest.raises(TimeoutError):
        with anyio.fail_after(0.05):
            await pool.run(busy, tool="busy")
    assert pool.stats().stuck == 0
    assert await pool.run(lambda: "next", tool="busy") == "next"
