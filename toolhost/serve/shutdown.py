"""A graceful shutdown of ``toolhost serve --transport http`` (SIGTERM, SIGINT).

``/readyz`` answers 503 at once (a balancer stops sending). Within ``--shutdown-grace``:

1. requests are still accepted and answered until none has been in flight for
   ``DRAIN_SECONDS`` (clients finishing their sessions are not cut off; a request that comes
   meanwhile starts the wait again; ``TOOLHOST_SHUTDOWN_QUIET`` sets another quiet time,
   from 0 to 60 seconds), and at the latest until a quarter of the grace is left (at most
   :data:`RESERVE_MAX` seconds; ``TOOLHOST_SHUTDOWN_RESERVE`` sets another number of
   seconds, up to the whole grace): the calls accepted last get that to finish (before, under
   load that never paused, step 1 took the whole grace and the calls accepted last were
   cancelled however short they were);
2. then new requests are refused (503 with ``Retry-After``, a JSON-RPC error: a clean answer
   the client can retry elsewhere) and the calls still running are waited for (a client's
   answer to the server's question, or a notification, is no new request: it still reaches
   the call waiting for it);
3. when the grace ends, what still runs is cancelled, and each is answered -32800 saying so
   (given ``ANSWER_SECONDS`` to be written). No request that was accepted goes unanswered.

Tasks (SEP-2663) are work accepted too: step 2 also waits for the running tasks to end and
for the results of those that ended to be read (``tasks/get``, still answered for a task
kept here while new requests are refused); when the grace ends, a task still running is
failed with an error saying the server stopped it, and its poller has ``ANSWER_SECONDS`` to
read that. A result waits for its poller only while the poller is expected back (5 s after
its last ``tasks/get`` or the task's end, or three of its longest pauses between polls,
60 s at most: ``toolhost.mcp.tasks.PATIENCE_MIN``): a poller the balancer sent to another
replica once ``/readyz`` said 503 does not hold the shutdown for the whole grace. Before,
the running tasks were stopped right after step 2 and a poller slower than the quiet second
lost the result (503, then an unknown task on another replica).

A second Ctrl-C (SIGINT: uvicorn's "force exit") during steps 1-2 ends the wait at once:
new requests are refused and what still runs is cancelled and answered as in step 3 (before,
it was ignored and the process waited out the whole grace).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

import anyio

from toolhost.serve.http_state import InFlight

__all__ = ["ANSWER_SECONDS", "DRAIN_SECONDS", "QUIET_ENV", "RESERVE_ENV", "RESERVE_MAX",
           "RESERVE_SHARE", "TaskHold", "drain", "quiet_seconds", "reserve_seconds"]

log = logging.getLogger("toolhost.serve")

DRAIN_SECONDS = 1.0  # quiet time before new requests are refused
QUIET_ENV = "TOOLHOST_SHUTDOWN_QUIET"  # another quiet time, seconds (0 to 60)
ANSWER_SECONDS = 1.0  # for the answers of calls cancelled at the end of the grace
RESERVE_SHARE = 0.25  # of the grace, kept for the calls accepted last to finish
RESERVE_MAX = 5.0
RESERVE_ENV = "TOOLHOST_SHUTDOWN_RESERVE"  # another reserve, seconds (0 to 3600)


class TaskHold(Protocol):
    """The tasks a shutdown waits for (``toolhost.mcp.tasks.TaskStore``)."""

    def pending(self) -> int: ...
    def unread(self) -> int: ...
    def stop_for_shutdown(self, why: str) -> int: ...


def quiet_seconds() -> float:
    """The quiet time of step 1: ``TOOLHOST_SHUTDOWN_QUIET`` (0 to 60), else ``DRAIN_SECONDS``."""
    from toolhost.env_seconds import env_seconds

    return env_seconds(QUIET_ENV, DRAIN_SECONDS, 0, 60, warn=True)


def reserve_seconds(grace: float) -> float:
    """The end of the grace kept for the calls accepted last (step 1 stops then):
    ``TOOLHOST_SHUTDOWN_RESERVE`` (0 to 3600, at most the grace), else a quarter of the
    grace, :data:`RESERVE_MAX` at most (a tool that takes 20 s wants a reserve of 20 s)."""
    from toolhost.env_seconds import env_seconds

    default = min(grace * RESERVE_SHARE, RESERVE_MAX)
    return min(env_seconds(RESERVE_ENV, default, 0, 3600, warn=True), grace)


async def drain(in_flight: InFlight, grace: float, refuse: Callable[[], None],
                forced: Callable[[], bool] | None = None, tasks: TaskHold | None = None
                ) -> None:
    """Steps 1-3 of the module docstring; returns when no accepted request is left.
    ``forced``: whether the process was told to stop at once (a second Ctrl-C), polled;
    ``tasks``: the server's tasks, waited for in step 2 and stopped at its end."""
    deadline = anyio.current_time() + grace
    quiet = min(quiet_seconds(), grace)
    reserve = reserve_seconds(grace)
    accepting, finishing = anyio.CancelScope(deadline=deadline - reserve), anyio.CancelScope(
        deadline=deadline)
    async with anyio.create_task_group() as tg:
        if forced is not None:
            tg.start_soon(_hurry, forced, (accepting, finishing))
        with accepting:
            while True:
                await in_flight.wait_idle()
                seen = in_flight.entered
                await anyio.sleep(quiet)
                if in_flight.count == 0 and in_flight.entered == seen:
                    break
        if accepting.cancelled_caught and not finishing.cancel_called:
            log.warning("shutting down: requests still came with %g s of the grace left; new "
                        "ones are refused now (503), so the %d call(s) in flight can finish",
                        reserve, in_flight.count)
        refuse()
        with finishing:
            await in_flight.wait_idle()
            if tasks is not None and tasks.pending():
                log.warning("shutting down: waiting for %d task(s) to end and their results "
                            "to be read (tasks/get)", tasks.pending())
                await _tasks_done(in_flight, tasks)
                if tasks.unread():
                    log.warning("shutting down: %d task result(s) left unread: their pollers "
                                "stopped asking (sent to another replica, or gone)",
                                tasks.unread())
        tg.cancel_scope.cancel()
    forced_now = finishing.cancel_called and anyio.current_time() < deadline
    stopped = 0
    if tasks is not None:
        why = ("the server was told to stop at once (a second Ctrl-C)" if forced_now else
               f"the task outlived the {grace:g} s grace (--shutdown-grace)")
        stopped = tasks.stop_for_shutdown(f"Server shutting down: {why}; call the tool "
                                           "again")
        if stopped:
            log.warning("shutting down: stopping %d task(s) still running: %s; each "
                        "fails saying so", stopped, why)
    if in_flight.count:
        why = ("the server was told to stop at once (a second Ctrl-C)" if forced_now else
               f"the call outlived the {grace:g} s grace (--shutdown-grace)")
        log.warning("shutting down: cancelling %d call(s) still running: %s; each is "
                    "answered -32800", in_flight.count, why)
        in_flight.cancel_all(f"Request cancelled: the server is shutting down and {why}")
    if in_flight.count or stopped:
        # the cancelled calls' answers are written; a poller reads its stopped task's error
        with anyio.move_on_after(ANSWER_SECONDS):
            await in_flight.wait_idle()
            if tasks is not None:
                await _tasks_done(in_flight, tasks)


async def _tasks_done(in_flight: InFlight, tasks: TaskHold) -> None:
    """Until no task is pending and no request is in flight (checked every 0.05 s: a
    ``tasks/get`` reading the last result is a request)."""
    while tasks.pending() or in_flight.count:
        await anyio.sleep(0.05)


async def _hurry(forced: Callable[[], bool], scopes: tuple[anyio.CancelScope, ...]) -> None:
    """End the waits of ``scopes`` once ``forced()`` says so (checked every 0.1 s)."""
    while not forced():
        await anyio.sleep(0.1)
    for scope in scopes:
        scope.cancel()
