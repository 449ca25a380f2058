"""The bounded thread pool in which in-process sync python tools run.

Why not anyio's shared worker pool: its threads are not daemons (a hung tool kept the process
alive at exit), the transports use it for their own blocking reads, and a call abandoned on
timeout left its thread running, uncounted, so 45 hung calls meant 45 threads.

Here:

- at most ``max_running`` calls run at once; more wait for a free thread, within their own
  timeout (the wait is a timeout like any other, never a hang). They wait in the pool's
  queue, in order, and the thread that frees a place runs the next call that may take it
  at once (no thread woken, no wait ended on the event loop: under load a sync tool's calls
  go through a few busy threads);
- on timeout or cancel the call is *stopped*: ``ToolStopped`` is raised inside its thread
  (CPython's ``PyThreadState_SetAsyncExc``), which ends pure-Python code (a busy loop, a deep
  recursion) at its next bytecode. Code blocked inside C (``time.sleep``, a socket read without
  a timeout) cannot be stopped: its thread is *stuck*; it is counted, reported in the error
  result and on stderr, and gives its running slot back;
- one tool holds at most ``max_per_tool`` threads, running or stuck (a stuck thread keeps its
  place until it ends); its further calls wait, within their timeout. A tool whose places are
  all stuck, or a pool with ``max_stuck`` stuck threads, runs no new call of that tool (or of
  any sync tool): the call fails at once with an error saying why (fail closed), and works
  again as soon as a stuck thread ends. So 45 hung calls of one tool leave 8 threads, and
  every other tool keeps its threads;
- the threads are daemons with a large stack, and the recursion limit is capped: once the pool
  is in use, ``sys.setrecursionlimit`` raises it to at most ``MAX_RECURSION_LIMIT``, and a
  limit a tool changed is put back when no call runs. Why: the limit is process-wide, and a
  tool that recursed ten million frames deep held the GIL for seconds while those frames
  unwound (Python checks for a thread switch on calls and loops, not on returns), so every
  other call stopped being answered; a recursion through C code that deep crashes the process.

``isolation: process`` (``toolhost.backends.worker``) is the stronger answer: a killed process.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from queue import Empty, SimpleQueue
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
from anyio._core._eventloop import threadlocals as _anyio_threadlocals

from toolhost.backends.base import ToolFailure
from toolhost.backends.host_guards import mark_tool_thread
from toolhost.backends.thread_guards import (
    MAX_RECURSION_LIMIT,
    MAX_TRACEBACK_FRAMES,
    cap_recursion_limit,
    short_traceback,
)
from toolhost.backends.thread_sched import Scheduling
from toolhost.backends.thread_wake import LoopWaker, waker_for

__all__ = ["MAX_RECURSION_LIMIT", "MAX_TRACEBACK_FRAMES", "PoolStats", "SyncPool",
           "ToolStopped", "ToolStuck", "default_pool"]

log = logging.getLogger("toolhost.call")

MAX_RUNNING = 32
MAX_PER_TOOL = 8
MAX_STUCK = 32
YIELD_SECONDS = 0.0002  # how long an idle loop yields to a sync call before it awaits it
STOP_GRACE_SECONDS = 0.25  # how long a stopped thread gets to unwind before it counts as stuck
IDLE_SECONDS = 10.0
THREAD_STACK_BYTES = 64 * 1024 * 1024  # reserved address space; pages are used as touched

_PENDING, _RUNNING, _DONE, _DROPPED = 0, 1, 2, 3
_clock = time.perf_counter
_sched_yield = getattr(os, "sched_yield", lambda: time.sleep(0))


class ToolStopped(BaseException):
    """Raised inside a sync tool's thread to stop it (a BaseException: ``except Exception``
    in the tool does not swallow it)."""

    toolhost_control = True  # the host's, not the tool's failure (python_calls)


class ToolStuck(ToolFailure):
    """A call that could not run, or could not be stopped."""


@dataclass(frozen=True)
class PoolStats:
    """A snapshot of the pool: threads alive, calls running, threads stuck (by tool), and
    totals since start."""

    threads: int
    running: int
    stuck: int
    stuck_by_tool: dict[str, int]
    stopped_total: int
    stuck_total: int
    idle: int = 0  # threads waiting for work (each leaves after IDLE_SECONDS)
    waiting: int = 0  # calls waiting for a place (the pool's or their tool's)


@dataclass(eq=False, slots=True)  # compared by identity: a job leaves the queue by itself
class _Job:
    """One call handed to a pool thread, and what the thread hands back."""

    fn: Callable[[], Any]
    tool: str
    token: anyio.lowlevel.EventLoopToken
    loop: asyncio.AbstractEventLoop | None  # None: not asyncio (trio), woken through anyio
    lock: threading.Lock = field(default_factory=threading.Lock)
    state: int = _PENDING
    ok: bool = False
    value: Any = None
    thread_id: int | None = None
    stuck: bool = False
    done: bool = False  # set on the event loop once the thread handed the job back
    waiter: Any = None  # what the loop side awaits: an asyncio future, or an anyio Event
    waker: LoopWaker | None = None  # hands the job back to ``loop`` (None: call_soon_threadsafe)
    polled: bool = False  # the loop is watching ``handed`` right now: no wake-up is needed
    handed: bool = False  # the thread is done with the job (set under ``lock``)
    queued: bool = False  # waiting in the pool's queue for a place (under the pool's lock)
    busy: bool = True  # the loop had other work due when the call came (not yielded to)


def _flush_pending() -> None:
    """A call: where CPython delivers an exception set for this thread a moment too late."""


class _Worker(threading.Thread):
    def __init__(self, pool: SyncPool) -> None:
        super().__init__(name="toolhost-sync-tool", daemon=True)
        self.pool = pool
        self.jobs: SimpleQueue[_Job | None] = SimpleQueue()

    def run(self) -> None:
        mark_tool_thread()  # a tool's os._exit here fails its call, not the host
        scheduling = Scheduling()
        scheduling.waiting()
        while True:
            try:
                job = self.jobs.get(timeout=IDLE_SECONDS)
            except Empty:
                if self.pool._retire(self):
                    return
                continue
            if job is None:
                return
            scheduling.working()
            while job is not None:
                self._execute(job)
                # A call waiting for a place is taken on here at once: under load (more
                # calls than places) no thread is woken and no wait ends on the loop.
                after = self.pool._finished(self, job)
                if after is None and job.busy:
                    # batch before the loop is woken: once the loop has the GIL, this thread
                    # only goes back to its queue, which can wait until the loop sleeps.
                    # (A call from an idle loop was yielded to: the loop is not woken, and
                    # the thread's next wake-up cannot preempt a loop that yields anyway.)
                    scheduling.waiting()
                _hand_back(job)
                job = after

    def _execute(self, job: _Job) -> None:
        with job.lock:
            if job.state == _DROPPED:  # cancelled before it started
                return
            job.state = _RUNNING
            job.thread_id = threading.get_ident()
        # What anyio's own worker threads carry, so that a tool's
        # anyio.from_thread.run(ctx.progress, ...) finds its event loop.
        _anyio_threadlocals.current_token = job.token
        try:
            try:
                job.value, job.ok = job.fn(), True
            except BaseException as exc:  # ToolStopped too: the result is the exception
                job.value, job.ok = short_traceback(exc), False
            with job.lock:
                job.state = _DONE
            _flush_pending()
        except ToolStopped:
            pass
        finally:
            del _anyio_threadlocals.current_token



def _hand_back(job: _Job) -> None:
    """From the pool thread: the thread is done with ``job``; the loop is told."""
    with job.lock:
        job.handed = True
        if job.polled:  # the loop takes it back itself (``_yield_until_done``)
            return
    # the event loop may be gone (shutdown): then nobody waits for the answer
    with contextlib.suppress(Exception):
        if job.waker is not None:
            job.waker.wake(job)
        elif job.loop is not None:
            job.loop.call_soon_threadsafe(_on_loop_done, job)
        else:
            anyio.from_thread.run_sync(_on_loop_done, job, token=job.token)


def _raise_in(thread_id: int) -> bool:
    set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
    set_async_exc.argtypes = [ctypes.c_ulong, ctypes.py_object]
    return bool(set_async_exc(thread_id, ToolStopped) == 1)


def _on_loop_done(job: _Job) -> None:
    """On the event loop: the thread is done with ``job``."""
    job.done = True
    waiter = job.waiter
    if isinstance(waiter, anyio.Event):
        waiter.set()
    elif waiter is not None and not waiter.done():
        waiter.set_result(None)


def _idle(loop: asyncio.AbstractEventLoop) -> bool:
    """Nothing else is due on ``loop`` now (CPython's own loops; elsewhere: False)."""
    ready = getattr(loop, "_ready", None)
    return type(ready) is deque and not ready


def _yield_until_done(job: _Job) -> None:
    """On the event loop, with nothing else due: give the CPU to the pool thread (the GIL
    let go) until it is done with ``job``, for at most ``YIELD_SECONDS``. A quick call is
    then taken back here, with no wake-up of the loop (a byte through a pipe, a loop turn, a
    future). A slower one is awaited as usual; the loop was only late by the wait."""
    with job.lock:
        if job.handed:
            return  # done already, and on its way back through the waker
        job.polled = True
    try:
        deadline = _clock() + YIELD_SECONDS
        while not job.handed and _clock() < deadline:
            _sched_yield()
    finally:  # from here on the thread wakes the loop as usual
        with job.lock:
            job.polled = False
            handed = job.handed
    if handed:  # the thread saw ``polled``: it did not wake the loop
        _on_loop_done(job)


async def _until_done(job: _Job) -> None:
    """Wait on the event loop until the thread hands ``job`` back. A plain future on asyncio:
    anyio's Event costs a loop turn more and a few microseconds (sync tools pay this on
    every call)."""
    if job.done:
        return
    if job.loop is None:
        job.waiter = anyio.Event()
        await job.waiter.wait()
    else:
        job.waiter = job.loop.create_future()
        await job.waiter


class SyncPool:
    """Runs sync functions in bounded, stoppable daemon threads (see the module docstring)."""

    def __init__(self, *, max_running: int = MAX_RUNNING,
                 max_per_tool: int = MAX_PER_TOOL, max_stuck: int = MAX_STUCK,
                 stop_grace: float = STOP_GRACE_SECONDS) -> None:
        self.max_running = max_running
        self.max_per_tool = max_per_tool
        self.max_stuck = max_stuck
        self.stop_grace = stop_grace
        self._lock = threading.Lock()
        self._idle: deque[_Worker] = deque()
        self._threads: set[_Worker] = set()
        self._stuck: dict[str, int] = {}
        self._held: dict[str, int] = {}  # threads each tool holds, running or stuck
        self._waiting: deque[_Job] = deque()  # calls waiting for a place, in order
        self._running = 0
        self._stopped_total = 0
        self._stuck_total = 0
        self._recursion_limit = sys.getrecursionlimit()
        self._token: tuple[asyncio.AbstractEventLoop | None, anyio.lowlevel.EventLoopToken,
                           LoopWaker | None] | None = None

    def stats(self) -> PoolStats:
        with self._lock:
            return PoolStats(threads=len(self._threads), running=self._running,
                             stuck=sum(self._stuck.values()), stuck_by_tool=dict(self._stuck),
                             stopped_total=self._stopped_total, stuck_total=self._stuck_total,
                             idle=len(self._idle), waiting=len(self._waiting))

    async def run(self, fn: Callable[[], Any], *, tool: str) -> Any:
        """``fn()`` in a pool thread; its exception is raised here. On cancel (timeout) the
        thread is stopped; if it cannot be, ``ToolStuck`` says so instead of the cancel."""
        if self._stuck:
            self._refuse_if_stuck(tool)
        loop, token, waker = self._loop_token()
        busy = loop is None or not _idle(loop)
        job = _Job(fn=fn, tool=tool, token=token, loop=loop, waker=waker, busy=busy)
        # A call runs when the pool and its tool have a place free; otherwise it waits in
        # the pool's queue, and the next thread that frees a place it may take runs it.
        if self._submit(job) and not busy:
            _yield_until_done(job)
        try:
            if not job.done:  # (taken back while the loop yielded: no coroutine to await)
                await _until_done(job)
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await self._stop(job)
            raise
        if job.ok:
            return job.value
        raise job.value

    def _loop_token(self) -> tuple[asyncio.AbstractEventLoop | None,
                                   anyio.lowlevel.EventLoopToken, LoopWaker | None]:
        """The running asyncio loop (None under another backend), anyio's token for it and
        the loop's waker, kept while the loop is the same: anyio builds a new token on each
        call."""
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:  # not asyncio (trio)
            return None, anyio.lowlevel.current_token(), None
        cached = self._token
        if cached is None or cached[0] is not loop:
            assert loop is not None
            cached = self._token = (loop, anyio.lowlevel.current_token(),
                                    waker_for(loop, _on_loop_done))
        return cached

    def _refuse_if_stuck(self, tool: str) -> None:
        with self._lock:
            mine, total = self._stuck.get(tool, 0), sum(self._stuck.values())
        if mine >= self.max_per_tool:
            raise ToolStuck(
                f"was not started: {mine} earlier calls of it are still running after their "
                "timeout in threads toolhost cannot stop (code blocked in C, such as "
                "time.sleep or a read without a timeout). New calls run again when one of "
                "them ends; give the tool `isolation: process` to have such calls killed.")
        if total >= self.max_stuck:
            raise ToolStuck(
                f"was not started: {total} calls of sync python tools are still running "
                f"after their timeout (the limit is {self.max_stuck}) in threads toolhost "
                "cannot stop. Give the hanging tools `isolation: process`.")

    def _submit(self, job: _Job) -> bool:
        """Start ``job`` in a thread if the pool and its tool have a place; else queue it
        (False). Places are counted here and freed by the thread (``_finished``)."""
        with self._lock:
            if not self._has_place(job.tool):
                job.queued = job.busy = True  # handed back through the waker: no yield
                self._waiting.append(job)
                return False
            self._take_place(job.tool)
            worker = self._idle.pop() if self._idle else None
            if worker is None:
                worker = _Worker(self)
                self._threads.add(worker)
        self._start(worker, job)
        return True

    def _has_place(self, tool: str) -> bool:
        return (self._running < self.max_running
                and self._held.get(tool, 0) < self.max_per_tool)

    def _take_place(self, tool: str) -> None:
        self._running += 1
        self._held[tool] = self._held.get(tool, 0) + 1

    def _next_waiting(self) -> _Job | None:
        """Under the lock: the first waiting call that now has a place (it is taken)."""
        waiting = self._waiting
        for index, job in enumerate(waiting):
            if self._has_place(job.tool):
                del waiting[index]
                job.queued = False
                self._take_place(job.tool)
                return job
            if self._running >= self.max_running:
                break
        return None

    def _start(self, worker: _Worker, job: _Job) -> None:
        if worker.ident is None:  # new (an idle worker is alive: it leaves through _retire)
            with _STACK_LOCK:
                previous = threading.stack_size(THREAD_STACK_BYTES)
                try:
                    worker.start()
                finally:
                    threading.stack_size(previous)
        worker.jobs.put(job)

    async def _stop(self, job: _Job) -> None:
        with self._lock:
            if job.queued:  # never started: it leaves the queue, it held no place
                job.queued = False
                self._waiting.remove(job)
                job.state = _DROPPED
                return
        with job.lock:
            if job.state == _PENDING:
                job.state = _DROPPED
            running = job.state == _RUNNING
            if running:
                assert job.thread_id is not None
                _raise_in(job.thread_id)
        if running:
            with anyio.move_on_after(self.stop_grace):
                await _until_done(job)
        with self._lock:
            if job.state in (_DONE, _DROPPED):
                self._stopped_total += running
                return
            job.stuck = True
            self._running -= 1  # the pool's place is free; the tool's stays held
            self._stuck[job.tool] = self._stuck.get(job.tool, 0) + 1
            self._stuck_total += 1
            mine, _total = self._stuck[job.tool], sum(self._stuck.values())
            started = self._start_waiting()
        for worker, waiting in started:
            self._start(worker, waiting)
        raise ToolStuck(
            f"did not finish in time and its thread could not be stopped (it is blocked in "
            f"code Python cannot interrupt, such as time.sleep or a read without a timeout). "
            f"{mine} of this tool's calls are stuck like this; at {self.max_per_tool} new "
            "calls are refused. Give the tool `isolation: process` to have such calls "
            "killed.")

    def _start_waiting(self) -> list[tuple[_Worker, _Job]]:
        """Under the lock: waiting calls that have a place now, each with a thread."""
        started = []
        while self._waiting:
            job = self._next_waiting()
            if job is None:
                break
            worker = self._idle.pop() if self._idle else None
            if worker is None:
                worker = _Worker(self)
                self._threads.add(worker)
            started.append((worker, job))
        return started

    def _finished(self, worker: _Worker, job: _Job) -> _Job | None:
        """From ``worker``'s thread, done with ``job``: its places are freed; the next
        waiting call that may run now is handed to this same thread (returned), or the
        thread goes idle (None)."""
        with self._lock:
            if job.stuck:
                left = self._stuck.get(job.tool, 0) - 1
                if left > 0:
                    self._stuck[job.tool] = left
                else:
                    self._stuck.pop(job.tool, None)
            else:
                self._running -= 1
            held = self._held.get(job.tool, 0) - 1
            if held > 0:
                self._held[job.tool] = held
            else:
                self._held.pop(job.tool, None)
            after = self._next_waiting() if self._waiting else None
            if after is None:
                self._idle.append(worker)
            if self._running == 0 and sys.getrecursionlimit() != self._recursion_limit:
                log.warning("tool %s changed the recursion limit to %d; put back to %d",
                            job.tool, sys.getrecursionlimit(), self._recursion_limit)
                sys.setrecursionlimit(self._recursion_limit)
        if job.stuck:
            log.warning("tool %s: a stuck call finally ended; its thread is free again", job.tool)
        return after

    def _retire(self, worker: _Worker) -> bool:
        """An idle thread leaves after ``IDLE_SECONDS`` (True when it did)."""
        with self._lock:
            if worker in self._idle and worker.jobs.empty():
                self._idle.remove(worker)
                self._threads.discard(worker)
                return True
            return False


_STACK_LOCK = threading.Lock()
_DEFAULT: SyncPool | None = None


def default_pool() -> SyncPool:
    """The process's pool for in-process sync tools (created on first use; from then on the
    recursion limit is capped, see the module docstring)."""
    global _DEFAULT
    if _DEFAULT is None:
        cap_recursion_limit()
        _DEFAULT = SyncPool()
    return _DEFAULT
