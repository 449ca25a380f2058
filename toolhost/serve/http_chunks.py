"""Our own reading of a chunked request body's framing, beside h11's: the size each chunk
announces (a chunk over ``--max-message`` is refused before h11 waits for all of it) and its
trailer section (refused when a proxy in front may read it otherwise: a bare LF, an
obs-fold). ``toolhost.serve.http_protocol`` feeds it the bytes after a chunked request's
head as they arrive; it reads no h11 state (an h11 upgrade cannot turn these checks off).

It follows h11's own rules (``h11._readers.ChunkedReader``): a chunk header is hex digits,
an optional ``;extension`` and spaces, ended by CRLF; a chunk's data is followed by CRLF; the
section after the last chunk (size 0) ends at the first empty line (CRLF or bare LF). What
h11 refuses (a bad chunk header) it leaves to h11: it stops looking.
"""

from __future__ import annotations

import re

__all__ = ["ChunkScan"]

MAX_CHUNK_HEADER = 1024  # a longer chunk header is h11's to refuse (its own bound is 64 KiB)
MAX_TRAILERS = 16 * 1024  # as a request head (http_heads.MAX_HEAD_BYTES)
_SIZE = re.compile(rb"([0-9A-Fa-f]{1,20})(;[^\r\n]*)?[ \t]*")
_END = re.compile(rb"\n\r?\n")


class ChunkScan:
    """One chunked body's framing, read from its bytes as they come (``feed``).

    ``announced`` is the size the chunk being read announced (0 between chunks); ``fault``
    says why the trailer section is refused, once one is; ``done`` is set when the body
    ended (or when its framing is h11's to refuse).
    """

    def __init__(self) -> None:
        self.announced = 0
        self.fault: str | None = None
        self.done = False
        self._left = 0  # data bytes of the current chunk still to come
        self._crlf = 0  # bytes of the CRLF ending a chunk's data still to come
        self._line = bytearray()  # a chunk header (or the trailer section) read so far
        self._trailers = False

    def feed(self, data: bytes) -> None:
        """Read ``data``, the next bytes of the body (and maybe of what follows it)."""
        view, at = memoryview(data), 0
        while at < len(view) and not self.done:
            if self._left:
                taken = min(self._left, len(view) - at)
                self._left -= taken
                at += taken
                if not self._left:
                    self.announced, self._crlf = 0, 2
            elif self._crlf:
                at += 1  # (h11 checks they are CRLF)
                self._crlf -= 1
            elif self._trailers:
                self._line += view[at:at + MAX_TRAILERS + 4 - len(self._line)]
                at = len(view)
                self._end_of_trailers()
            else:
                end = data.find(b"\n", at)
                self._line += view[at:len(view) if end < 0 else end + 1]
                at = len(view) if end < 0 else end + 1
                if end >= 0:
                    self._chunk_header(bytes(self._line))
                    self._line.clear()
                elif len(self._line) > MAX_CHUNK_HEADER:
                    self.done = True

    def _chunk_header(self, line: bytes) -> None:
        found = _SIZE.fullmatch(line[:-2]) if line.endswith(b"\r\n") else None
        if found is None:
            self.done = True  # h11 refuses it (a bare LF here is no chunk header either)
            return
        size = int(found.group(1), 16)
        if size:
            self.announced = self._left = size
        else:
            self._trailers = True

    def _end_of_trailers(self) -> None:
        section = bytes(self._line)
        if section.startswith(b"\r\n"):
            self.done = True  # no trailers
            return
        if section.startswith(b"\n"):
            self.fault = "the chunked body ends with a bare LF; end each line with CRLF"
            self.done = True
            return
        end = _END.search(section)
        if end is None:
            self.done = len(section) > MAX_TRAILERS  # too large: h11's to refuse
            return
        self.done = True
        trailers = b"\r\n" + section[:end.end()]
        if trailers.count(b"\n") != trailers.count(b"\r\n"):
            self.fault = "a trailer line ends with a bare LF; end each line with CRLF"
        elif b"\n " in trailers or b"\n\t" in trailers:
            self.fault = "a trailer is folded onto the next line (obs-fold); send each on one line"
