"""Lines from a pipe, read by an asyncio protocol: the control session's fast input.

``LineReader`` pulls lines through anyio's stream (an ``asyncio.StreamReader`` under a
subprocess): each line that arrives wakes the reading task one event-loop turn later.
``PipeLines`` is the pipe's own protocol: a chunk is split into lines the moment it arrives,
and while the session waits for input, each new line is first offered to its ``inline``
handler, which may answer it on the spot (a ``can_use_tool`` the policy decides without
asking). Everything else queues for ``receive_line``, in order, exactly as ``LineReader``
would give it (same limits, same dropped over-long lines).

Memory stays bounded: past ``PAUSE_BYTES`` of queued lines the pipe is no longer read (the
writer blocks, as with any slow reader) until the session catches up.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from typing import cast

import anyio

from toolhost.protocol.framing import LineSplitter, SplitLines

__all__ = ["PipeLines"]

log = logging.getLogger("toolhost.protocol")

PAUSE_BYTES = 4 * 1024 * 1024  # queued and not yet taken: stop reading the pipe
RESUME_BYTES = 1024 * 1024

InlineFn = Callable[[bytes], bool]
"""Offered each line while the reader waits; True: it was answered, do not queue it."""


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # no loop runs on this thread
        return None


class PipeLines(SplitLines, asyncio.Protocol):
    """Reads a pipe (a file descriptor) as newline-delimited lines; see the module text.

    Build it with ``await PipeLines.open(fd, max_line_bytes)``; it owns the descriptor and
    closes it in ``aclose``.
    """

    def __init__(self, max_line_bytes: int) -> None:
        self._lines = LineSplitter(max_line_bytes)
        self.max_line_bytes = max_line_bytes
        self.inline: InlineFn | None = None
        # told True before a read's several lines are answered inline and False after: what
        # they print can be flushed once for the read (``toolhost run``: the decision lines)
        self.hold_output: Callable[[bool], None] | None = None
        self._transport: asyncio.ReadTransport | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._queued = 0  # bytes in the queue (of whole lines)
        self._paused = False
        self._eof = False
        self._fd = -1  # the pipe's descriptor (``read_now``), set by ``open``
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop reading it

    @classmethod
    async def open(cls, fd: int, max_line_bytes: int) -> PipeLines:
        """Start reading the pipe ``fd`` (taken over: closed with the reader)."""
        loop = asyncio.get_running_loop()
        pipe = os.fdopen(fd, "rb", buffering=0)
        try:
            _, protocol = await loop.connect_read_pipe(lambda: cls(max_line_bytes), pipe)
        except BaseException:
            pipe.close()
            raise
        protocol._fd = pipe.fileno()
        protocol._loop = loop
        return protocol

    # -- asyncio.Protocol ---------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A read pipe transport (uvloop's are not asyncio.ReadTransport subclasses).
        self._transport = cast(asyncio.ReadTransport, transport)

    def data_received(self, data: bytes) -> None:
        ready = self._lines.ready
        idle = not ready
        self._lines.feed(data)
        self._queued += len(data)  # an upper bound: reset whenever the queue empties
        if idle and self.inline is not None and self._waiter is not None:
            # The session has taken every earlier line and waits: a line it can answer
            # now is answered now, in this turn of the loop, and never queued.
            if len(ready) > 1 and self.hold_output is not None:
                self._hold(True)
                try:
                    self._answer()
                finally:
                    self._hold(False)
            else:
                self._answer()
        if not ready:
            self._queued = 0
            return
        self._wake()
        if self._queued > PAUSE_BYTES and not self._paused and self._transport is not None:
            self._paused = True
            self._transport.pause_reading()

    def _answer(self) -> None:
        ready = self._lines.ready
        while ready:
            line = ready[0]
            if not isinstance(line, bytes) or not self._offer(line):
                break
            ready.popleft()

    def _hold(self, on: bool) -> None:
        assert self.hold_output is not None
        try:
            self.hold_output(on)
        except Exception:  # as in ``_offer``: never the pipe's end
            log.exception("holding the output of a read failed")

    def _offer(self, line: bytes) -> bool:
        assert self.inline is not None
        try:
            return self.inline(line)
        except Exception:  # a bug there must not close the pipe: the slow path answers
            log.exception("answering a line inline failed")
            return False

    def eof_received(self) -> bool | None:
        self._end()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self._end()

    def _end(self) -> None:
        if not self._eof:
            self._eof = True
            self._lines.finish()
            self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # -- what the session calls -----------------------------------------------------------

    async def receive_line(self) -> bytes:
        """The next line (``LineTooLong`` for a dropped one; ``anyio.EndOfStream`` at the end)."""
        lines = self._lines
        while not lines.ready:
            if self._eof:
                raise anyio.EndOfStream
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        item = lines.ready[0]
        if len(lines.ready) == 1:
            self._queued = 0
        elif isinstance(item, bytes):
            self._queued -= len(item) + 1
        if self._paused and self._queued < RESUME_BYTES and self._transport is not None:
            self._paused = False
            self._transport.resume_reading()
        return lines.pop()

    def read_now(self, limit: int = PAUSE_BYTES) -> None:
        """Queue what the pipe holds at this moment (at most ``limit`` bytes), without
        waiting and without offering it ``inline``: a stopping host answers what the writer
        sent before the stop began, though the event loop had not read it yet.

        Only on the thread of the loop that reads the pipe (``RuntimeError`` elsewhere, and
        nothing read): the queue and the line splitter are the loop's, unlocked."""
        if self._loop is not None and _running_loop() is not self._loop:
            raise RuntimeError("PipeLines.read_now called off its event loop's thread")
        transport = self._transport
        fd = self._fd
        if self._eof or transport is None or transport.is_closing() or fd < 0:
            return
        got = 0
        while got < limit:
            try:
                if os.get_blocking(fd):  # (the loop made it non-blocking: never a wait here)
                    return
                data = os.read(fd, min(65536, limit - got))
            except OSError:  # BlockingIOError: nothing more now
                return
            if not data:
                self._end()
                return
            got += len(data)
            self._lines.feed(data)

    def aclose(self) -> None:
        """Stop reading and close the pipe."""
        if self._transport is not None:
            self._transport.close()
