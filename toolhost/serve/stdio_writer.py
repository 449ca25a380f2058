"""The output side of MCP over stdio: lines written on a thread of their own, and how many
bytes of them the client has not taken yet.

A client that stops reading our output while it goes on sending requests must not grow the
server without bound: every answer it asks for is computed and would wait, whole, for the
pipe. ``LineWriter.unwritten`` counts the bytes handed to the writer and not yet written
(``toolhost.serve.stdio.StdioServer`` adds those waiting for its lock), and the server reads
no further request while they are over ``--max-in-flight-bytes``: the client's own pipe
then holds what it sends, as for any program that stops reading.
"""

from __future__ import annotations

import contextlib
import queue
import select
import threading
from collections.abc import Callable
from typing import IO, Any

import anyio
import anyio.from_thread
import anyio.lowlevel

__all__ = ["LineWriter", "input_hung_up"]

# while no request is read (the output is full), how often the input is looked at for its
# end: a client that closed our input without reading still lets the server end
HANGUP_EVERY = 0.5
_RDHUP = getattr(select, "POLLRDHUP", 0)  # Linux: the peer of a socket stopped sending


class LineWriter:
    """Writes to ``file`` on a daemon thread of its own, one job at a time, in order.

    ``write`` waits for its bytes to be written (or the write to fail); cancelled, it stops
    waiting but the bytes still go out in order. A write blocked on a client that does not
    read holds up only this thread, which never keeps the process from exiting.
    ``unwritten``: the bytes given to ``write`` that are not written yet (a cancelled
    write's too); ``on_written`` is called (on the event loop) as each write ends.
    """

    def __init__(self, file: IO[bytes]) -> None:
        self._file = file
        self._jobs: queue.SimpleQueue[tuple[bytes, Callable[[BaseException | None], None]]] = \
            queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self.unwritten = 0  # (changed on the event loop only)
        self.on_written: Callable[[], None] | None = None

    async def write(self, data: bytes) -> None:
        """Write ``data`` whole; raises what the write raised (OSError: the peer is gone)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="toolhost stdio writer",
                                            daemon=True)
            self._thread.start()
        token = anyio.lowlevel.current_token()
        done = anyio.Event()
        outcome: list[BaseException | None] = []

        def written() -> None:  # on the event loop
            self.unwritten -= len(data)
            done.set()
            if self.on_written is not None:
                self.on_written()

        def finish(exc: BaseException | None) -> None:  # on the writer thread
            outcome.append(exc)
            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits now
                anyio.from_thread.run_sync(written, token=token)

        self.unwritten += len(data)
        self._jobs.put((data, finish))
        await done.wait()
        if outcome[0] is not None:
            raise outcome[0]

    def _run(self) -> None:
        while True:
            data, finish = self._jobs.get()
            try:
                view = memoryview(data)
                while view:  # a raw file may take part of it (a signal, a pipe)
                    written = self._file.write(view)
                    view = view[written if written is not None else len(view):]
                self._file.flush()
            except (OSError, ValueError) as exc:
                finish(exc)
            else:
                finish(None)


def input_hung_up(reader: Any) -> bool:
    """Whether the writing end of ``reader`` (a pipe, a socket, a terminal) is closed, though
    lines it sent may be unread (Linux reports a pipe's or a terminal's hang-up beside its
    data, and a socket's end of sending, ``shutdown`` or ``close``, as ``POLLRDHUP``); False
    when that cannot be told (no file descriptor, no ``poll``)."""
    try:
        fd = reader.fileno()
        poller = select.poll()
    except (AttributeError, OSError, ValueError):
        return False
    # (a TCP or Unix socket whose peer stopped sending gives no POLLHUP while ours is open)
    ended = select.POLLHUP | select.POLLERR | select.POLLNVAL | _RDHUP
    poller.register(fd, select.POLLIN | _RDHUP)
    try:
        return any(events & ended for _, events in poller.poll(0))
    except OSError:
        return False
