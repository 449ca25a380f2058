"""An HTTP upstream's event stream with the notifications toolhost never acts on left out,
before the ``mcp`` client parses them.

Over Streamable HTTP the client reads each server-sent event and validates its data with
pydantic before ``toolhost.gateway.sift`` drops an unheard notification (a log message, a
progress toolhost never asked for, a method of the upstream's own): 43 us of the host's CPU
per event, so a flood of them during a call kept the host busy for as long. Here the stream's
bytes are cut into events as they arrive (``EventSift``) and an event whose data is such a
notification (told from its line as over stdio: ``Unheard.drops_line``) is left out, counted.
Any other event passes as it came, but for its line ends, written ``\\n`` (SSE reads
``\\r\\n``, ``\\r`` and ``\\n`` alike). An event naming a type other than ``message``, or a
``retry``, always passes; one carrying an ``id`` may go (a client resuming from an earlier id
is sent the same notifications again, and they go again).
"""

from __future__ import annotations

from toolhost.gateway.unheard import Unheard

__all__ = ["EventSift"]


class EventSift:
    """Feed it an event stream's chunks (``feed``, then ``flush`` at its end); what it
    returns is the stream without the unheard notifications' events."""

    def __init__(self, unheard: Unheard) -> None:
        self.unheard = unheard
        self._held = bytearray()  # the event still arriving (bounded: the answer's cap)
        self._cr = False  # the last chunk ended in "\r": a "\n" may follow in the next
        self._look = 0  # where in ``_held`` an event's end may be (before: none; a long
        # event arriving in pieces is searched once, not again with every piece)

    def feed(self, chunk: bytes) -> bytes:
        if self._cr:
            chunk = b"\r" + chunk
        self._cr = chunk.endswith(b"\r")
        if self._cr:
            chunk = chunk[:-1]
        if b"\r" in chunk:
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        self._held += chunk
        return self._events()

    def flush(self) -> bytes:
        """What is left at the stream's end: its last events (a CR that ended it is a line
        end), then an event never finished (the client's to judge)."""
        if self._cr:
            self._held += b"\n"
            self._cr = False
        kept = self._events()
        rest = bytes(self._held)
        self._held.clear()
        return kept + rest

    def _events(self) -> bytes:
        """The events complete in what is held, those toolhost acts on, taken out of it."""
        held = self._held
        kept = bytearray()
        start = 0
        while (end := held.find(b"\n\n", max(start, self._look))) >= 0:
            event = bytes(held[start:end + 2])
            start = end + 2
            if not self._unheard(event):
                kept += event
        del held[:start]
        self._look = max(0, len(held) - 1)
        return bytes(kept)

    def _unheard(self, event: bytes) -> bool:
        data: list[bytes] = []
        for line in event.split(b"\n"):
            if line.startswith(b"data:"):
                value = line[5:]
                data.append(value[1:] if value.startswith(b" ") else value)
            elif line.startswith(b"event:"):
                kind = line[6:]
                if (kind[1:] if kind.startswith(b" ") else kind) != b"message":
                    return False
            elif line.startswith(b"retry:"):
                return False
        return bool(data) and self.unheard.drops_line(b"\n".join(data))
