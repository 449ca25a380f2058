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

The look is made after a call at most every ``EVERY`` (20 ms): calls closer than that owe
one, made from the loop when its time comes, so a change is put back within 20 ms of the call
that made it (a look after every call cost async calls ~7% of their instructions, and its
read of ``/proc/self/status`` ~7 us of system time each). Not seen: a change made and
used within one call (the signal arriving while the tool still runs), a handler set on
another thread's mask (the kernel gives the signal to a thread that does not block it).
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

__all__ = ["EVERY", "SignalWatch"]

_signal: Any = importlib.import_module("_signal")  # its getsignal: no enum made per call

_TIMERS = tuple(getattr(signal, name) for name in ("ITIMER_REAL", "ITIMER_VIRTUAL",
                                                   "ITIMER_PROF") if hasattr(signal, name))
_ACTION_BYTES = 256  # more than any libc's struct sigaction (glibc's is 152 on 64 bits)
_HANDLER_BYTES = ctypes.sizeof(ctypes.c_void_p)
# how often at most the state is looked at after calls: a change a call made is put back
# within this time (and a signal in it may meet the tool's handler)
EVERY = 0.02
_monotonic = time.monotonic


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


def _status_reader() -> Callable[[], bytes] | None:
    """The process's signal masks as Linux shows them (``/proc/self/status``: the main
    thread's blocked signals, the ignored ones, those with a handler), read by one system call
    on a descriptor kept open; None elsewhere."""
    try:
        fd = os.open("/proc/self/status", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None

    buffer = bytearray(4096)
    found = [-1]  # where the lines are: the same place while the process lives, looked for once

    def read() -> bytes:
        try:
            os.preadv(fd, [buffer], 0)
        except OSError:
            return b""
        at = found[0]
        if at < 0 or not buffer.startswith(b"\nSigBlk:", at):
            at = found[0] = buffer.find(b"\nSigBlk:")
        return bytes(buffer[at:at + 80])  # SigBlk, SigIgn, SigCgt: 25 bytes a line
    return read


class SignalWatch:
    """The state of ``signums`` (and the wake-up descriptor, the main thread's mask of them,
    the interval timers) as the session set it; ``put_back`` restores it. ``originals``: the
    C functions of ``_signal`` before any guard (the watch must not be refused).

    After a call, ``put_back`` looks at most every ``EVERY`` seconds (the look: the
    handlers as Python has them, one read of the kernel's masks, ~7 us of system time that
    instruction counts do not see, on Linux; elsewhere each handler read through
    ``sigaction``; the timers; the wake-up descriptor set to itself). Calls closer than that
    owe a look, made from ``loop`` when its time comes. Only when something moved is every
    signal looked at one by one."""

    def __init__(self, signums: Iterable[int], originals: dict[str, Any],
                 loop: asyncio.AbstractEventLoop | None = None,
                 report: Callable[[str, list[str]], None] | None = None) -> None:
        self._signums = tuple(signums)
        self._loop = loop
        self._report = report
        self._next = 0.0  # the first call's put_back looks
        self._owed = False  # a look is due from the loop
        self._tool = ""  # a call since the last look
        self._closed = False
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._c = originals
        self._main = threading.main_thread().ident
        self._sigaction = _libc_sigaction()
        self._buffer = ctypes.create_string_buffer(_ACTION_BYTES)
        self._read_status = _status_reader() or self._kernel_handlers
        self._handlers: tuple[Any, ...] = ()
        self._actions: dict[int, bytes] = {}
        self._status = b""
        self.wakeup: int | None = None
        if threading.get_ident() == self._main:
            fd = self._c["set_wakeup_fd"](-1)
            self._c["set_wakeup_fd"](fd)
            self.wakeup = fd
        self._blocked = self._blocked_now() if self.wakeup is not None else frozenset()
        # a timer armed before toolhost started (kept across exec) is not a tool's
        self._free = tuple(which for which in _TIMERS
                           if signal.getitimer(which) == (0.0, 0.0))
        for signum in self._signums:
            self.follow(signum)

    def _action(self, signum: int) -> bytes:
        """The kernel's action for ``signum``, whole (to set it back with), or b''."""
        if self._sigaction is None or self._sigaction(signum, None, self._buffer) != 0:
            return b""
        return self._buffer.raw

    def _kernel_handlers(self) -> bytes:
        return b"".join(self._action(s)[:_HANDLER_BYTES] for s in self._signums)

    def _blocked_now(self) -> frozenset[int]:
        return frozenset(self._c["pthread_sigmask"](signal.SIG_BLOCK, ())) \
            & frozenset(self._signums)

    def follow(self, signum: int | None = None, *, wakeup: int | None = None) -> None:
        """toolhost changed ``signum``'s handler (or set the wake-up descriptor to
        ``wakeup``): that is the state to keep from now on."""
        if signum in self._signums:
            assert signum is not None
            self._actions[signum] = self._action(signum)
        if wakeup is not None:
            self.wakeup = wakeup
        self._handlers = tuple(map(_signal.getsignal, self._signums))
        self._status = self._read_status()

    def follow_mask(self) -> None:
        """toolhost changed the main thread's mask: keep it."""
        if threading.get_ident() == self._main:
            self._blocked = self._blocked_now()
        self._status = self._read_status()

    def put_back(self, tool: str = "") -> list[str]:
        """After a call of ``tool``: restore what differs from the state noted; what was put
        back, named. Within ``EVERY`` of the last look nothing is read now: a look is owed,
        and made from the loop when its time comes (what it puts back told to ``report``)."""
        now = _monotonic()
        if now < self._next and self._loop is not None:  # (no loop to owe it to: look now)
            if not self._owed:
                self._owe(tool)
            return []
        self._next = now + EVERY
        return self._look()

    def _look(self) -> list[str]:
        if tuple(map(_signal.getsignal, self._signums)) != self._handlers \
                or self._read_status() != self._status:
            return self._changed()
        if self.wakeup is not None and threading.get_ident() == self._main \
                and self._c["set_wakeup_fd"](self.wakeup) != self.wakeup:  # (set back)
            return ["the signal wake-up descriptor", *self._changed()]
        for which in self._free:
            if _signal.getitimer(which)[0]:
                return self._changed()
        return []

    def _owe(self, tool: str) -> None:
        """A look is due at ``self._next``, on the loop: a thread of the watch's own waits
        for that time (a timer on the loop would be weighed at every turn of it, ~4% of a
        call while calls keep it armed)."""
        self._owed, self._tool = True, tool
        if self._thread is None:
            self._thread = threading.Thread(target=self._wait_turns, daemon=True,
                                            name="toolhost-signal-watch")
            self._thread.start()
        self._wake.set()

    def _wait_turns(self) -> None:
        loop = self._loop
        assert loop is not None
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._closed:
                return
            delay = self._next - _monotonic()
            if delay > 0:
                time.sleep(delay)
            try:
                loop.call_soon_threadsafe(self._due)
            except RuntimeError:  # the loop is closed: nothing left to keep
                return

    def _due(self) -> None:
        """On the loop: the look owed."""
        if self._closed:
            return
        self._owed = False
        self._next = _monotonic() + EVERY
        changed = self._look()
        if changed and self._report is not None:
            self._report(self._tool, changed)

    def close(self) -> None:
        """The session no longer owns its signals: the watch's thread ends."""
        self._closed = True
        self._wake.set()

    def _changed(self) -> list[str]:
        changed = self._restore()
        self._status = self._read_status()
        return changed

    def _restore(self) -> list[str]:
        changed: list[str] = []
        for signum, handler in zip(self._signums, self._handlers, strict=True):
            if _signal.getsignal(signum) is not handler and handler is not None:
                with contextlib.suppress(OSError, ValueError, TypeError):
                    self._c["signal"](signum, handler)
                changed.append(signal.Signals(signum).name)
            saved = self._actions[signum]
            if saved and self._action(signum)[:_HANDLER_BYTES] != saved[:_HANDLER_BYTES]:
                # (the handler alone: libc leaves part of a struct it returns unwritten)
                assert self._sigaction is not None
                self._sigaction(signum, saved, None)
                changed.append(signal.Signals(signum).name)
        if threading.get_ident() == self._main and self.wakeup is not None:
            with contextlib.suppress(OSError, ValueError):
                if self._c["set_wakeup_fd"](self.wakeup) != self.wakeup:
                    changed.append("the signal wake-up descriptor")
            blocked = self._blocked_now() - self._blocked
            if blocked:
                self._c["pthread_sigmask"](signal.SIG_UNBLOCK, blocked)
                changed.extend(signal.Signals(s).name + " (blocked)" for s in sorted(blocked))
        for which in self._free:  # toolhost arms none: a tool's alarm, its SIGALRM the end
            if signal.getitimer(which) != (0.0, 0.0):
                self._c["setitimer"](which, 0)
                changed.append("a timer (signal.alarm or setitimer)")
        return list(dict.fromkeys(changed))
