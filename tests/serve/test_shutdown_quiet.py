"""The quiet time of a graceful shutdown (``toolhost.serve.shutdown``): requests are accepted
until none has been in flight for it; ``TOOLHOST_SHUTDOWN_QUIET`` sets it (0 to 60 s), any
other value is warned about and the default kept. In-process: ``drain`` on a real
``InFlight``, the seconds it waits recorded as it sleeps."""

from __future__ import annotations

import logging
from typing import Any

import anyio
import pytest

from toolhost.serve import shutdown
from toolhost.serve.http_state import InFlight

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(("raw", "seconds", "warned"), [
    (None, 1.0, False), ("", 1.0, False), ("0", 0.0, False), ("0.05", 0.05, False),
    ("60", 60.0, False), ("2.5", 2.5, False), ("61", 1.0, True), ("-1", 1.0, True),
    ("nan", 1.0, True), ("inf", 1.0, True), ("soon", 1.0, True), ("1e400", 1.0, True),
])
def test_the_quiet_time_comes_from_the_environment(
        raw: str | None, seconds: float, warned: bool, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    if raw is None:
        monkeypatch.delenv(shutdown.QUIET_ENV, raising=False)
    else:
        monkeypatch.setenv(shutdown.QUIET_ENV, raw)
    with caplog.at_level(logging.WARNING, logger="toolhost.serve"):
        assert shutdown.quiet_seconds() == seconds
    assert (shutdown.QUIET_ENV in caplog.text) is warned


async def test_drain_waits_the_quiet_time_again_after_each_late_request(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(shutdown.QUIET_ENV, "0.05")
    in_flight = InFlight()
    slept: list[float] = []
    refused: list[int] = []
    real_sleep = anyio.sleep

    async def sleep(seconds: float, *args: Any) -> None:
        slept.append(seconds)
        if len(slept) == 1:  # a request comes (and is answered) during the first quiet time
            in_flight.enter()
            in_flight.leave()
        await real_sleep(0)

    monkeypatch.setattr(anyio, "sleep", sleep)
    await shutdown.drain(in_flight, 10.0, lambda: refused.append(in_flight.entered))
    assert slept == [0.05, 0.05]  # the late request started the wait again
    assert refused == [1]


async def test_the_quiet_time_never_outlasts_the_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(shutdown.QUIET_ENV, "30")
    slept: list[float] = []

    async def sleep(seconds: float, *args: Any) -> None:
        slept.append(seconds)

    monkeypatch.setattr(anyio, "sleep", sleep)
    await shutdown.drain(InFlight(), 0.2, lambda: None)
    assert slept == [0.2]


async def test_under_load_that_never_pauses_the_calls_accepted_last_still_finish(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A request every 10 ms, each lasting 50 ms (a balancer that does not watch /readyz):
    step 1 never sees a quiet time. It ends with a quarter of the grace left, and every call
    it accepted finishes; later ones are refused (503: not started, the client retries).
    Before, step 1 took the whole grace and the calls accepted last were cancelled."""
    monkeypatch.setenv(shutdown.QUIET_ENV, "0.05")
    in_flight = InFlight()
    refused = anyio.Event()
    finished, cancelled, turned_away = [], [], []

    async def request() -> None:
        if refused.is_set():
            turned_away.append(1)
            return
        in_flight.enter()
        try:
            with anyio.CancelScope() as scope:
                in_flight.track(scope)
                await anyio.sleep(0.05)
                finished.append(1)
            if scope.cancel_called:
                cancelled.append(1)
        finally:
            in_flight.untrack(scope)
            in_flight.leave()

    async with anyio.create_task_group() as tg:
        async def load() -> None:
            while True:
                tg.start_soon(request)
                await anyio.sleep(0.01)
        tg.start_soon(load)
        await anyio.sleep(0.1)
        await shutdown.drain(in_flight, 1.2, refused.set)
        tg.cancel_scope.cancel()
    assert cancelled == [] and len(finished) > 50 and turned_away


@pytest.mark.parametrize(("raw", "grace", "seconds", "warned"), [
    (None, 10.0, 2.5, False), (None, 60.0, 5.0, False), ("", 10.0, 2.5, False),
    ("0", 10.0, 0.0, False), ("20", 60.0, 20.0, False), ("20", 8.0, 8.0, False),
    ("-1", 10.0, 2.5, True), ("nan", 10.0, 2.5, True), ("3601", 60.0, 5.0, True),
    ("soon", 10.0, 2.5, True),
])
def test_the_reserve_comes_from_the_environment(
        raw: str | None, grace: float, seconds: float, warned: bool,
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """``TOOLHOST_SHUTDOWN_RESERVE``: the end of the grace the calls accepted last get (a
    tool that takes 20 s needs 20 s, more than the fixed quarter, 5 s at most, allowed)."""
    if raw is None:
        monkeypatch.delenv(shutdown.RESERVE_ENV, raising=False)
    else:
        monkeypatch.setenv(shutdown.RESERVE_ENV, raw)
    with caplog.at_level(logging.WARNING, logger="toolhost.serve"):
        assert shutdown.reserve_seconds(grace) == seconds
    assert (shutdown.RESERVE_ENV in caplog.text) is warned


async def test_drain_stops_accepting_at_the_reserve_the_environment_sets(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A call in flight that never pauses step 1, and a reserve of the whole grace: new
    requests are refused at once, the call gets the whole grace (before: a quarter, fixed)."""
    monkeypatch.setenv(shutdown.QUIET_ENV, "0.05")
    monkeypatch.setenv(shutdown.RESERVE_ENV, "10")
    in_flight = InFlight()
    in_flight.enter()
    refused: list[int] = []

    def refuse() -> None:
        refused.append(in_flight.count)
        in_flight.leave()  # the call in flight ends once new requests are refused

    with caplog.at_level(logging.WARNING, logger="toolhost.serve"):
        await shutdown.drain(in_flight, 10.0, refuse)
    assert refused == [1]
    assert "with 10 s of the grace left" in caplog.text
