"""An ``async def`` tool that blocks the event loop past its timeout is stopped.

An async tool runs on the event loop: if it blocks (``time.sleep``, ``requests.get``, a long
computation with no ``await``) nothing else of the host runs, not even the timer of its own
timeout, so every other call waited for as long as it blocked. A watcher thread notices a
loop that has not turned for a second while an async call runs (the call's frame is on the
loop thread's stack) and warns once, naming the tool; once that call is past its own
deadline (its ``timeout``), or has held the loop ``TOOLHOST_LOOP_HOLD`` seconds at a stretch
(10 by default, 0.1 to 3600), it interrupts the loop's thread with a signal
(``SIGUSR2``): the handler raises ``LoopHeld`` there, inside the tool's own code (a
``time.sleep`` or a blocking read returns early for it, as for any signal; a busy loop stops
at its next line). The call's answer is its error; every other call is answered as usual.

Only the main thread can run a signal handler: the guard is on in ``toolhost run``, ``serve``
and ``call`` (the loop in the main thread) and does nothing elsewhere. A tool that set its own
``SIGUSR2`` handler keeps it (the guard is then off). Code that blocks inside C and restarts on
a signal (a lock's ``acquire`` with no timeout) cannot be interrupted: it holds the loop until
it returns.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from contextvars import ContextVar
from types import CodeType, FrameType
from typing import Any

__all__ = ["HOLD_ENV", "HOLD_SECONDS", "INLINE_CODES", "LoopHeld", "current_deadline", "hold",
           "release"]

HOLD_ENV = "TOOLHOST_LOOP_HOLD"
HOLD_SECONDS = 10.0  # the longest an async call may hold the event loop, by default
_STALL = 1.0  # a loop that has not turned this long is blocked
_INF = float("inf")
_BEAT = 0.25  # how often the loop says it turns, while an async call runs
# the code of the coroutine a ``blocking: false`` def runs in (toolhost.backends.python): a
# held frame of it is named so, with its own advice (read only when one holds the loop)
INLINE_CODES: set[CodeType] = set()


class LoopHeld(BaseException):
    """Raised inside an async tool's code that held the event loop too long (a
    BaseException: ``except Exception`` in the tool does not swallow it)."""


class _Guard:
    def __init__(self) -> None:
        from toolhost.env_seconds import env_seconds

        # a hold this long is stopped, timeout or not: a host that stops answering for
        # longer is hung (a few seconds of requests.get in an async def is slow, not broken)
        self.hold = env_seconds(HOLD_ENV, HOLD_SECONDS, 0.1, 3600.0, warn=True)
        # the frame of each async call running -> (tool, its deadline); dict operations are
        # atomic under the GIL, so the watcher reads it without a lock
        self.calls: dict[FrameType, tuple[str, float]] = {}
        self.beat = time.monotonic()
        self.beating = False
        self.main = threading.main_thread().ident
        self.told: set[FrameType] = set()

    def start_beating(self, loop: Any) -> None:
        if self.beating:
            return
        self.beating = True

        def beat() -> None:
            self.beat = time.monotonic()
            if self.calls:
                loop.call_later(_BEAT, beat)
            else:
                self.beating = False
        beat()

    def watch(self) -> None:  # the watcher thread
        while True:
            # idle (no async call running): a look a second, not four (a server waits for
            # hours); a call that starts blocking is seen within the stall time either way
            time.sleep(_BEAT if self.calls else _STALL)
            if not self.calls or time.monotonic() - self.beat < _STALL:
                continue
            held = self.holder()
            if held is None:
                continue
            frame, (tool, deadline) = held
            if frame not in self.told:
                inline = frame.f_code in INLINE_CODES
                self.told.add(frame)
                import logging

                logging.getLogger("toolhost").warning(
                    "%s %s is blocking the event loop (no await for %.0f s): every "
                    "other call waits until it returns, or its timeout or %s (%g s) stops "
                    "it. %s", "tool" if inline else "async tool", tool,
                    time.monotonic() - self.beat, HOLD_ENV, self.hold,
                    _INLINE_ADVICE if inline else "Write blocking code as a def (it runs in "
                    "a thread) or give the tool isolation: process")
            if self.overdue(deadline, time.monotonic()) and self.main is not None:
                signal.pthread_kill(self.main, signal.SIGUSR2)

    def overdue(self, deadline: float, now: float) -> bool:
        """Whether a call holding the loop is stopped now: it held it ``hold`` seconds, or
        past its own deadline."""
        stalled = now - self.beat
        return stalled >= self.hold or (stalled >= _STALL and now >= deadline)

    def holder(self) -> tuple[FrameType, tuple[str, float]] | None:
        """The async call whose frame is on the main thread's stack now, if any."""
        frame = sys._current_frames().get(self.main) if self.main is not None else None
        while frame is not None:
            found = self.calls.get(frame)
            if found is not None:
                return frame, found
            frame = frame.f_back
        return None

    def on_signal(self, signum: int, frame: FrameType | None) -> None:
        now = time.monotonic()
        while frame is not None:
            found = self.calls.get(frame)
            if found is not None and self.overdue(found[1], now):
                inline = frame.f_code in INLINE_CODES
                raise LoopHeld(f"tool {found[0]} held the event loop for "
                               f"{now - self.beat:.1f} s without an await (blocking code in "
                               + ("a def under blocking: false" if inline else "an async def")
                               + ") and was stopped (its timeout, or "
                               f"{HOLD_ENV}); "
                               + ("r" + _INLINE_ADVICE[1:] if inline else "write blocking "
                                  "code as a def, or give the tool isolation: process"))
            frame = frame.f_back


_INLINE_ADVICE = ("Remove blocking: false (the def then runs in a thread), or give the tool "
                  "isolation: process")


_guard: list[_Guard] = []


def current_deadline() -> float:
    """The deadline of the call running now (``toolhost.deadlines.fail_after``'s, on
    ``time.monotonic()``: asyncio's clock), or inf."""
    if not _deadline:
        from toolhost.deadlines import CURRENT_DEADLINE  # loaded by then: calls run in it

        _deadline.append(CURRENT_DEADLINE)
    return _deadline[0].get()


_deadline: list[ContextVar[float]] = []


def _installed() -> _Guard | None:
    if _guard:
        return _guard[0]
    if threading.current_thread() is not threading.main_thread():
        return None
    if signal.getsignal(signal.SIGUSR2) not in (signal.SIG_DFL, None):
        return None  # someone else's handler: theirs stays
    guard = _Guard()
    signal.signal(signal.SIGUSR2, guard.on_signal)
    threading.Thread(target=guard.watch, name="toolhost-loop-hold", daemon=True).start()
    _guard.append(guard)
    return guard


def hold(coro: Any, tool: str, deadline: float) -> FrameType | None:
    """Before awaiting an async tool's coroutine on the event loop: note its frame, with
    the call's ``deadline`` (``time.monotonic()`` seconds, or inf). Returns what ``release``
    takes after (None: nothing noted)."""
    guard = _guard[0] if _guard else _installed()
    if guard is None or (deadline == _INF and guard.hold == _INF):
        return None  # nothing would ever stop it: no cost per call
    frame: FrameType | None = getattr(coro, "cr_frame", None)
    if frame is None:
        return None
    guard.calls[frame] = (tool, deadline)
    if not guard.beating:
        import asyncio

        try:
            guard.start_beating(asyncio.get_running_loop())
        except RuntimeError:  # not asyncio: the loop's beat cannot be heard
            del guard.calls[frame]
            return None
    return frame


def release(frame: FrameType | None) -> None:
    """After the coroutine ``hold`` noted ended (however it ended)."""
    if frame is not None:
        guard = _guard[0]
        guard.calls.pop(frame, None)
        if frame in guard.told:
            guard.told.discard(frame)
