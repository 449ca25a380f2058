"""Output that never stops the session: what stdout's (or stderr's) reader is slow to take
waits in memory, not in a ``write``.

A reader of ``toolhost run``'s output that stops reading (``| less`` on a page not turned, a
script that reads the output only once the run ends, a terminal paused with Ctrl-S) used to
stop the whole session at the transcript's next write: the event loop blocked in ``write``,
so the CLI's tool calls and permission requests went unanswered, and SIGTERM and Ctrl-C were
never acted on (only SIGKILL ended toolhost).

``SpillingText`` writes on a description of its own, opened non-blocking through
``/proc/self/fd`` (a pipe, a FIFO or a terminal: the description the shell shares, and so its
blocking mode, is not touched). What the reader does not take at once waits, in order, in a
buffer that a thread writes as the reader makes room. Past ``LIMIT`` bytes waiting, a write
fails with ``ENOBUFS`` (its text dropped): the renderer counts a lost transcript line as for
any failed write (``output_failures``), and the session goes on. A regular file, a socket or
a descriptor that cannot be reopened is written as before (blocking).

``finish_all`` (at the end of the run) waits for what is still waiting to be written: for
good, as any program's output would, or for at most ``timeout`` seconds (after a signal
stopped the session: a SIGTERM must end toolhost even when nobody reads its output).
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import stat
import threading
import time
import weakref
from typing import Any

import anyio

__all__ = ["LIMIT", "SpillingText", "finish_all", "private_nonblocking", "terminals_written"]

LIMIT = 16 * 1024 * 1024  # bytes waiting for a slow reader, past which writes are dropped
_CHUNK = 1 << 16
_OPEN: weakref.WeakSet[SpillingText] = weakref.WeakSet()


def private_nonblocking(fd: int) -> int | None:
    """A non-blocking description of its own for the pipe, FIFO or terminal on ``fd`` (the
    caller closes it); None for anything else (a regular file never blocks for long, and
    reopening one would write from its start) or when it cannot be opened."""
    try:
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
            return None
        return os.open(f"/proc/self/fd/{fd}",
                       os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return None


class SpillingText:
    """A UTF-8 text stream on ``fd`` whose writes never wait for the reader (see the module
    docstring). ``fd`` stays the caller's; the private description is this stream's."""

    encoding = "utf-8"
    errors = "replace"
    line_buffering = True

    def __init__(self, fd: int, *, keep: Any = None) -> None:
        self._fd = fd
        self._keep = keep  # an object owning ``fd`` (a file), kept alive as long as this
        own = private_nonblocking(fd)
        self._own = own
        self._out = fd if own is None else own
        self._pending = bytearray()
        self._lock = threading.Lock()  # (a plain lock: ``write``'s ``with`` stays in C)
        self._cond = threading.Condition(self._lock)  # what waits, on the same lock
        self._thread: threading.Thread | None = None
        self.lost = 0  # bytes dropped: past LIMIT, or never taken by the end
        self.on_terminal = os.isatty(fd)
        self.closed = False
        _OPEN.add(self)

    # -- the TextIO a renderer and a print see ----------------------------------------------
    def write(self, text: str) -> int:
        data = text.encode("utf-8", "replace")
        if self._own is None:  # blocking, as before
            view = memoryview(data)
            while view:
                view = view[os.write(self._out, view):]
            return len(text)
        with self._lock:
            if self.closed:  # given up on (``finish`` with a deadline): never waits now
                try:
                    written = os.write(self._out, data) if data else 0
                except BlockingIOError:
                    written = 0
                self.lost += len(data) - written
                return len(text)
            if self._pending:
                if len(self._pending) + len(data) > LIMIT:
                    self.lost += len(data)
                    raise OSError(errno.ENOBUFS, f"its reader stopped reading ({LIMIT:,} "
                                                 "bytes wait unread)")
                self._pending += data
                return len(text)
            try:
                written = os.write(self._out, data) if data else 0
            except BlockingIOError:
                written = 0
            if written < len(data):
                self._pending += data[written:]
                self._start()
                self._cond.notify_all()
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        return None  # nothing is buffered but what waits for the reader (``finish``)

    def fileno(self) -> int:
        return self._out

    def isatty(self) -> bool:
        return os.isatty(self._out)

    def writable(self) -> bool:
        return True

    # -- what waits ------------------------------------------------------------------------
    @property
    def waiting(self) -> int:
        """Bytes written and not yet taken by the reader."""
        return len(self._pending)

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._drain, name="toolhost-spill",
                                            daemon=True)
            self._thread.start()

    def _drain(self) -> None:
        poller = select.poll()
        poller.register(self._out, select.POLLOUT)
        while True:
            with self._cond:
                while not self._pending and not self.closed:
                    self._cond.wait()
                if not self._pending:
                    return
            try:
                poller.poll()
                with self._cond:
                    written = os.write(self._out, self._pending[:_CHUNK])
                    del self._pending[:written]
                    self._cond.notify_all()
            except BlockingIOError:
                continue
            except (OSError, ValueError):  # the reader left, or the terminal hung up
                with self._cond:
                    self.lost += len(self._pending)
                    self._pending.clear()
                    self._cond.notify_all()

    def finish(self, timeout: float | None = None) -> bool:
        """Wait until everything written was taken by the reader (at most ``timeout``
        seconds); what is still waiting then is dropped and counted. From then on writes
        wait for the reader, as before; after a deadline that passed, each is tried once
        and what the reader does not take at once is dropped. True: nothing was lost."""
        deadline = None if timeout is None else time.monotonic() + timeout
        given_up = False
        with self._cond:
            while self._pending:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    self.lost += len(self._pending)
                    self._pending.clear()
                    given_up = True
                    break
                self._cond.wait(1.0 if left is None else min(left, 1.0))
            self.closed = True
            self._cond.notify_all()
        if given_up:  # later writes are tried once and never wait (see ``write``)
            return False
        if self._thread is not None:
            self._thread.join(1.0)  # it ends once nothing waits (a write it is in: EAGAIN)
            if self._thread.is_alive():
                return not self.lost  # (left, with its description)
            self._thread = None
        with self._cond:
            own, self._own, self._out = self._own, None, self._fd
        if own is not None:
            with contextlib.suppress(OSError):
                os.close(own)
        return not self.lost

    def close(self) -> None:
        self.finish()


async def terminals_written() -> None:
    """Wait until nothing waits to be written to a terminal (a stdout or stderr that is one):
    a prompt or a question the ``Terminal`` writes straight to it would otherwise land inside
    the transcript still waiting, cut in two by it. (Only when the terminal was slow: nothing
    waits, no wait; lines printed meanwhile are held by the question, see ``hold_while``.)"""
    while any(s.on_terminal and s.waiting and not s.closed for s in list(_OPEN)):
        await anyio.sleep(0.01)


def finish_all(timeout: float | None = None) -> int:
    """``finish`` every open ``SpillingText``; the bytes lost, in all."""
    lost = 0
    for stream in list(_OPEN):
        if not stream.closed:
            stream.finish(timeout)
        lost += stream.lost
    return lost
