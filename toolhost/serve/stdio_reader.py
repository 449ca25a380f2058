"""The client's lines, read on a daemon thread of the reader's own (``LineReader``).

A read of stdin blocks until the client writes. Read on one of anyio's worker threads, a
blocked read kept the process from exiting: Ctrl-C (SIGINT) ended the serving, then Python's
exit waited for that thread until the client closed its end (a client that sends SIGINT and
keeps the pipe open, a person's Ctrl-C where serve reads a terminal). A daemon thread never
holds the exit. A read whose waiter is cancelled is not lost: the next ``readline`` takes
it. A terminal (a pty) whose other side hung up, and a socket its peer reset, end the input
as a closed pipe does.
"""

from __future__ import annotations

import contextlib
import errno
import queue
import threading
from collections import deque
from typing import IO

import anyio
import anyio.from_thread
import anyio.lowlevel

__all__ = ["LineReader"]

_ENDED = (errno.EIO, errno.ECONNRESET)  # what a read of an input whose client left raises


class LineReader:
    """``readline`` of ``file`` (binary) on a daemon thread, one line at a time, in order."""

    def __init__(self, file: IO[bytes]) -> None:
        self._file = file
        self._asks: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._results: deque[bytes | BaseException] = deque()
        self._lock = threading.Lock()
        self._waiter: tuple[anyio.lowlevel.EventLoopToken, anyio.Event] | None = None
        self._asked = False  # a read is asked for and its line not yet taken
        self._thread: threading.Thread | None = None

    async def readline(self, size: int) -> bytes:
        """The next line of at most ``size`` bytes (``b""``: the input ended); raises what
        the read raised."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="toolhost stdio reader",
                                            daemon=True)
            self._thread.start()
        if not self._asked:  # (a read a cancelled waiter asked for is still coming)
            self._asks.put(size)
            self._asked = True
        ready = anyio.Event()
        with self._lock:
            if self._results:
                ready.set()
            else:
                self._waiter = (anyio.lowlevel.current_token(), ready)
        try:
            await ready.wait()
        finally:
            with self._lock:
                self._waiter = None
        with self._lock:
            result = self._results.popleft()
        self._asked = False
        if isinstance(result, BaseException):
            raise result
        return result

    def _run(self) -> None:
        while True:
            size = self._asks.get()
            result: bytes | BaseException
            try:
                result = self._file.readline(size)
            except OSError as exc:
                # a terminal whose other side hung up reads EIO, a socket reset by its
                # peer ECONNRESET: the input ended (not an internal error)
                result = b"" if exc.errno in _ENDED else exc
            except ValueError as exc:  # (closed under us: said to the reader)
                result = exc
            with self._lock:
                self._results.append(result)
                waiter = self._waiter
            if waiter is not None:
                token, ready = waiter
                with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits
                    anyio.from_thread.run_sync(ready.set, token=token)
