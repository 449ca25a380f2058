"""toolhost.redaction.ScrubbingStream: a secret written in pieces is one match, wherever the
pieces end: at a line break inside a PEM key, at the 64 KiB flush, at a ``flush()``."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.redaction import MASK, ScrubbingStream, remember

PEM = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
       "QyNTUxOQAAACBmFakeKeyMaterialHere1234567890\n-----END OPENSSH PRIVATE KEY-----")
TOKEN = "svcTOKENsecret42"


@pytest.fixture(autouse=True)
def _secrets() -> None:
    remember({PEM, TOKEN})


def _written(*pieces: str, flush_between: bool = False) -> str:
    inner = io.StringIO()
    stream = ScrubbingStream(inner)
    for piece in pieces:
        stream.write(piece)
        if flush_between:
            stream.flush()
    stream.finish()
    return inner.getvalue()


@pytest.mark.parametrize("flush_between", [False, True])
def test_print_of_a_key_with_line_breaks_is_one_match(flush_between: bool) -> None:
    # print() writes the text, then "\n": the key's first lines end in a line break
    out = _written("key is " + PEM, "\n", flush_between=flush_between)
    assert out == f"key is {MASK}\n"


@pytest.mark.parametrize("at", range(0, len(TOKEN) + 1, 3))
def test_a_secret_across_the_hold_limit_is_one_match(at: int) -> None:
    dots = "." * (ScrubbingStream.HOLD - 3)
    out = _written(dots + TOKEN[:at], TOKEN[at:] + " done\n")
    assert out == dots + MASK + " done\n"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 400), min_size=1, max_size=6), st.booleans())
def test_a_secret_cut_anywhere_is_hidden(cuts: list[int], flush_between: bool) -> None:
    text = f"a\n{PEM}\nb {TOKEN} c\n{PEM.lower()}"
    points = sorted({min(c, len(text)) for c in cuts})
    pieces = [text[i:j] for i, j in zip([0, *points], [*points, len(text)], strict=True)]
    out = _written(*pieces, flush_between=flush_between)
    assert out == f"a\n{MASK}\nb {MASK} c\n{MASK}"


def test_ordinary_output_is_written_a_line_at_a_time() -> None:
    inner = io.StringIO()
    stream = ScrubbingStream(inner)
    stream.write("one\ntwo")
    assert inner.getvalue() == "one\n"
    stream.flush()
    assert inner.getvalue() == "one\ntwo"


def _packed(encoding: str) -> str:
    import base64
    import gzip
    import zlib

    body = b"".join(b"log line %d\n" % i for i in range(40)) + TOKEN.encode() + b"\nend\n"
    if encoding == "gzip | base64":
        return base64.encodebytes(gzip.compress(body)).decode()
    if encoding == "zlib | base64 -w 40":
        flat = base64.b64encode(zlib.compress(body)).decode()
        return "".join(flat[i:i + 40] + "\n" for i in range(0, len(flat), 40))
    return gzip.compress(body).hex() + "\n"


@pytest.mark.parametrize("encoding", ["gzip | base64", "zlib | base64 -w 40", "gzip | xxd -p"])
@pytest.mark.parametrize("piece", [0, 7, 100])
def test_a_compressed_run_written_in_pieces_is_decoded_whole(encoding: str, piece: int) -> None:
    # a line at a time (0: as `base64` writes it), or cut anywhere: each piece was decoded
    # alone (no piece holds the whole compressed data), and every piece was shown
    data = "packed:\n" + _packed(encoding)
    pieces = data.splitlines(True) if not piece else [data[i:i + piece]
                                                      for i in range(0, len(data), piece)]
    out = _written(*pieces, "done\n", flush_between=True)
    assert out == f"packed:\n{MASK}\ndone\n"


def test_ordinary_lines_are_not_held_for_a_compressed_run() -> None:
    inner = io.StringIO()
    stream = ScrubbingStream(inner)
    stream.write("a b c\n")
    stream.write("value eJ and 1f8b in a sentence\n")
    assert inner.getvalue() == "a b c\nvalue eJ and 1f8b in a sentence\n"


UNSEEN = {  # what a reader does not see, between a secret's characters (secrets24)
    "a colour per character": lambda i, c: f"\x1b[3{i % 7}m{c}",
    "bold by overstrike": lambda i, c: f"{c}\b{c}",
    "tag characters": lambda i, c: chr(0xE0000 + ord(c)),
    "zero-width spaces": lambda i, c: f"{c}\u200b",
}


@pytest.mark.parametrize("way", UNSEEN.values(), ids=UNSEEN.keys())
def test_a_secret_with_unseen_characters_flushed_a_character_at_a_time_is_hidden(
        way: object) -> None:
    pieces = [way(i, c) for i, c in enumerate(TOKEN)]  # type: ignore[operator]
    out = _written("key: ", *pieces, "\x1b[0m end\n", flush_between=True)
    assert out.startswith("key: ") and out.endswith(" end\n") and MASK in out
    assert not any(way(i, c) in out for i, c in enumerate(TOKEN[3:-3], 3))  # type: ignore[operator]
