"""The answers the connection side of ``toolhost serve --transport http`` gives before a
request reaches the app: a connection past ``--max-connections`` (503), a request h11
cannot read (400), a chunked body of too many small chunks (400) or a chunk over
``--max-message`` (413); each a JSON-RPC error naming what is wrong."""

from __future__ import annotations

from toolhost.excerpt import cut
from toolhost.serve.http_heads import answer

__all__ = ["BUSY", "SMALL_CHUNKS", "SMALL_CHUNK_BYTES", "bad_request", "chunk_too_large",
           "small_chunks"]

_BUSY_BODY = (b'{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Server busy: too '
               b'many connections (toolhost serve --max-connections); try again later"}}')
# A chunk costs the server ~20 us to read however small it is (h11 and uvicorn handle each
# as an event): 1-byte chunks made reading a body ~3,000 times dearer than its bytes, and
# two clients sending them held honest calls for 11 s. Past SMALL_CHUNKS chunks, a body must
# average SMALL_CHUNK_BYTES a chunk (honest streaming clients send kilobytes a chunk).
SMALL_CHUNKS = 1024
SMALL_CHUNK_BYTES = 256
BUSY = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
        b"retry-after: 1\r\nconnection: close\r\ncontent-length: "
        + str(len(_BUSY_BODY)).encode() + b"\r\n\r\n" + _BUSY_BODY)


def bad_request(exc: Exception | None) -> bytes:
    """The 400 answering a request h11 refused with ``exc`` (its reason, cut)."""
    why = cut(str(exc), 160) if exc is not None else "not valid HTTP/1.1"
    return answer(400, "Bad Request", f"Bad Request: the request is not valid HTTP/1.1 "
                  f"({why})")


def small_chunks(chunks: int, size: int) -> bytes:
    """The 400 answering a body of ``chunks`` chunks, ``size`` bytes in all."""
    return answer(400, "Bad Request", f"Bad Request: a chunked body of {chunks:,} chunks "
                  f"averaging under {SMALL_CHUNK_BYTES} bytes ({size:,} bytes in all); send "
                  "larger chunks, or the body with a Content-Length")


def chunk_too_large(size: int, limit: int) -> bytes:
    """The 413 answering a chunk that announces ``size`` bytes, over ``limit``."""
    return answer(413, "Content Too Large", f"Content Too Large: a chunk of {size:,} bytes; "
                  f"a message is at most {limit:,} bytes (toolhost serve --max-message)")
