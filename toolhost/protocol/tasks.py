"""The tasks of a control session: one per incoming request, each cancellable by id.

Why not just ``TaskGroup.start_soon``: on asyncio it costs about five times a bare
``loop.create_task``, and the session starts one task per tools/call on the hot path. So on
asyncio the tasks are created natively, kept in a set and awaited by ``wait_all``; on any
other backend an anyio task group does the same job. Either way the set is structured: the
session does not finish until every task has.

Cancellation always goes through each request's anyio ``CancelScope`` (never a native
``Task.cancel()``), so shielded sections such as writing an answer line stay whole.

A request with no line waiting behind it starts eagerly: its first step (for a quick tool,
all of it) runs when the task is made, so the answer leaves in the same event-loop turn the
request arrived in (one turn per sequential call instead of two). Python 3.12+ does that
with ``eager_start``; on 3.10 and 3.11 ``_started_now`` runs the task's first step at once
on CPython's own loops. A request with lines behind it waits for the next turn as before,
so a withdrawal read right behind it still stops it before it starts. And never before
one of those: while a task made for an earlier request has not begun (``queued``), a later
one waits its turn too, so requests begin in the order they were read (two permission
questions read together are asked in that order, not the later one first). The requests that
wait for the next turn share one task, served one by one, each in its own copy of the
context, until one of them waits: ``toolhost.protocol.read_batch``.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import sys
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from functools import partial
from typing import Any

import anyio
import anyio.abc

from toolhost.protocol.read_batch import Entry, serve_batch

__all__ = ["RequestTasks"]

log = logging.getLogger("toolhost.protocol")


MAX_IN_FLIGHT = 1000
MAX_IN_FLIGHT_BYTES = 256 * 1024 * 1024  # of request lines: what in-flight requests hold


def _started_now(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, None]
                 ) -> asyncio.Task[None]:
    """Python 3.10/3.11: a task whose first step runs now, as 3.12's ``eager_start`` does.

    ``create_task`` queues the task's first step at the end of the loop's ready queue; taken
    off it and run here (outside any task: the step enters its own), the step happens before
    this call returns. Only on CPython's own loops, where that queue is a ``deque`` whose last
    entry is then that very step; anywhere else the task just starts at the next turn.
    """
    ready = getattr(loop, "_ready", None)
    if type(ready) is not deque or asyncio.current_task(loop) is not None:
        return loop.create_task(coro)
    before = len(ready)
    task = loop.create_task(coro)
    if len(ready) == before + 1:
        step = ready[-1]
        if getattr(getattr(step, "_callback", None), "__self__", None) is task:
            ready.pop()
            step._run()
    return task


class RequestTasks:
    def __init__(self) -> None:
        self.max_in_flight = MAX_IN_FLIGHT
        self.max_in_flight_bytes = MAX_IN_FLIGHT_BYTES
        self._held = 0  # bytes of the request lines being served
        # tasks made for requests (not eagerly) whose first step has not run yet: a later
        # request must not overtake them (``spawn``)
        self.queued = 0
        self.queued_ever = 0  # requests ever made to wait (they begin in this order)
        self.scopes: dict[str, anyio.CancelScope] = {}  # request_id -> scope of its task
        self._withdrawn: set[anyio.CancelScope] = set()  # of requests the CLI withdrew
        self.closing = False
        self._native: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tg: anyio.abc.TaskGroup | None = None
        self._new_scope: Callable[[], anyio.CancelScope] = anyio.CancelScope
        self._batch: deque[Entry] | None = None  # this turn's requests, for one task

    def bind(self, tg: anyio.abc.TaskGroup) -> None:
        """Attach to the running session's task group (the fallback spawner)."""
        self._tg = tg
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:  # not asyncio (e.g. trio): use the task group
            self._loop = None
        # anyio.CancelScope() looks the backend up on every call (~2 us, a third of a
        # scope's cost); the backend's own scope class, built directly, is the same object.
        self._new_scope = type(anyio.CancelScope())

    @property
    def running(self) -> bool:
        """Whether tasks can be started (the session is running)."""
        return self._loop is not None or self._tg is not None

    def has_room(self, size: int) -> bool:
        """Whether one more request of ``size`` bytes may be served now (memory stays
        bounded: past ``max_in_flight`` requests or ``max_in_flight_bytes`` of them, the
        session answers new ones with an error at once)."""
        return (len(self.scopes) < self.max_in_flight
                and self._held + size <= self.max_in_flight_bytes)

    def start(self, fn: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Start ``fn()`` as a task of this set."""
        if self._loop is not None:
            task = self._loop.create_task(fn())
            self._native.add(task)
            task.add_done_callback(self._native.discard)
        elif self._tg is not None:
            self._tg.start_soon(fn)
        else:
            raise RuntimeError("the control session is not running")

    def spawn(self, request_id: str, fn: Callable[[str, Any], Awaitable[None]],
              request: Any, size: int = 0, *, eager: bool = False) -> None:
        """Serve a request in a task of its own (see ``serve``).

        The request's cancel scope is registered now, not when the task first runs, so a
        ``control_cancel_request`` read right behind the request still finds it.
        ``eager`` (no line is waiting behind the request): the task's first step runs now
        instead of at the next turn of the loop, which it would have taken before reading
        anything more anyway.
        """
        scope = self._register(request_id, size)
        if self.queued:
            eager = False  # an earlier request waits its turn: this one begins after it
        if self._loop is not None:
            if not eager:
                # begins at the next turn, in the order read: in the task of this turn's
                # batch (toolhost.protocol.read_batch), made with the first request of it
                self.queued += 1
                self.queued_ever += 1
                self._enqueue(partial(self._run, request_id, scope, fn, request, size,
                                      queued=True))
                return
            # The first step (for a quick tool, all of it) runs now: the answer leaves in
            # this turn of the event loop, not the next.
            coro = self._run(request_id, scope, fn, request, size)
            if sys.version_info >= (3, 12):
                task = asyncio.Task(coro, loop=self._loop, eager_start=True)
            else:
                task = _started_now(self._loop, coro)
            if not task.done():
                self._track(task)
        elif self._tg is not None:
            self.queued += 1
            self.queued_ever += 1
            self._tg.start_soon(partial(self._run, request_id, scope, fn, request, size,
                                        queued=True))
        else:
            del self.scopes[request_id]
            self._held -= size
            raise RuntimeError("the control session is not running")

    def _enqueue(self, make: Callable[[], Coroutine[Any, Any, None]]) -> None:
        assert self._loop is not None
        batch = self._batch
        if batch is None:
            batch = self._batch = deque()
            self._track(self._loop.create_task(self._serve_batch(batch)))
        batch.append((make, contextvars.copy_context()))

    async def _serve_batch(self, batch: deque[Entry]) -> None:
        if self._batch is batch:
            self._batch = None  # requests spawned from now on make a batch of their own
        await serve_batch(batch, self._spill)

    def _spill(self, batch: deque[Entry]) -> None:
        # each request left in the batch in a task of its own (one of them waits)
        assert self._loop is not None
        while batch:
            make, ctx = batch.popleft()
            self._track(self._loop.create_task(make(), context=ctx))

    def _track(self, task: asyncio.Task[None]) -> None:
        self._native.add(task)
        task.add_done_callback(self._native.discard)

    async def serve(self, request_id: str, fn: Callable[[str, Any], Awaitable[None]],
                    request: Any, size: int = 0) -> None:
        """Run ``fn(request_id, request)`` in a cancel scope registered under the id."""
        await self._run(request_id, self._register(request_id, size), fn, request, size)

    def begun(self, count: int) -> bool:
        """Whether the first ``count`` requests ever made to wait have begun (each one's
        first step has run: a tools/call is registered, a question has taken its place)."""
        return self.queued_ever - self.queued >= count

    def new_scope(self) -> anyio.CancelScope:
        """A fresh cancel scope of the running backend."""
        return self._new_scope()

    def _register(self, request_id: str, size: int) -> anyio.CancelScope:
        self._held += size
        scope = self._new_scope()
        if self.closing:
            scope.cancel()
        self.scopes[request_id] = scope
        return scope

    async def _run(self, request_id: str, scope: anyio.CancelScope,
                   fn: Callable[[str, Any], Awaitable[None]], request: Any,
                   size: int = 0, *, queued: bool = False) -> None:
        # ``size`` was counted in ``_held`` when the request was registered
        if queued:
            self.queued -= 1
        try:
            if scope.cancel_called:  # withdrawn (or closing) before it started: no answer
                return
            with scope:
                try:
                    await fn(request_id, request)
                except Exception:  # fn answers every failure itself; this is a bug net
                    log.exception("control request %s crashed", request_id)
        finally:
            self._held -= size
            self._withdrawn.discard(scope)
            if self.scopes.get(request_id) is scope:
                del self.scopes[request_id]

    def cancel(self, request_id: str) -> bool:
        """Withdraw a request (``control_cancel_request``): its task stops, unanswered."""
        scope = self.scopes.get(request_id)
        if scope is None:
            return False
        self._withdrawn.add(scope)
        scope.cancel()
        return True

    def unanswered(self, scope: anyio.CancelScope) -> bool:
        """Whether the request of ``scope`` must get no answer: the CLI withdrew it, or the
        session is closing."""
        return self.closing or scope in self._withdrawn

    def withdrawn(self, scope: anyio.CancelScope) -> bool:
        """Whether the CLI withdrew the request of ``scope`` (``control_cancel_request``)."""
        return scope in self._withdrawn

    def cancel_all(self) -> None:
        self.closing = True
        for scope in list(self.scopes.values()):
            scope.cancel()

    async def wait_all(self) -> None:
        """Wait for the natively spawned tasks (task-group ones are awaited by the group)."""
        while self._native:
            await asyncio.wait(list(self._native))
