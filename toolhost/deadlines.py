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
import logging
import math
import threading
import weakref
from types import TracebackType

import anyio

__all__ = ["cancel_scope", "fail_after"]

log = logging.getLogger("toolhost.call")

_asyncio_scope: type[anyio.CancelScope] | None = None


def cancel_scope() -> anyio.CancelScope:
    """A new ``anyio.CancelScope`` of the running backend (on asyncio, its class built
    directly: ``anyio.CancelScope()`` looks the backend up on every call)."""
    global _asyncio_scope
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # another backend (trio)
        return anyio.CancelScope()
    if _asyncio_scope is None:
        _asyncio_scope = type(anyio.CancelScope())
    return _asyncio_scope()


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
        self.loop = loop
        self.armed: dict[_Deadline, None] = {}  # a set that keeps no order cost
        self.handle: asyncio.TimerHandle | None = None
        self.next_at = math.inf

    def arm(self, scope: anyio.CancelScope, seconds: float) -> _Deadline:
        deadline = _Deadline(scope, self.loop.time() + seconds)
        self.armed[deadline] = None
        if deadline.when < self.next_at:
            self._schedule(deadline.when)
        return deadline

    def disarm(self, deadline: _Deadline) -> None:
        # The timer stays armed: when it fires with nothing due it re-arms for the next
        # deadline (or none); one stale wake-up is cheaper than a timer per call.
        self.armed.pop(deadline, None)

    def _schedule(self, when: float) -> None:
        if self.handle is not None:
            self.handle.cancel()
        self.next_at = when
        self.handle = self.loop.call_at(when, self._fire)

    def _fire(self) -> None:
        self.handle, self.next_at = None, math.inf
        try:
            # asyncio runs a timer up to one clock resolution early: count that as due
            now = self.loop.time() + getattr(self.loop, "_clock_resolution", 0.0)
            for deadline in [d for d in self.armed if d.when <= now]:
                del self.armed[deadline]
                deadline.expired = True
                try:
                    deadline.scope.cancel()
                except Exception:  # one scope's trouble must not spare the others
                    log.exception("cancelling a call at its deadline failed")
        finally:  # whatever happened, the deadlines still armed keep their timer
            if self.armed:
                self._schedule(min(d.when for d in self.armed))


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

    __slots__ = ("_deadline", "_scope", "_timer", "seconds")

    def __init__(self, seconds: float) -> None:
        if math.isnan(seconds):  # never due: refused, as anyio refuses it
            raise ValueError("a deadline of NaN seconds")
        self.seconds = seconds
        self._scope: anyio.CancelScope | None = None
        self._deadline: _Deadline | None = None
        self._timer: _LoopTimer | None = None

    def __enter__(self) -> anyio.CancelScope:
        try:
            timer = _loop_timer(asyncio.get_running_loop())
        except RuntimeError:  # another backend
            timer = None
        if timer is None:  # anyio's own deadline
            scope = self._scope = anyio.CancelScope(
                deadline=anyio.current_time() + self.seconds)
            return scope.__enter__()
        global _asyncio_scope
        if _asyncio_scope is None:
            _asyncio_scope = type(anyio.CancelScope())
        scope = self._scope = _asyncio_scope()
        scope.__enter__()
        self._timer = timer
        self._deadline = timer.arm(scope, self.seconds)
        return scope

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> bool:
        scope, deadline, timer = self._scope, self._deadline, self._timer
        assert scope is not None
        if timer is not None and deadline is not None:
            timer.disarm(deadline)
            expired = deadline.expired
        else:
            expired = anyio.current_time() >= scope.deadline
        swallowed = bool(scope.__exit__(exc_type, exc, tb))
        if scope.cancelled_caught and expired:
            raise TimeoutError
        return swallowed
