"""Read an HTTP response body up to a size cap, decompressing with bounded memory.

httpx's own decoders inflate each network chunk completely before anyone can look at the size:
64 KB of gzip can be 64 MB, and ``Content-Encoding: gzip, gzip`` multiplies that again (a 3.5 KB
body became 4 GB). So the body is read raw and inflated here with
``decompressobj().decompress(data, max_length)``: never more than one byte past the cap is
produced, whatever the ratio. One layer of ``gzip`` (``x-gzip``, one member or several) or
``deflate`` (zlib-wrapped or raw) is decoded; a stacked encoding or any other is refused, and
so is a compressed body that is garbage, ends before its stream does, or has data after it.
The client asks only for these two (``ACCEPT_ENCODING``).
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx

__all__ = ["ACCEPT_ENCODING", "BodyError", "read_body"]

ACCEPT_ENCODING = "gzip, deflate"

_GZIP = 16 + zlib.MAX_WBITS
_ZLIB = zlib.MAX_WBITS
_RAW = -zlib.MAX_WBITS


class BodyError(ValueError):
    """The body cannot be decoded: its message says why, for the tool's result."""


def _wbits(response: httpx.Response) -> int | None:
    """The zlib window for the response's Content-Encoding; None for none."""
    header = ", ".join(response.headers.get_list("content-encoding"))
    codings = [c.strip().lower() for c in header.split(",")]
    codings = [c for c in codings if c and c != "identity"]
    if not codings:
        return None
    if len(codings) > 1:
        raise BodyError(f"The response is encoded {len(codings)} times (Content-Encoding: "
                        f"{header}); toolhost decodes one layer only, so it was not read.")
    if codings[0] in ("gzip", "x-gzip"):
        return _GZIP
    if codings[0] == "deflate":
        return _ZLIB
    raise BodyError(f"The response's Content-Encoding {codings[0]!r} is not one toolhost "
                    f"decodes (it asks for {ACCEPT_ENCODING}), so it was not read.")


class _Inflater:
    """One layer of gzip or deflate, inflated at most ``room`` bytes at a time. A gzip body
    may hold several members one after the other (RFC 1952 2.2), each inflated in turn; any
    other data after the end of the compressed stream, or a stream that never reaches its
    end, is a ``BodyError``."""

    def __init__(self, wbits: int) -> None:
        # deflate is zlib-wrapped or, from many servers, raw: the first two bytes tell
        self.gzip = wbits == _GZIP
        self.inflate = None if wbits == _ZLIB else zlib.decompressobj(wbits)
        self.head = b""
        self.fed = False

    def feed(self, data: bytes, room: int) -> bytes:
        """Up to ``room`` bytes of output for ``data``; fewer means ``data`` was used up.
        (Input left over when ``room`` is reached is dropped: the read stops there.)"""
        self.fed = self.fed or bool(data)
        if self.inflate is None:
            data, self.head = self.head + data, b""
            if len(data) < 2:
                self.head = data
                return b""
            wrapped = data[0] & 0x0F == 8 and int.from_bytes(data[:2], "big") % 31 == 0
            self.inflate = zlib.decompressobj(_ZLIB if wrapped else _RAW)
        out = b""
        while data and len(out) < room:  # never decompress(data, 0): 0 is "no limit"
            if self.inflate.eof:  # a stream ended and more data follows
                if not self.gzip:
                    raise BodyError("The response body could not be decompressed (it has "
                                    "data after the end of its compressed stream).")
                self.inflate = zlib.decompressobj(_GZIP)  # the next gzip member
            try:
                out += self.inflate.decompress(data, room - len(out))
            except zlib.error as exc:
                raise BodyError(f"The response body could not be decompressed ({exc}).") \
                    from None
            data = self.inflate.unused_data if self.inflate.eof else b""
        return out

    def finish(self) -> None:
        """Raise ``BodyError`` when the body ended inside a compressed stream (cut short: a
        gzip stream carries its length and checksum at the end to detect exactly that)."""
        if not self.fed:
            return  # no body at all (HEAD, 204, 304): nothing was compressed
        if self.inflate is None or not self.inflate.eof:
            raise BodyError("The response body could not be decompressed (it ends before "
                            "the end of its compressed stream: the response was cut short).")


async def read_body(response: httpx.Response, cap: int) -> tuple[bytes, bool]:
    """The body, decoded, and whether it passed ``cap`` bytes (then only ``cap`` are kept and
    the rest is not read). Raises ``BodyError`` for an encoding toolhost does not decode, and
    for a compressed body that is broken or ends early."""
    wbits = _wbits(response)
    inflater = _Inflater(wbits) if wbits is not None else None
    buf = bytearray()
    async for raw in response.aiter_raw():
        room = cap + 1 - len(buf)  # one byte past the cap says "there was more"
        buf += inflater.feed(raw, room) if inflater is not None else raw[:room]
        if len(buf) > cap:
            return bytes(buf[:cap]), True
    if inflater is not None:
        inflater.finish()
    return bytes(buf), False
