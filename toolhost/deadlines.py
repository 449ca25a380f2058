"""Cancel scopes and timeouts for the per-call path, at a fraction of anyio's cost.

Every tools/call runs in a cancel scope (a client's ``notifications/cancelled`` cancels it)
and, when its tool has a ``timeout``, under a deadline. ``anyio.fail_after`` makes a timer on
the event loop for each call (a heap entry made, then cancelled) behind a generator-based
context manager: ~9 µs a call on asyncio, a sixth of a whole tools/call round trip. Here:

- ``cancel_scope()`` is anyio's own ``CancelScope`` (same semantics: level-triggered, shields
  respected), built without looking the backend up on every call;
- ``fail_after(seconds)`` is that scope plus a deadline kept by one timer per event loop,
  armed for the earliest deadline only: a call adds itself to a table and takes itself out,
  and the timer, when it fires, cancels the scopes whose time has come and re-arms for the
  next. ``TimeoutError`` on expiry, exactly as ``anyio.fail_after``.

On another backend (trio) both fall back to anyio's own scopes and deadlines.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import math
import threading
import weakref
from types import TracebackType

import anyio

__all__ = ["CURRENT_DEADLINE", "cancel_scope", "fail_after"]

# the deadline of the innermost ``fail_after`` (the event loop's clock: ``time.monotonic()``
# on asyncio), inf outside any
CURRENT_DEADLINE: contextvars.ContextVar[float] = contextvars.ContextVar(
    "toolhost_deadline", default=float("inf"))

log = logging.getLogger("toolhost.call")

_asyncio_scope: type[anyio.CancelScope] | None = None


def cancel_scope() -> anyio.CancelScope:
    """A new ``anyio.CancelScope`` of the running backend (on asyncio, its class built
    directly: ``anyio.CancelScope()`` looks the backend up on every call)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # another backend (trio)
        return anyio.CancelScope()
    return _asyncio_scope_class()()


def _asyncio_scope_class() -> type[anyio.CancelScope]:
    global _asyncio_scope
    if _asyncio_scope is None:  # called on asyncio: the scope it makes is asyncio's
        _asyncio_scope = type(anyio.CancelScope())
    return _asyncio_scope


class _Deadline:
    """One armed deadline: the scope it cancels and when."""

    __slots__ = ("expired", "scope", "when")

    def __init__(self, scope: anyio.CancelScope, when: float) -> None:
        self.scope = scope
        self.when = when
        self.expired = False


class _LoopTimer:
    """The deadlines of one event loop and the single timer handle that serves them."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        # weakly: the table of timers is keyed weakly by loop, and a value holding its key
        # would keep every loop (and its timer) alive for good
        self._loop = weakref.ref(loop)
        self.armed: dict[_Deadline, None] = {}  # a set that keeps no order cost
        # weakly too (a pending handle is held by its loop, and holds the loop)
        self._handle: weakref.ref[asyncio.TimerHandle] | None = None
        self.next_at = math.inf

    def arm(self, loop: asyncio.AbstractEventLoop, scope: anyio.CancelScope,
            seconds: float) -> _Deadline:
        deadline = _Deadline(scope, loop.time() + seconds)
        self.armed[deadline] = None
        if deadline.when < self.next_at:
            self._schedule(loop, deadline.when)
        return deadline

    def disarm(self, deadline: _Deadline) -> None:
        # The timer stays armed: when it fires with nothing due it re-arms for the next
        # deadline (or none); one stale wake-up is cheaper than a timer per call.
        self.armed.pop(deadline, None)

    @property
    def handle(self) -> asyncio.TimerHandle | None:
        """The pending timer, if any."""
        return self._handle() if self._handle is not None else None

    def _schedule(self, loop: asyncio.AbstractEventLoop, when: float) -> None:
        pending = self.handle
        if pending is not None:
            pending.cancel()
        self.next_at = when
        self._handle = weakref.ref(loop.call_at(when, self._fire))

    def _fire(self) -> None:
        self._handle, self.next_at = None, math.inf
        loop = self._loop()
        if loop is None:  # unreachable: the loop runs this
            return
        try:
            # asyncio runs a timer up to one clock resolution early: count that as due
            now = loop.time() + getattr(loop, "_clock_resolution", 0.0)
            for deadline in [d for d in self.armed if d.when <= now]:
                del self.armed[deadline]
                deadline.expired = True
                try:
                    deadline.scope.cancel()
                except Exception:  # one scope's trouble must not spare the others
                    log.exception("cancelling a call at its deadline failed")
        finally:  # whatever happened, the deadlines still armed keep their timer
            if self.armed:
                self._schedule(loop, min(d.when for d in self.armed))


_timers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopTimer] = (
    weakref.WeakKeyDictionary())
_timers_lock = threading.Lock()  # loops of other threads register too (rarely)
_last: tuple[weakref.ref[asyncio.AbstractEventLoop], _LoopTimer] | None = None


def _loop_timer(loop: asyncio.AbstractEventLoop) -> _LoopTimer | None:
    """The loop's timer (None for a loop that cannot be weakly referenced: anyio's own
    deadlines serve it)."""
    global _last
    last = _last
    if last is not None and last[0]() is loop:  # the one loop nearly every process has
        return last[1]
    try:
        with _timers_lock:
            timer = _timers.get(loop)
            if timer is None:
                timer = _timers[loop] = _LoopTimer(loop)
            _last = (weakref.ref(loop), timer)
    except TypeError:
        return None
    return timer


class fail_after:  # lower case: a drop-in for anyio.fail_after
    """``with fail_after(seconds):`` -- the block is cancelled when ``seconds`` pass, and
    ``TimeoutError`` raised in its place (as ``anyio.fail_after``; see the module text)."""

    __slots__ = ("_deadline", "_scope", "_timer", "_token", "seconds")

    def __init__(self, seconds: float) -> None:
        if math.isnan(seconds):  # never due: refused, as anyio refuses it
            raise ValueError("a deadline of NaN seconds")
        self.seconds = seconds
        self._scope: anyio.CancelScope | None = None
        self._deadline: _Deadline | None = None
        self._timer: _LoopTimer | None = None
        self._token: contextvars.Token[float] | None = None

    def __enter__(self) -> anyio.CancelScope:
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:  # another backend
            loop = None
        timer = _loop_timer(loop) if loop is not None else None
        if timer is None:  # anyio's own deadline
            scope = self._scope = anyio.CancelScope(
                deadline=anyio.current_time() + self.seconds)
            return scope.__enter__()
        scope = self._scope = _asyncio_scope_class()()
        scope.__enter__()
        self._timer = timer
        assert loop is not None
        self._deadline = timer.arm(loop, scope, self.seconds)
        # what an async tool blocking the loop is stopped at (toolhost.backends.loop_hold)
        self._token = CURRENT_DEADLINE.set(loop.time() + self.seconds)
        return scope

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> bool:
        scope, deadline, timer = self._scope, self._deadline, self._timer
        assert scope is not None
        if self._token is not None:
            CURRENT_DEADLINE.reset(self._token)
            self._token = None
        if timer is not None and deadline is not None:
            timer.disarm(deadline)
            expired = deadline.expired
        else:
            expired = anyio.current_time() >= scope.deadline
        swallowed = bool(scope.__exit__(exc_type, exc, tb))
        if scope.cancelled_caught and expired:
            raise TimeoutError
        return swallowed
