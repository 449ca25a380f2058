"""A read's requests served one after another by one task, each as if in a task of its own.

With calls in flight, one read of the CLI's pipe holds many requests (32 on one CPU). A task
per request costs its ``Task``, its handle on the ready queue, its done callback and anyio's
per-task state for the request's cancel scope (together ~9-13% of an async call's instructions
in flight). ``serve_batch`` serves them in one task instead, in the order read, each step of
each request in a copy of the context taken when it was read (what its own task would have
had), so a ``ContextVar`` a tool sets stays in its call.

Only while each request ends without waiting: the first one that waits (a sync tool's pool, a
slow tool, a slow reader of the answers) is run to its end here (``drive``: what
``asyncio.Task`` does for its coroutine), and the requests behind it get tasks of their own
at once (``spill``), so no request waits for another. A request's cancel scope is entered and
left in this one task, so cancelling it (``control_cancel_request``, a timeout) works as in a
task of its own. A cancel of the task itself that a request leaves behind (a tool's
``asyncio.current_task().cancel()``) is never carried into the next request: the requests
behind it get tasks of their own, and this task ends cancelled, as the request's would have.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

__all__ = ["Entry", "drive", "serve_batch"]

Entry = tuple[Callable[[], Coroutine[Any, Any, None]], contextvars.Context]
"""A request of the batch: what makes its coroutine, and the context it runs in."""


async def serve_batch(batch: deque[Entry], spill: Callable[[deque[Entry]], None]) -> None:
    """Serve ``batch`` in order in this task (see the module text). ``spill(batch)`` gives
    each request left in it a task of its own."""
    task = asyncio.current_task()
    assert task is not None
    if len(batch) > 1:
        # More requests follow in this turn of the loop, and its ready queue shows it, as
        # their own tasks' steps did: the writer joins their answers into one write, and the
        # sync pool does not hold the loop for one call while the others wait (it yields the
        # loop to a call only when nothing else is due). Run at the next turn, it does nothing.
        asyncio.get_running_loop().call_soon(_due)
    while batch:
        make, ctx = batch.popleft()
        coro = make()
        try:
            step = ctx.run(coro.send, None)
        except StopIteration:
            if task.cancelling():  # a cancel of this task was asked for: not the next's
                spill(batch)
                return
            continue
        except BaseException:
            spill(batch)
            raise
        spill(batch)  # this one waits: the rest begin in tasks of their own
        await drive(coro, ctx, step)
        return


def _due() -> None:
    """The ready queue's sign that a batch's requests follow (see ``serve_batch``)."""


async def drive(coro: Coroutine[Any, Any, None], ctx: contextvars.Context,
                step: Any) -> None:
    """Run ``coro``, which has begun and yielded ``step``, to its end in this task, each step
    in ``ctx``: what ``asyncio.Task`` does for its own coroutine (wait for the future it
    yields, or one turn of the loop for a bare yield; a cancel of this task thrown into it)."""
    while True:
        thrown: BaseException | None = None
        if step is None:
            try:
                await asyncio.sleep(0)
            except BaseException as exc:  # this task was cancelled meanwhile
                thrown = exc
        elif getattr(step, "_asyncio_future_blocking", None) is not True:
            thrown = RuntimeError(f"a request's coroutine yielded {step!r}, not a future")
        else:
            step._asyncio_future_blocking = False
            try:
                await step
            except BaseException as exc:
                # The future's own outcome the coroutine reads itself (it asks the future
                # for its result, as it would in a task of its own); anything else is a
                # cancel of this task (or a foreign loop's future), thrown into it.
                if not _own_outcome(step, exc):
                    thrown = exc
        try:
            # (outside the except blocks: what the coroutine raises has no context of ours)
            step = ctx.run(coro.send, None) if thrown is None else ctx.run(coro.throw, thrown)
        except StopIteration:
            return


def _own_outcome(future: asyncio.Future[Any], exc: BaseException) -> bool:
    """Whether ``exc``, raised by awaiting ``future``, is the future's own outcome."""
    if not future.done():
        return False
    if future.cancelled():
        return isinstance(exc, asyncio.CancelledError)
    return future.exception() is exc
