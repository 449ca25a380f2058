"""toolhost.deadlines: anyio's scopes and timeouts, one timer per event loop.

Real event loops, real time (margins of tenths of a second, never asserted as speed).
"""

from __future__ import annotations

import asyncio
import random
import time

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.deadlines import _loop_timer, cancel_scope, fail_after


def run(fn):  # type: ignore[no-untyped-def]
    return asyncio.run(fn())


def test_a_block_that_overruns_raises_timeout_error_at_its_deadline() -> None:
    async def main() -> float:
        started = time.monotonic()
        with pytest.raises(TimeoutError), fail_after(0.1):
            await asyncio.sleep(60)
        return time.monotonic() - started

    elapsed = run(main)
    # never early; cut short of the sleep, however loaded the machine (no speed bound)
    assert 0.1 <= elapsed < 60


def test_a_block_in_time_returns_and_leaves_nothing_armed() -> None:
    async def main() -> None:
        for _ in range(1000):
            with fail_after(30) as scope:
                await asyncio.sleep(0)
            assert not scope.cancelled_caught
        timer = _loop_timer(asyncio.get_running_loop())
        assert timer.armed == {}
        # the timer armed for the first deadline is still pending (the property test below
        # checks that there is never more than one)
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

    # On a loaded machine the loop may wake late, a sleep and a nearby deadline both due at
    # once (the deadline's callback then runs before the task resumes): "in time" is claimed
    # only with a margin no load reaches (the 30 s deadlines); a late call is always cut (its
    # deadline is due first) and never early; no upper bound (a starved loop fires late).
    for (seconds, work), (timed_out, elapsed) in zip(cases, run(main), strict=True):
        if work == 0.0 or seconds >= work + 10:  # clearly in time
            assert not timed_out, (seconds, work, elapsed)
        elif seconds + 0.1 <= work:  # late
            assert timed_out, (seconds, work, elapsed)
            assert seconds <= elapsed, (seconds, work, elapsed)


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
    import weakref

    import toolhost.deadlines as deadlines

    loops: list[weakref.ref[asyncio.AbstractEventLoop]] = []

    async def main() -> None:
        loops.append(weakref.ref(asyncio.get_running_loop()))
        with fail_after(30):  # leaves its timer pending on the loop
            await asyncio.sleep(0)

    for _ in range(5):
        run(main)
    gc.collect()
    # each loop is gone, and with it its entry (other tests' live loops may have theirs)
    assert [ref() for ref in loops] == [None] * 5
    assert all(ref() not in deadlines._timers for ref in loops)


# -- the shared timer's bookkeeping, as a property over random arm / disarm / time steps ----

class _FakeHandle:
    def __init__(self, when: float, callback: object) -> None:
        self.when, self.callback, self.cancelled = when, callback, False

    def cancel(self) -> None:
        self.cancelled = True


class _FakeLoop:
    """A loop's clock and timer heap, stepped by hand (what _LoopTimer uses of a loop)."""

    _clock_resolution = 0.0

    def __init__(self) -> None:
        self.now = 0.0
        self.handles: list[_FakeHandle] = []  # held, as a real loop holds its timers

    def time(self) -> float:
        return self.now

    def call_at(self, when: float, callback: object) -> _FakeHandle:
        handle = _FakeHandle(when, callback)
        self.handles.append(handle)
        return handle

    def advance(self, seconds: float) -> None:
        self.now += seconds
        while True:
            due = [h for h in self.handles if not h.cancelled and h.when <= self.now]
            if not due:
                return
            handle = min(due, key=lambda h: h.when)
            self.handles.remove(handle)
            handle.callback()  # type: ignore[operator]


class _FakeScope:
    def __init__(self) -> None:
        self.cancels = 0

    def cancel(self) -> None:
        self.cancels += 1


_steps = st.lists(st.one_of(
    st.tuples(st.just("arm"), st.sampled_from([0.0, 0.5, 1.0, 2.0, 5.0, 30.0])),
    st.tuples(st.just("disarm"), st.integers(0, 50)),
    st.tuples(st.just("advance"), st.sampled_from([0.0, 0.25, 1.0, 3.0, 40.0])),
), max_size=60)


@settings(max_examples=300, deadline=None)
@given(_steps)
def test_every_armed_deadline_fires_once_at_its_time_and_never_early(steps: list[tuple[str, float]]
                                                                    ) -> None:
    from toolhost.deadlines import _LoopTimer

    loop = _FakeLoop()
    timer = _LoopTimer(loop)  # type: ignore[arg-type]
    armed: list[tuple[object, _FakeScope, float]] = []  # (deadline, scope, when)
    disarmed: set[int] = set()
    for op, value in steps:
        if op == "arm":
            scope = _FakeScope()
            deadline = timer.arm(loop, scope, value)  # type: ignore[arg-type]
            armed.append((deadline, scope, loop.now + value))
        elif op == "disarm" and armed:
            index = int(value) % len(armed)
            deadline, scope, when = armed[index]
            if not deadline.expired:  # type: ignore[attr-defined]
                timer.disarm(deadline)  # type: ignore[arg-type]
                disarmed.add(index)
        else:
            loop.advance(value)
        for index, (deadline, scope, when) in enumerate(armed):
            expired = deadline.expired  # type: ignore[attr-defined]
            assert scope.cancels == (1 if expired else 0)
            if expired:
                assert when <= loop.now  # never early
            elif index not in disarmed and op == "advance":
                assert when > loop.now  # never late: the loop ran, due ones have fired
        live = [when for i, (d, _, when) in enumerate(armed)
                if i not in disarmed and not d.expired]  # type: ignore[attr-defined]
        if live:  # a timer is pending, no later than the earliest live deadline
            pending = [h.when for h in loop.handles if not h.cancelled]
            assert pending and min(pending) <= min(live)
        assert len([h for h in loop.handles if not h.cancelled]) <= 1  # one timer, not one a call
