"""A second Ctrl-C during a graceful shutdown ends the wait at once (in-process, the real
drain and in-flight accounting): the calls still running are cancelled and each answered
-32800 saying why, new requests are refused, and the grace is not waited out. Without it,
the process keeps the graceful path (a call finishing within the grace is not cut)."""

from __future__ import annotations

import anyio
import pytest

from toolhost.serve.http_state import InFlight
from toolhost.serve.shutdown import drain

pytestmark = pytest.mark.anyio

GRACE = 600.0  # waited out, this would hang the test (the guard below fails it first)


async def _call(in_flight: InFlight, seconds: float, seen: list[str]) -> None:
    """A request being answered: counted and cancellable as an Exchange is."""
    in_flight.enter()
    try:
        with anyio.CancelScope() as scope:
            in_flight.track(scope)
            await anyio.sleep(seconds)
            seen.append("finished")
        if scope.cancel_called:
            seen.append(in_flight.reason or "")
    finally:
        in_flight.untrack(scope)
        in_flight.leave()


@pytest.mark.parametrize("second_signal", [True, False])
async def test_a_second_ctrl_c_cancels_what_runs_and_refuses_new_requests(
        second_signal: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLHOST_SHUTDOWN_QUIET", "0")
    in_flight, seen, refused = InFlight(), [], []
    told = anyio.Event()
    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            tg.start_soon(_call, in_flight, GRACE * 2 if second_signal else 0.3, seen)
            await anyio.sleep(0)  # the call has started

            async def signal_twice() -> None:
                await anyio.sleep(0.2)
                told.set()
            tg.start_soon(signal_twice)
            await drain(in_flight, GRACE, lambda: refused.append(True),
                        forced=lambda: second_signal and told.is_set())
    assert refused == [True] and in_flight.count == 0
    if second_signal:
        assert len(seen) == 1 and "told to stop at once (a second Ctrl-C)" in seen[0]
    else:
        assert seen == ["finished"]
