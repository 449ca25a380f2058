"""The request heads ``toolhost serve --transport http`` refuses before h11 parses them
(``toolhost.serve.http_protocol`` calls these on the bytes as they arrive): one too large
(431), and one framed in a way h11 reads by the RFC's leave but a proxy in front may read
otherwise (400, request smuggling): a bare LF line end, an obs-fold header, a repeated
``Content-Length``, ``Content-Length`` with ``Transfer-Encoding`` (the same line rules for a
chunked body's trailer section: ``toolhost.serve.http_chunks``).
"""

from __future__ import annotations

import json
import logging
import re

__all__ = ["MAX_HEADER_LINES", "MAX_HEAD_BYTES", "TOO_LARGE", "answer", "head_fault",
           "head_refusal", "head_too_large"]

log = logging.getLogger("toolhost.serve")

MAX_HEAD_BYTES = 16 * 1024  # a request's line and headers
MAX_HEADER_LINES = 100  # header lines of one request (Apache's LimitRequestFields)
_HEAD_BODY = (b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Request Header '
              b'Fields Too Large: at most 100 headers and 16 KiB"}}')
TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: application/json"
             b"\r\nconnection: close\r\ncontent-length: " + str(len(_HEAD_BODY)).encode()
             + b"\r\n\r\n" + _HEAD_BODY)


def answer(status: int, reason: str, message: str) -> bytes:
    """A whole HTTP/1.1 answer carrying a JSON-RPC error, closing its connection."""
    body = json.dumps({"jsonrpc": "2.0", "id": None,
                       "error": {"code": -32600, "message": message}}).encode()
    return (b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\nconnection: close\r\n"
            b"content-length: %d\r\n\r\n" % (status, reason.encode(), len(body)) + body)


def head_too_large(buffered: bytes) -> bool:
    """Whether the request head at the start of ``buffered`` (complete or not) is over
    ``MAX_HEAD_BYTES`` or ``MAX_HEADER_LINES`` lines: a count in C, before any parsing."""
    end = buffered.find(b"\r\n\r\n", 0, MAX_HEAD_BYTES + 4)
    if end < 0:
        end = min(len(buffered), MAX_HEAD_BYTES + 1)
    return end > MAX_HEAD_BYTES or buffered.count(b"\n", 0, end) > MAX_HEADER_LINES


def head_refusal(buffered: bytes) -> bytes | None:
    """The answer refusing the request head at the start of ``buffered`` before h11 parses
    it (then the connection closes), or None: 400 when it is complete and framed in a way
    a proxy in front may read otherwise (``head_fault``), 431 when it is too large."""
    start = 0
    while buffered.startswith(b"\r\n", start):  # empty lines before a request: ignored
        start += 2
    # where h11 ends a head: the first empty line, CRLF or bare LF
    end = _HEAD_END.search(buffered, start, start + MAX_HEAD_BYTES + 4)
    fault = head_fault(buffered[start:end.end()]) if end is not None else None
    if fault is not None:
        log.info("refused a request head: %s", fault)
        return answer(400, "Bad Request", f"Bad Request: {fault}")
    return TOO_LARGE if head_too_large(buffered[start:]) else None


_HEAD_END = re.compile(rb"\n\r?\n")
# (on the lower-cased head; whitespace before the colon is h11's to refuse)
_LENGTHS = re.compile(rb"\ncontent-length[ \t]*:([^\r\n]*)")
_CODED = re.compile(rb"\ntransfer-encoding[ \t]*:")


def head_fault(head: bytes) -> str | None:
    """Why the complete request ``head`` (its line, headers and empty line) is refused, or
    None. h11 reads what RFC 9112 lets a server read, and a proxy in front may read the
    same bytes otherwise, passing on a request it never saw (request smuggling): a line
    ended by a bare LF, a header folded onto the next line (obs-fold), ``Content-Length``
    repeated (even with the same value), or with ``Transfer-Encoding``. (Searches in C: a
    few microseconds a head.)"""
    if head.count(b"\n") != head.count(b"\r\n"):
        return "a line of the request head ends with a bare LF; end each line with CRLF"
    if b"\n " in head or b"\n\t" in head:
        return ("a header is folded onto the next line (obs-fold); send each header on "
                "one line")
    lower = head.lower()
    lengths = _LENGTHS.findall(lower)
    if len(lengths) > 1 or (lengths and b"," in lengths[0]):
        return "send one Content-Length header with one value"
    if lengths and _CODED.search(lower) is not None:
        return "send Content-Length or Transfer-Encoding, not both"
    return None
