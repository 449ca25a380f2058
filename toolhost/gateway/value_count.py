"""How many JSON values an upstream's answer holds, counted as its body streams in.

Building millions of values (``[],[],...``: 15 MB make 5 M of them) holds the GIL, so the whole
host, for seconds while pydantic builds the message. Over stdio the transport counts a line
before parsing it (``toolhost.gateway.transport``); over Streamable HTTP the ``mcp`` client
parses the body itself, so the body is counted here, chunk by chunk, on its way in: commas and
openers (``[`` ``{``) outside strings, in bounded regex steps (at most one chunk each, whatever
the chunk holds: a string of millions of escapes, millions of brackets in a row).

A server-sent event stream is counted per event (a blank line ends one); a JSON string cannot
hold a raw line break, so a broken string ends at the end of its line and cannot hide the
next event's values.
"""

from __future__ import annotations

import re

__all__ = ["MAX_ANSWER_VALUES", "MAX_VALUES", "ValueCount"]

MAX_VALUES = 250_000  # in the answer to a call, a read or a prompt (cut at 40,000 chars anyway)
MAX_ANSWER_VALUES = 1_000_000  # in any other message: a listing page, a notification

_INSIDE = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*', re.DOTALL)  # a string's inside, to its end
_INSIDE_LINE = re.compile(rb'[^"\\\n]*(?:\\[^\n][^"\\\n]*)*')  # the same, within a line (SSE)


_EVENT_END = re.compile(rb"\n\r?\n|\r\r")


class ValueCount:
    """Feed a body's chunks in order; ``feed`` says when the count went over ``limit``."""

    def __init__(self, limit: int, *, events: bool = False) -> None:
        self.limit = limit
        self.events = events  # a text/event-stream: counted per event
        self.count = 0
        self._in_string = False
        self._escaped = False  # the last chunk ended inside a string, after a backslash
        self._tail = b""  # the last bytes outside strings (an event's end may span chunks)

    def feed(self, chunk: bytes) -> bool:
        """Count ``chunk``; True once the message holds more than ``limit`` values."""
        pos, end = 0, len(chunk)
        inside = _INSIDE_LINE if self.events else _INSIDE
        while pos < end:
            if self._in_string:
                if self._escaped:  # the byte after a backslash that ended the last chunk
                    self._escaped = False
                    if not (self.events and chunk[pos] == 0x0A):
                        pos += 1
                        if pos >= end:
                            break
                match = inside.match(chunk, pos)
                assert match is not None  # it may match nothing, never fail
                pos = match.end()
                if pos >= end:
                    break
                if chunk[pos] == 0x5C:  # a backslash: last in the chunk, or (SSE) before
                    if pos + 1 >= end:  # a line's end
                        self._escaped = True
                        break
                    pos += 1
                self._in_string = False  # a closing quote, or (SSE) a line's end
                pos += 1 if chunk[pos] == 0x22 else 0
                continue
            quote = chunk.find(b'"', pos)
            stop = end if quote < 0 else quote
            if self._outside(chunk[pos:stop]):
                return True
            if quote < 0:
                break
            self._in_string = True
            self._tail = b""
            pos = quote + 1
        return False

    def _outside(self, part: bytes) -> bool:
        """Count a stretch outside strings; True once over the limit."""
        if self.events and (self._tail or b"\n" in part or b"\r" in part):
            return self._outside_events(part)
        self.count += _values(part)
        return self.count > self.limit

    def _outside_events(self, part: bytes) -> bool:
        """The same in an event stream, where each end of an event starts the count again."""
        joined, start = self._tail + part, len(self._tail)
        self._tail = joined[-3:]
        first = _EVENT_END.search(joined, max(0, start - 2))
        if first is not None and first.end() <= start:  # seen already, in the tail
            first = _EVENT_END.search(joined, first.end())
        if first is None:
            self.count += _values(part)
            return self.count > self.limit
        self.count += _values(joined[start:first.start()])
        if self.count > self.limit:
            return True
        last = max(at + len(mark) for mark in (b"\n\n", b"\n\r\n", b"\r\r")
                   if (at := joined.rfind(mark)) >= 0)
        if last - first.end() > self.limit and any(  # events in between could hold that many
                _values(event) > self.limit
                for event in _EVENT_END.split(joined[first.end():last])):
            return True
        self.count = _values(joined[last:])
        return self.count > self.limit


def _values(part: bytes) -> int:
    return part.count(b",") + part.count(b"[") + part.count(b"{")
