"""What the session's signals are, noted once it owns them, and put back when a tool changed them.

``runner.owned_signals`` refuses every way a tool's Python code asks to change how the
session takes a signal. Some ways are not asked through anything it can replace: a reference
to a C function of ``_signal`` taken before the session (``from signal import
set_wakeup_fd``, ``from _signal import signal``), ``ctypes`` calling libc's ``sigaction``,
``signal`` or ``sigprocmask``, a C extension doing the same. ``SignalWatch`` notes, for each
of the session's signals, its handler as Python knows it (``signal.getsignal``) and as the
kernel has it (``sigaction``, read through ``ctypes``), the signal wake-up descriptor, which
of them the main thread blocks, and the interval timers; ``put_back`` (after each in-process
call, ``toolhost.backends.host_guards``) sets back whatever differs and names it. A change
toolhost itself makes through the guarded functions is noted (``follow``), never undone.

Not seen: a change made and used within one call (the signal arriving while the tool still
runs), a handler set on another thread's mask (the kernel gives the signal to a thread that
does not block it).
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import threading
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["SignalWatch"]

_TIMERS = tuple(getattr(signal, name) for name in ("ITIMER_REAL", "ITIMER_VIRTUAL",
                                                   "ITIMER_PROF") if hasattr(signal, name))
_ACTION_BYTES = 256  # more than any libc's struct sigaction (glibc's is 152 on 64 bits)
_HANDLER_BYTES = ctypes.sizeof(ctypes.c_void_p)


def _libc_sigaction() -> Callable[[int, Any, Any], int] | None:
    """libc's ``sigaction``, or None where ctypes cannot reach it (then only what Python
    sees is watched)."""
    try:
        function = ctypes.CDLL(None, use_errno=True).sigaction
    except (OSError, AttributeError, TypeError):
        return None
    function.argtypes = (ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
    function.restype = ctypes.c_int
    return function


class SignalWatch:
    """The state of ``signums`` (and the wake-up descriptor, the main thread's mask of them,
    the interval timers) as the session set it; ``put_back`` restores it. ``originals``: the
    C functions of ``_signal`` before any guard (the watch must not be refused)."""

    def __init__(self, signums: Iterable[int], originals: dict[str, Any]) -> None:
        self._signums = tuple(signums)
        self._c = originals
        self._main = threading.main_thread()
        self._sigaction = _libc_sigaction()
        self._buffer = ctypes.create_string_buffer(_ACTION_BYTES)
        self._handlers: dict[int, Any] = {}
        self._actions: dict[int, bytes] = {}
        for signum in self._signums:
            self.follow(signum)
        self.wakeup: int | None = None
        if threading.current_thread() is self._main:
            fd = self._c["set_wakeup_fd"](-1)
            self._c["set_wakeup_fd"](fd)
            self.wakeup = fd
        self._blocked = self._blocked_now() if self.wakeup is not None else frozenset()
        # a timer armed before toolhost started (kept across exec) is not a tool's
        self._armed = {which for which in _TIMERS if signal.getitimer(which) != (0.0, 0.0)}

    def _action(self, signum: int) -> bytes:
        """The kernel's action for ``signum``, whole (to set it back with), or b''."""
        if self._sigaction is None or self._sigaction(signum, None, self._buffer) != 0:
            return b""
        return self._buffer.raw

    def _handler_moved(self, signum: int, saved: bytes) -> bool:
        # the handler alone: the first member everywhere (libc leaves part of a struct it
        # returns unwritten, so the rest of two readings of one action can differ)
        return self._action(signum)[:_HANDLER_BYTES] != saved[:_HANDLER_BYTES]

    def _blocked_now(self) -> frozenset[int]:
        return frozenset(self._c["pthread_sigmask"](signal.SIG_BLOCK, ())) \
            & frozenset(self._signums)

    def follow(self, signum: int | None = None, *, wakeup: int | None = None) -> None:
        """toolhost changed ``signum``'s handler (or set the wake-up descriptor to
        ``wakeup``): that is the state to keep from now on."""
        if signum in self._signums:
            assert signum is not None
            self._handlers[signum] = signal.getsignal(signum)
            self._actions[signum] = self._action(signum)
        if wakeup is not None:
            self.wakeup = wakeup

    def follow_mask(self) -> None:
        """toolhost changed the main thread's mask: keep it."""
        if threading.current_thread() is self._main:
            self._blocked = self._blocked_now()

    def put_back(self) -> list[str]:
        """Restore what differs from the state noted; what was put back, named."""
        changed: list[str] = []
        for signum in self._signums:
            handler = self._handlers[signum]
            if signal.getsignal(signum) is not handler and handler is not None:
                with contextlib.suppress(OSError, ValueError, TypeError):
                    self._c["signal"](signum, handler)
                changed.append(signal.Signals(signum).name)
            saved = self._actions[signum]
            if saved and self._handler_moved(signum, saved):
                assert self._sigaction is not None
                self._sigaction(signum, saved, None)
                changed.append(signal.Signals(signum).name)
        if threading.current_thread() is self._main and self.wakeup is not None:
            with contextlib.suppress(OSError, ValueError):
                if self._c["set_wakeup_fd"](self.wakeup) != self.wakeup:
                    changed.append("the signal wake-up descriptor")
            blocked = self._blocked_now() - self._blocked
            if blocked:
                self._c["pthread_sigmask"](signal.SIG_UNBLOCK, blocked)
                changed.extend(signal.Signals(s).name + " (blocked)" for s in sorted(blocked))
        for which in _TIMERS:  # toolhost arms none: a tool's alarm, its SIGALRM the end
            if which not in self._armed and signal.getitimer(which) != (0.0, 0.0):
                self._c["setitimer"](which, 0)
                changed.append("a timer (signal.alarm or setitimer)")
        return list(dict.fromkeys(changed))
