"""A text cut at a byte cap inside a wrapped block (base64 at 76 or 64 columns, ``xxd -p`` at
60, the breaks raw, ``\\r\\n`` or JSON-escaped) hides the part of the cut edge that encodes a
secret: the block is read joined there too. It showed the first lines of the encoding."""

from __future__ import annotations

import base64
import dataclasses
import io
import json
from typing import Any

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.redaction import Redactor, ScrubbingStream, remember

SECRET = "tok-Zq81-abcdefghijklmnopqrstuv"
R = Redactor(frozenset({SECRET}))
DATA = b"x" * 40 + SECRET.encode() + b"y" * 60
B64, HEX = base64.b64encode(DATA).decode(), DATA.hex()


def _wrap(text: str, width: int, sep: str) -> str:
    return sep.join(text[i:i + width] for i in range(0, len(text), width))


WRAPPED = {
    "base64": base64.encodebytes(DATA).decode(),
    "base64-crlf": _wrap(B64, 76, "\r\n"),
    "base64-json": json.dumps(base64.encodebytes(DATA).decode())[1:-1],
    "pem": _wrap(B64, 64, "\n"),
    "xxd-p": _wrap(HEX, 60, "\n"),
}
# six characters made of the secret's bits alone (base64 of bytes 42.., hex of bytes 40..)
PIECES = [B64[i:i + 6] for i in range(56, 92)] + [HEX[i:i + 8] for i in range(80, 130)]


def _shows_a_piece(shown: str) -> bool:
    joined = shown
    for sep in ("\r", "\\r", "\\n", "\n"):
        joined = joined.replace(sep, "")
    return any(piece in joined for piece in PIECES)


@pytest.mark.parametrize("form", WRAPPED)
def test_no_cut_edge_shows_a_piece_of_the_secret(form: str) -> None:
    text = WRAPPED[form]
    tails = [cut for cut in range(20, len(text)) if R.redact(text[:cut]) == text[:cut]
             and _shows_a_piece(R.mask_edges(text[:cut], tail=True))]
    heads = [cut for cut in range(1, len(text) - 20) if R.redact(text[cut:]) == text[cut:]
             and _shows_a_piece(R.mask_edges(text[cut:], head=True))]
    # (a whole secret left in the text is not an edge: the result's redaction hides it)
    if form == "base64-json":  # a cut between the backslash and the n of an escaped break
        heads.remove(77)        # leaves an 'n' joined to the next line: not read as a block
    assert (tails, heads) == ([], [])


def test_ordinary_text_and_other_base64_keep_their_edges() -> None:
    other = base64.encodebytes(b"z" * 200).decode()
    log = "hello world\nthis is a log line\n" * 3
    for text in (other, log):
        for cut in (10, 50, 100):
            assert R.mask_edges(text[:cut], tail=True) == text[:cut]
            assert R.mask_edges(text[cut:], head=True) == text[cut:]


@pytest.mark.anyio
async def test_a_command_output_capped_after_a_wrapped_line(config: Any) -> None:
    remember([SECRET])  # as loading a config with it does (restored after the test)
    tool = {"kind": "command", "description": "Encode.",
            "options": {"argv": ["sh", "-c", 'printf %s%s "$P" "$T" | base64'],
                        "env": {"T": SECRET, "P": "x" * 40}, "max_output_bytes": 77}}
    cfg = dataclasses.replace(config({"enc": tool}), secrets=frozenset({SECRET}))
    async with compile_tools(cfg) as compiled:
        result = await compiled.tool("demo", "enc").call({}, CallContext())
    assert not result.is_error, result.text_content
    # the first line of base64 held the secret's first 17 characters; now they are ***
    assert result.text_content.startswith("eHh4") and "***" in result.text_content
    assert not _shows_a_piece(result.text_content), result.text_content


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("form", WRAPPED)
def test_a_stream_written_a_line_at_a_time_hides_the_wrapped_secret(form: str) -> None:
    remember([SECRET])
    text = WRAPPED[form] + "\n"
    pieces = text.splitlines(keepends=True) if "\\n" not in text else \
        [p + "\\n" for p in text.split("\\n")[:-1]] + [text.split("\\n")[-1]]
    inner = io.StringIO()
    stream = ScrubbingStream(inner)
    for piece in pieces:  # base64 writes a line at a time, and may flush each
        stream.write(piece)
        stream.flush()
    stream.finish()
    assert inner.getvalue() == R.redact(text) and not _shows_a_piece(inner.getvalue())
    # the pieces of stream_split, cut anywhere (pieces of 16 characters or more), join to
    # the redacted whole
    for step in (16, 33, 77, 500):
        shown, held = [], ""
        for at in range(0, len(text), step):
            part, held = R.stream_split(held + text[at:at + step])
            shown.append(part)
        assert "".join(shown) + R.redact(held) == R.redact(text), step


def test_ordinary_lines_and_other_base64_are_not_held() -> None:
    other = base64.encodebytes(b"z" * 300).decode()
    for text in ("hello world, this is a log line\n", other):
        assert R.stream_split(text) == (text, "")
