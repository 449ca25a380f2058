"""Newline-delimited JSON over anyio byte streams: a capped line reader and a locked writer."""

from __future__ import annotations

import asyncio
import json
import re
from collections import deque
from collections.abc import Callable
from typing import Any

import anyio
import anyio.abc

from toolhost import jsonfast
from toolhost.errors import FrameTooLongError

__all__ = ["DEFAULT_MAX_LINE_BYTES", "LineReader", "LineSplitter", "LineTooLong", "LineWriter",
           "SplitLines", "encode_line", "request_id_in"]

# Conversation messages echo tool results and file contents; the CLI itself saves results
# over ~49 KB to files, so 32 MiB leaves room for anything legitimate.
DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024
_CHUNK = 256 * 1024
HEAD_BYTES = 4096  # kept of a dropped line, to find whom to answer
WRITE_NOW_LIMIT = 256 * 1024  # unsent bytes past which an immediate write waits instead


class _TooLong:
    __slots__ = ("head", "size", "where")

    def __init__(self, size: int, head: bytes = b"", where: str = "") -> None:
        self.size = size
        self.head = head
        self.where = where


class LineTooLong(FrameTooLongError):
    """A dropped over-long line; ``head`` is its first bytes (to answer its request)."""

    def __init__(self, message: str, head: bytes) -> None:
        super().__init__(message)
        self.head = head


# The control request a line is, from its first bytes: the CLI writes "type" and
# "request_id" before the (possibly huge) "request" object.
_CONTROL_REQUEST = re.compile(rb'^\s*\{\s*"type"\s*:\s*"control_request"')
_REQUEST_ID = re.compile(rb'"request_id"\s*:\s*"([^"\\]{1,200})"')


def request_id_in(head: bytes) -> str | None:
    """The ``request_id`` of the control request whose line starts with ``head``, if any."""
    if _CONTROL_REQUEST.match(head) is None:
        return None
    match = _REQUEST_ID.search(head)
    return match.group(1).decode("utf-8", "replace") if match else None


class LineSplitter:
    """Splits a byte stream into lines, dropping over-long ones as they stream in.

    ``feed`` each chunk; complete lines (bytes, without the newline) and dropped ones
    (``LineTooLong`` markers) queue up in order; ``pop`` takes the next one. ``finish`` at the
    end of the stream queues the unterminated rest. Never holds more than one line's limit
    of an unfinished line.
    """

    __slots__ = ("_buf", "_head", "_skipped", "max_line_bytes", "ready")

    def __init__(self, max_line_bytes: int) -> None:
        if max_line_bytes < 1:
            raise ValueError(f"max_line_bytes must be positive, got {max_line_bytes}")
        self.max_line_bytes = max_line_bytes
        self._buf = bytearray()
        self.ready: deque[bytes | _TooLong] = deque()
        self._skipped = 0  # > 0 while dropping the rest of an over-long line
        self._head = b""  # the first bytes of the line being dropped

    def pop(self) -> bytes:
        """The next line; raises ``LineTooLong`` for a dropped one, IndexError when none."""
        item = self.ready.popleft()
        if isinstance(item, _TooLong):
            raise LineTooLong(f"skipped a {item.where}line of {item.size:,} bytes (the limit "
                              f"is {self.max_line_bytes:,} bytes)", item.head)
        return item

    def finish(self) -> None:
        """The stream ended: queue what is left of an unterminated last line."""
        if self._skipped:
            self.ready.append(_TooLong(self._skipped, self._head, "final "))
            self._skipped, self._head = 0, b""
        elif self._buf:
            self.ready.append(bytes(self._buf))
        self._buf.clear()

    def feed(self, chunk: bytes) -> None:
        limit = self.max_line_bytes
        ready = self.ready
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                break
            if self._skipped:
                ready.append(_TooLong(self._skipped + end - start, self._head))
                self._skipped, self._head = 0, b""
            elif self._buf:
                self._buf += chunk[start:end]
                if len(self._buf) > limit:
                    ready.append(_TooLong(len(self._buf), bytes(self._buf[:HEAD_BYTES])))
                else:
                    ready.append(bytes(self._buf))
                self._buf.clear()
            elif end - start > limit:
                ready.append(_TooLong(end - start, chunk[start:start + HEAD_BYTES]))
            else:
                ready.append(chunk[start:end])
            start = end + 1
        rest = len(chunk) - start
        if not rest:
            return
        if self._skipped:
            self._skipped += rest
        elif len(self._buf) + rest > limit:
            self._skipped = len(self._buf) + rest
            self._head = (bytes(self._buf[:HEAD_BYTES]) + chunk[start:start + HEAD_BYTES]
                          )[:HEAD_BYTES]
            self._buf.clear()
        else:
            self._buf += chunk[start:]


class SplitLines:
    """What a reader built on a ``LineSplitter`` (``_lines``) tells about its queue."""

    _lines: LineSplitter

    @property
    def waiting(self) -> int:
        """Whole lines read and not yet taken (a line being offered inline counts)."""
        return len(self._lines.ready)

    @property
    def buffered(self) -> bool:
        """Whether a whole line is already here (the next ``receive_line`` won't wait)."""
        return bool(self._lines.ready)

    def take_lines(self, take: Callable[[bytes], bool]) -> None:
        """Remove the whole lines read and not yet received that ``take`` says yes to (it
        sees each once, in order); the others stay queued, in order."""
        ready = self._lines.ready
        kept = [line for line in ready if not isinstance(line, bytes) or not take(line)]
        if len(kept) != len(ready):
            ready.clear()
            ready.extend(kept)


class LineReader(SplitLines):
    """Reads lines (without the newline) from a byte stream.

    A line longer than ``max_line_bytes`` is dropped as it streams in (never buffered
    whole) and reported by ``receive_line`` raising ``FrameTooLongError``; the next call
    carries on with the following line. At the end of the stream, ``anyio.EndOfStream``.
    """

    def __init__(self, stream: anyio.abc.ByteReceiveStream, max_line_bytes: int) -> None:
        self._lines = LineSplitter(max_line_bytes)
        self._stream = stream
        self.max_line_bytes = max_line_bytes
        self._eof = False

    async def receive_line(self) -> bytes:
        lines = self._lines
        while True:
            if lines.ready:
                return lines.pop()
            if self._eof:
                raise anyio.EndOfStream
            try:
                chunk = await self._stream.receive(_CHUNK)
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                self._eof = True
                lines.finish()
                continue
            lines.feed(chunk)


def _asyncio_writer(stream: anyio.abc.ByteSendStream) -> asyncio.StreamWriter | None:
    """The asyncio ``StreamWriter`` under anyio's subprocess stream, if that is what it is."""
    inner = getattr(stream, "_stream", None)
    return inner if isinstance(inner, asyncio.StreamWriter) else None


# Built once: json.dumps with non-default options would build an encoder per call.
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def encode_line(obj: Any) -> bytes:
    """One compact JSON line (UTF-8, newline-terminated; a lone surrogate stays escaped)."""
    data = jsonfast.dumps(obj, newline=True)  # orjson, when it writes the same JSON
    if data is not jsonfast.NOT_FAST:
        return data  # type: ignore[no-any-return]
    text = _encode(obj) + "\n"
    try:
        return text.encode()
    except UnicodeEncodeError:
        return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


class LineWriter:
    """Writes JSON lines; concurrent writers never interleave and a line is never cut.

    While one write is in progress, lines from other tasks queue up and the writing task
    sends them as one batch when it is done: under load (32 answers in flight) that is one
    system call for many answers. A write that has started finishes even if its task is
    cancelled (shielded), so a cancelled call cannot leave half a line on the wire.
    """

    def __init__(self, stream: anyio.abc.ByteSendStream) -> None:
        self._stream = stream
        self._writing = False
        self._backlog: list[bytes] = []
        self._direct = _asyncio_writer(stream)

    async def send(self, obj: Any) -> None:
        await self.send_bytes(encode_line(obj))

    async def send_bytes(self, data: bytes) -> None:
        direct = self._direct
        if direct is not None:
            # A pipe to a subprocess on asyncio: ``write`` puts the whole line in the
            # transport's buffer at once, so no cancellation can cut it and no lock or
            # shield is needed; ``drain`` only waits when the peer is slow to read.
            # (anyio's own send adds a shielded scope and an event-loop round per line.)
            if direct.is_closing():
                raise anyio.BrokenResourceError("the peer's input is closed")
            self._put(direct, data)
            try:
                await direct.drain()
            except (ConnectionResetError, BrokenPipeError, RuntimeError) as exc:
                raise anyio.BrokenResourceError(str(exc)) from exc
            return
        if self._writing:
            self._backlog.append(data)  # the task writing now sends it next, in order
            return
        self._writing = True
        try:
            with anyio.CancelScope(shield=True):
                await self._stream.send(data)
                while self._backlog:
                    batch = b"".join(self._backlog)
                    self._backlog.clear()
                    await self._stream.send(batch)
        finally:
            self._backlog.clear()  # only non-empty when the stream failed: the peer is gone
            self._writing = False

    def can_write_now(self) -> bool:
        """Whether ``write_now`` would take a line: a subprocess pipe whose reader keeps up.

        A peer that stopped reading (more than ``WRITE_NOW_LIMIT`` unsent) gets False: the
        caller then ``await``s ``send_bytes`` like any other writer, and waits for it.
        """
        direct = self._direct
        return (direct is not None and not direct.is_closing()
                and direct.transport.get_write_buffer_size() <= WRITE_NOW_LIMIT)

    def write_now(self, data: bytes, *, more: bool = False) -> bool:
        """Write ``data`` without waiting if ``can_write_now``; False: use ``send_bytes``.

        For answers decided without a pause (see ``ControlSession``): the line goes into the
        transport at once (or joins the batch already due this turn), so it is out before the
        event loop turns again. ``more``: other lines follow in this turn (requests already
        read behind this one), so later ones are batched.
        """
        direct = self._direct
        if not self.can_write_now():
            return False
        assert direct is not None
        self._put(direct, data, more)
        return True

    def put_now(self, data: bytes, *, more: bool = False) -> None:
        """``write_now`` for a caller that has just seen ``can_write_now()`` say yes and has
        written nothing to the peer since (one check per answer, not two)."""
        direct = self._direct
        assert direct is not None
        self._put(direct, data, more)

    def _put(self, direct: asyncio.StreamWriter, data: bytes, more: bool = False) -> None:
        # The first line of an event-loop turn goes out at once (a lone answer waits for
        # nothing); lines written later in the same turn join one batch, written at the
        # start of the next turn (32 answers in flight: a few system calls, not 32).
        if self._writing:
            self._backlog.append(data)
            return
        direct.write(data)
        loop = asyncio.get_running_loop()
        if not more and not getattr(loop, "_ready", True):
            # Nothing else is due in this turn (CPython's ready queue is empty), so no other
            # line can follow in it: no batch to open, and no extra turn to close it.
            return
        self._writing = True
        loop.call_soon(self._flush, direct)

    def _flush(self, direct: asyncio.StreamWriter) -> None:
        self._writing = False
        if not self._backlog:
            return
        data = self._backlog[0] if len(self._backlog) == 1 else b"".join(self._backlog)
        self._backlog.clear()
        if not direct.is_closing():  # the peer went away: nobody reads these lines
            direct.write(data)

    async def aclose(self) -> None:
        await self._stream.aclose()
