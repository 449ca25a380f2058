"""A graceful shutdown of ``toolhost serve --transport http`` (SIGTERM, SIGINT).

``/readyz`` answers 503 at once (a balancer stops sending). Within ``--shutdown-grace``:

1. requests are still accepted and answered until none has been in flight for
   ``DRAIN_SECONDS`` (clients finishing their sessions are not cut off; a request that comes
   meanwhile starts the wait again; ``TOOLHOST_SHUTDOWN_QUIET`` sets another quiet time,
   from 0 to 60 seconds);
2. then new requests are refused (503 with ``Retry-After``, a JSON-RPC error: a clean answer
   the client can retry elsewhere) and the calls still running are waited for;
3. when the grace ends, what still runs is cancelled, and each is answered -32800 saying so
   (given ``ANSWER_SECONDS`` to be written). No request that was accepted goes unanswered.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import anyio

from toolhost.serve.http_exchange import InFlight

__all__ = ["ANSWER_SECONDS", "DRAIN_SECONDS", "QUIET_ENV", "drain", "quiet_seconds"]

log = logging.getLogger("toolhost.serve")

DRAIN_SECONDS = 1.0  # quiet time before new requests are refused
QUIET_ENV = "TOOLHOST_SHUTDOWN_QUIET"  # another quiet time, seconds (0 to 60)
ANSWER_SECONDS = 1.0  # for the answers of calls cancelled at the end of the grace


def quiet_seconds() -> float:
    """The quiet time of step 1: ``TOOLHOST_SHUTDOWN_QUIET`` (0 to 60), else ``DRAIN_SECONDS``."""
    from toolhost.env_seconds import env_seconds

    return env_seconds(QUIET_ENV, DRAIN_SECONDS, 0, 60, warn=True)


async def drain(in_flight: InFlight, grace: float, refuse: Callable[[], None]) -> None:
    """Steps 1-3 of the module docstring; returns when no accepted request is left."""
    deadline = anyio.current_time() + grace
    quiet = min(quiet_seconds(), grace)
    with anyio.move_on_at(deadline):
        while True:
            await in_flight.wait_idle()
            seen = in_flight.entered
            await anyio.sleep(quiet)
            if in_flight.count == 0 and in_flight.entered == seen:
                break
    refuse()
    with anyio.move_on_at(deadline):
        await in_flight.wait_idle()
    if in_flight.count:
        log.warning("shutting down: cancelling %d call(s) still running after the %g s "
                    "grace (--shutdown-grace); each is answered -32800", in_flight.count,
                    grace)
        in_flight.cancel_all(f"Request cancelled: the server is shutting down and the call "
                             f"outlived the {grace:g} s grace (--shutdown-grace)")
        with anyio.move_on_after(ANSWER_SECONDS):
            await in_flight.wait_idle()
