"""toolhost.deadlines: anyio's scopes and timeouts, one timer per event loop.

Real event loops, real time (margins of tenths of a second, never asserted as speed).
"""

from __future__ import annotations

import asyncio
import random
import time

import anyio
import pytest

from toolhost.deadlines import _loop_timer, cancel_scope, fail_after


def run(fn):  # type: ignore[no-untyped-def]
    return asyncio.run(fn())


def test_a_block_that_overruns_raises_timeout_error_at_its_deadline() -> None:
    async def main() -> float:
        started = time.monotonic()
        with pytest.raises(TimeoutError), fail_after(0.1):
            await asyncio.sleep(5)
        return time.monotonic() - started

    elapsed = run(main)
    assert 0.1 <= elapsed < 2


def test_a_block_in_time_returns_and_leaves_nothing_armed() -> None:
    async def main() -> None:
        for _ in range(1000):
            with fail_after(30) as scope:
                await asyncio.sleep(0)
            assert not scope.cancelled_caught
        timer = _loop_timer(asyncio.get_running_loop())
        assert timer.armed == {}
        # one timer for the thousand calls, armed for the first deadline only
        assert timer.handle is not None

    run(main)


def test_the_timer_leaves_the_loop_once_nothing_is_armed() -> None:
    async def main() -> None:
        with fail_after(0.05):
            await asyncio.sleep(0)
        timer = _loop_timer(asyncio.get_running_loop())
        await asyncio.sleep(0.15)  # the stale deadline passes: the timer fires, finds none
        assert timer.handle is None and timer.armed == {}

    run(main)


def test_each_of_many_deadlines_fires_at_its_own_time() -> None:
    # Deadlines arrive in random order, later ones shorter than earlier ones (the timer is
    # re-armed earlier), among calls that finish in time.
    rng = random.Random(7)
    cases = [(rng.choice([0.05, 0.1, 0.3, 30.0]), rng.choice([0.0, 0.2, 0.6]))
             for _ in range(60)]

    async def one(seconds: float, work: float) -> tuple[bool, float]:
        started = time.monotonic()
        try:
            with fail_after(seconds):
                await asyncio.sleep(work)
        except TimeoutError:
            return True, time.monotonic() - started
        return False, time.monotonic() - started

    async def main() -> list[tuple[bool, float]]:
        return list(await asyncio.gather(*(one(s, w) for s, w in cases)))

    for (seconds, work), (timed_out, elapsed) in zip(cases, run(main), strict=True):
        if work == 0.0 or seconds >= work + 0.1:  # clearly in time
            assert not timed_out, (seconds, work, elapsed)
        elif seconds + 0.1 <= work:  # clearly late
            assert timed_out, (seconds, work, elapsed)
            assert seconds <= elapsed < seconds + 1


def test_an_outer_cancel_is_not_taken_for_a_timeout() -> None:
    async def main() -> None:
        with anyio.CancelScope() as outer:
            asyncio.get_running_loop().call_later(0.05, outer.cancel)
            with fail_after(10):
                await asyncio.sleep(5)
            raise AssertionError("not cancelled")
        assert outer.cancelled_caught
        assert _loop_timer(asyncio.get_running_loop()).armed == {}

    run(main)


def test_a_shielded_section_finishes_before_the_timeout_lands() -> None:
    # anyio's semantics, kept: the deadline cancels the scope, a shield inside holds
    async def main() -> list[str]:
        seen = []
        with pytest.raises(TimeoutError), fail_after(0.05):
            with anyio.CancelScope(shield=True):
                await asyncio.sleep(0.2)
                seen.append("shielded sleep done")
            await asyncio.sleep(5)
            seen.append("not reached")
        return seen

    assert run(main) == ["shielded sleep done"]


def test_cancellation_is_level_triggered_as_with_anyio() -> None:
    # a tool that swallows the first cancel still cannot await past its deadline
    async def main() -> int:
        swallowed = 0
        with pytest.raises(TimeoutError), fail_after(0.05):
            for _ in range(3):
                try:
                    await asyncio.sleep(5)
                except asyncio.CancelledError:
                    swallowed += 1
            await asyncio.sleep(5)
        return swallowed

    assert run(main) == 3


def test_each_event_loop_has_its_own_timer() -> None:
    async def main() -> object:
        with pytest.raises(TimeoutError), fail_after(0.02):
            await asyncio.sleep(1)
        return _loop_timer(asyncio.get_running_loop())

    first, second = run(main), run(main)
    assert first is not second


def test_cancel_scope_is_an_anyio_scope_of_the_running_backend() -> None:
    async def main() -> None:
        scope = cancel_scope()
        assert isinstance(scope, anyio.CancelScope)
        with scope:
            scope.cancel()
            await asyncio.sleep(1)
        assert scope.cancelled_caught

    run(main)


def test_a_loop_without_a_shared_timer_gets_anyio_deadlines(monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    # e.g. a loop that cannot be weakly referenced: the same behaviour, anyio's own timer
    import toolhost.deadlines as deadlines

    monkeypatch.setattr(deadlines, "_loop_timer", lambda loop: None)

    async def main() -> None:
        with pytest.raises(TimeoutError), fail_after(0.05):
            await asyncio.sleep(5)
        with fail_after(5) as scope:
            await asyncio.sleep(0)
        assert not scope.cancelled_caught

    run(main)


def test_one_scope_that_fails_to_cancel_spares_no_other_deadline(
        caplog: pytest.LogCaptureFixture) -> None:
    class Broken:
        def cancel(self) -> None:
            raise RuntimeError("broken scope")

    async def main() -> None:
        loop = asyncio.get_running_loop()
        timer = _loop_timer(loop)
        assert timer is not None
        timer.arm(loop, Broken(), 0.02)  # type: ignore[arg-type]
        with pytest.raises(TimeoutError), fail_after(0.02):
            await asyncio.sleep(5)
        # and the timer still serves later deadlines
        with pytest.raises(TimeoutError), fail_after(0.02):
            await asyncio.sleep(5)

    run(main)
    assert "cancelling a call at its deadline failed" in caplog.text


def test_a_nan_deadline_is_refused_as_anyio_refuses_it() -> None:
    with pytest.raises(ValueError):
        fail_after(float("nan"))


def test_a_finished_loop_and_its_timer_are_not_kept() -> None:
    import gc

    import toolhost.deadlines as deadlines

    async def main() -> None:
        with fail_after(30):
            await asyncio.sleep(0)

    for _ in range(5):
        run(main)
    gc.collect()
    assert len(deadlines._timers) <= 1  # at most the last loop's, until it is collected
