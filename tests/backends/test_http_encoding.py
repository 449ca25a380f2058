"""Compressed responses are inflated with bounded memory: ``max_response_bytes`` holds for the
decoded body, whatever the compression ratio or the number of stacked encodings (a 3.5 KB
``gzip, gzip`` body used to allocate 4 GB). Real local HTTP server; memory is the tracemalloc
peak of the call (the bodies are built before it starts), never a timing."""

from __future__ import annotations

import functools
import json
import tracemalloc
import zlib
from typing import Any

import pytest

from .test_http import Config, api, http, run

pytestmark = pytest.mark.anyio

MIB = 1 << 20
CAP = 30_000  # under max_output_chars, so the result shows the whole read
NOTE = f"\n[toolhost: the response passed {CAP:,} bytes; the rest was not read]"


def _deflate(data: bytes, wbits: int) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return compressor.compress(data) + compressor.flush()


@functools.cache
def bomb(wbits: int) -> bytes:
    """64 MiB of 'x' compressed (~65 KB): httpx inflated a whole network chunk of it at once."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, wbits)
    block = b"x" * MIB
    return b"".join(compressor.compress(block) for _ in range(64)) + compressor.flush()


GZIP, ZLIB, RAW = 31, 15, -15


async def peak_of(cfg: Any, tool: str) -> tuple[Any, int]:
    """The call's result and the most memory Python held during it, in bytes."""
    tracemalloc.start()
    try:
        result = await run(cfg, tool, {})
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(("encoding", "wbits"), [("gzip", GZIP), ("x-gzip", GZIP),
                                                 ("deflate", ZLIB), ("deflate", RAW)])
async def test_a_compression_bomb_is_read_to_the_cap_in_bounded_memory(
        config: Config, server: Any, encoding: str, wbits: int) -> None:
    doc = {"items": ["a", "é"], "n": 1}
    server.raw["doc"] = (_deflate(json.dumps(doc).encode(), wbits),
                         {"Content-Encoding": encoding, "Content-Type": "application/json"})
    server.raw["bomb"] = (bomb(wbits), {"Content-Encoding": encoding})
    cfg = config({"get": http("raw/bomb", options={"max_response_bytes": CAP}),
                  "doc": http("raw/doc")}, defaults=api(server))
    assert (await run(cfg, "doc", {})).structured == doc  # a small body decodes as it is
    result, peak = await peak_of(cfg, "get")
    assert result.text_content == "x" * CAP + NOTE
    assert peak < 16 * MIB, f"{peak / MIB:.0f} MiB held for a {CAP:,}-byte cap"
    assert all(seen.headers["accept-encoding"] == "gzip, deflate" for seen in server.seen)


async def test_stacked_encodings_are_refused_unread(config: Config, server: Any) -> None:
    twice = _deflate(bomb(GZIP), GZIP)  # the red team's 'gzip, gzip', ~1 KB here
    server.raw["twice"] = (twice, {"Content-Encoding": "gzip, gzip"})
    server.raw["lines"] = (twice, {"Content-Encoding": "gzip\r\nContent-Encoding: gzip"})
    cfg = config({"get": http("raw/twice", options={"max_response_bytes": CAP}),
                  "lines": http("raw/lines", options={"max_response_bytes": CAP})},
                 defaults=api(server))
    result, peak = await peak_of(cfg, "get")
    assert result.is_error and result.text_content == (
        "The response is encoded 2 times (Content-Encoding: gzip, gzip); toolhost decodes one "
        "layer only, so it was not read.")
    assert peak < 16 * MIB
    lines, peak = await peak_of(cfg, "lines")  # two header lines are two layers too
    assert lines.is_error and "encoded 2 times" in lines.text_content
    assert peak < 16 * MIB


@pytest.mark.parametrize(("headers", "body", "message"), [
    ({"Content-Encoding": "br"}, b"\x1b\x00", "The response's Content-Encoding 'br' is not one "
     "toolhost decodes (it asks for gzip, deflate), so it was not read."),
    ({"Content-Encoding": "gzip"}, b"not gzip at all",
     "The response body could not be decompressed (Error -3 while decompressing data: "
     "incorrect header check)."),
])
async def test_an_encoding_that_cannot_be_decoded_is_a_result(
        config: Config, server: Any, headers: dict[str, str], body: bytes,
        message: str) -> None:
    server.raw["odd"] = (body, headers)
    cfg = config({"get": http("raw/odd")}, defaults=api(server))
    result = await run(cfg, "get", {})
    assert result.is_error and result.text_content == message


PAYLOAD = b"line\n" * 20_000
_GZ, _ZL, _RW = _deflate(PAYLOAD, GZIP), _deflate(PAYLOAD, ZLIB), _deflate(PAYLOAD, RAW)
ENDS_EARLY = "it ends before the end of its compressed stream"

# (Content-Encoding, body, words of the one-line error)
BROKEN = [
    ("gzip", _GZ[: len(_GZ) // 2], ENDS_EARLY),
    ("gzip", _GZ[:-8], ENDS_EARLY),  # no CRC and length
    ("gzip", _GZ[:-1], ENDS_EARLY),
    ("gzip", _GZ[:10], ENDS_EARLY),  # the header only
    ("gzip", b"\x1f", ENDS_EARLY),
    ("gzip", b"\x1f\x8b\x08\x00garbage", "could not be decompressed"),
    ("gzip", _GZ + b"junk after it", "could not be decompressed"),
    ("gzip", _GZ + b"\x1f\x8b", ENDS_EARLY),  # a second member that never comes
    ("x-gzip", _GZ[: len(_GZ) // 3], ENDS_EARLY),
    ("deflate", _ZL[: len(_ZL) // 2], ENDS_EARLY),
    ("deflate", _ZL[:-4], ENDS_EARLY),  # no Adler-32
    ("deflate", _RW[: len(_RW) // 2], ENDS_EARLY),
    ("deflate", b"\x78", ENDS_EARLY),
    ("deflate", _ZL + b"junk", "has data after the end of its compressed stream"),
    ("deflate", _RW + b"\x00", "has data after the end of its compressed stream"),
    ("deflate", b"\xff\xff\xff\xff", "could not be decompressed"),
]


@pytest.mark.parametrize(("encoding", "body", "words"), BROKEN,
                         ids=[f"{e}-{i}" for i, (e, _, _) in enumerate(BROKEN)])
async def test_a_broken_or_cut_compressed_body_is_an_error_never_part_of_a_body(
        config: Config, server: Any, encoding: str, body: bytes, words: str) -> None:
    server.raw["cut"] = (body, {"Content-Encoding": encoding})
    cfg = config({"get": http("raw/cut", options={"max_response_bytes": 200_000})},
                 defaults=api(server))
    result = await run(cfg, "get", {})
    assert result.is_error, (encoding, body[:20], result.text_content[:80])
    assert words in result.text_content and "\n" not in result.text_content, result


@pytest.mark.parametrize(("encoding", "body", "expected"), [
    ("gzip", _deflate(b"ab", GZIP) + _deflate(b"cd", GZIP), "abcd"),  # two members
    ("gzip", _deflate(b"", GZIP), ""),
    ("gzip", b"", ""),  # no body at all (as for HEAD, 204, 304)
    ("deflate", b"", ""),
    ("deflate", _deflate(b"xyz", RAW), "xyz"),
    ("x-gzip", _deflate(b"xyz", GZIP), "xyz"),
], ids=["two-members", "gzip-empty", "gzip-no-body", "deflate-no-body", "raw", "x-gzip"])
async def test_whole_compressed_bodies_decode(config: Config, server: Any, encoding: str,
                                              body: bytes, expected: str) -> None:
    server.raw["ok"] = (body, {"Content-Encoding": encoding})
    cfg = config({"get": http("raw/ok")}, defaults=api(server))
    result = await run(cfg, "get", {})
    assert not result.is_error and result.text_content == expected, result


def test_members_decode_whatever_the_chunk_edges() -> None:
    """Every split of a two-member gzip body into network chunks gives the whole body; every
    cut of it (but the one between the members) is refused at the end."""
    from toolhost.backends.http_decode import BodyError, _Inflater

    first = _deflate(b"first member\n" * 3, GZIP)
    body = first + _deflate(b"second\n", GZIP)
    whole = b"first member\n" * 3 + b"second\n"
    for edge in range(len(body) + 1):
        inflater = _Inflater(GZIP)
        out = inflater.feed(body[:edge], 10_000) + inflater.feed(body[edge:], 10_000)
        inflater.finish()
        assert out == whole, edge
    for end in range(1, len(body)):
        if end == len(first):
            continue  # one whole member: a complete gzip body
        inflater = _Inflater(GZIP)
        inflater.feed(body[:end], 10_000)
        with pytest.raises(BodyError):
            inflater.finish()
