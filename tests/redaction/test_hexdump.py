"""A secret in a hex dump (od, xxd, hexdump -C, xxd -i), its lines wrapped anywhere."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest

from toolhost.redaction import Redactor

SECRET = "sk-live-9f8e7d6c5b4a"
LONG = "-----BEGIN KEY-----" + "Zq8" * 20  # longer than the pattern's prefix
PEM = "-----BEGIN KEY-----MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"


def _shown(chunk: bytes) -> str:
    return "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)


def xxd(data: bytes, width: int = 16, group: int = 2, upper: bool = False) -> str:
    lines = []
    for at in range(0, len(data), width):
        chunk = data[at:at + width]
        groups = [chunk[i:i + group].hex() for i in range(0, len(chunk), group)]
        hexed = " ".join(groups)
        hexed = hexed.upper() if upper else hexed
        lines.append(f"{at:08x}: {hexed:<{width * 2 + width // group - 1}}  {_shown(chunk)}")
    return "\n".join(lines) + "\n"


def od(data: bytes, width: int = 16, offsets: bool = True) -> str:
    lines = [(f"{at:07o}" if offsets else "") + "".join(f" {b:02x}" for b in data[at:at + width])
             for at in range(0, len(data), width)]
    return "\n".join(lines) + "\n"


def hexdump_c(data: bytes, width: int = 16) -> str:
    lines = []
    for at in range(0, len(data), width):
        chunk = data[at:at + width]
        pairs = [f"{b:02x}" for b in chunk]
        left, right = " ".join(pairs[:8]), " ".join(pairs[8:])
        lines.append(f"{at:08x}  {left:<23}  {right:<23}  |{_shown(chunk)}|")
    return "\n".join(lines) + "\n"


def xxd_i(data: bytes, width: int = 12) -> str:
    return ",\n".join("  " + ", ".join(f"0x{b:02x}" for b in data[at:at + width])
                      for at in range(0, len(data), width)) + "\n"


def colons(data: bytes, width: int = 16) -> str:
    return "\n".join(":".join(f"{b:02X}" for b in data[at:at + width])
                     for at in range(0, len(data), width)) + "\n"


DUMPS: dict[str, Callable[[bytes], str]] = {
    "xxd": xxd, "xxd -u": lambda d: xxd(d, upper=True), "xxd -g1": lambda d: xxd(d, group=1),
    "xxd -g4 -c12": lambda d: xxd(d, width=12, group=4), "xxd -c7": lambda d: xxd(d, 7, 1),
    "od -tx1": od, "od -An -tx1 -w5": lambda d: od(d, 5, offsets=False),
    "hexdump -C": hexdump_c, "xxd -i": xxd_i, "colons": colons,
    "hexdump -C in JSON": lambda d: json.dumps(hexdump_c(d))[1:-1],
}


def _leaks(text: str, secret: str) -> list[str]:
    """Four bytes of ``secret`` in a row, as hex (one line) or in an ASCII column."""
    raw = secret.encode()
    digits = re.sub(r"0x|[^0-9a-f]", "", text.lower())
    found = [raw[i:i + 4].hex() for i in range(len(raw) - 3) if raw[i:i + 4].hex() in digits]
    return found + [secret[i:i + 4] for i in range(len(secret) - 3) if secret[i:i + 4] in text]


@pytest.mark.parametrize("secret", [SECRET, LONG], ids=["short", "long"])
@pytest.mark.parametrize("dump", sorted(DUMPS))
def test_a_secret_in_a_dump_is_hidden_wherever_its_lines_wrap(dump: str, secret: str) -> None:
    redactor = Redactor(frozenset({secret}))
    for lead in range(17):  # every place a line of 16 (or 5, 7, 12) may wrap the secret
        data = b"x" * lead + b"key=" + secret.encode() + b"&more=text after it\n"
        text = DUMPS[dump](data)
        assert _leaks(text, secret)  # the check can see it
        hidden = redactor.redact(text)
        assert not _leaks(hidden, secret), (lead, hidden)
        assert "***" in hidden


def test_a_dump_without_the_secret_is_left_as_it_is() -> None:
    redactor = Redactor(frozenset({SECRET}))
    for dump in DUMPS.values():
        text = dump(b"sk-live-9f8X7d6c5b4a and other bytes " * 3)  # one byte differs
        assert redactor.redact(text) == text


def test_short_secrets_are_not_looked_for_in_dumps() -> None:
    text = od(b"123 and 124\n")  # a 3-byte secret's spaced hex is in every dump
    assert Redactor(frozenset({"123"})).redact(text) == text


def test_the_first_16_bytes_of_a_longer_secret_are_enough() -> None:
    text = od((LONG[:16] + "and then something else").encode())
    hidden = Redactor(frozenset({LONG})).redact(text)
    assert not _leaks(hidden, LONG[:16]), hidden


@pytest.mark.parametrize("dump", sorted(DUMPS))
def test_a_dump_cut_inside_a_secret_shows_none_of_it(dump: str) -> None:
    """``max_output_bytes`` (or an excerpt) cutting a dump inside a secret: the part left
    at the end is masked, hex and ASCII column alike, wherever the cut falls."""
    for secret in (SECRET, LONG):
        redactor = Redactor(frozenset({secret}))
        for lead in (0, 7):
            text = DUMPS[dump](b"x" * lead + b"key=" + secret.encode() + b"&more\n")
            for cut in range(text.lower().find("6b"), len(text)):
                shown = redactor.cut_edges(text[:cut], tail=True)
                assert not _leaks(shown, secret), (lead, cut, shown[-120:])


@pytest.mark.parametrize("dump", sorted(DUMPS))
def test_a_dump_whose_start_was_cut_off_inside_a_secret_shows_none_of_it(dump: str) -> None:
    """The last part of a long output (a command's stderr tail) starting inside a secret's
    dump: the rest of its hex, and its characters in the ASCII column of the first line
    left, are masked wherever the cut falls (in a pair, an offset, a column, a JSON
    ``\\n``)."""
    for secret in (SECRET, PEM, 'p@ss w0rd/\u00c4"x-1'):
        redactor = Redactor(frozenset({secret}))
        text = DUMPS[dump](b"x" * 5 + b"key=" + secret.encode() + b"&m\n")
        for cut in range(len(text)):
            shown = redactor.cut_edges(text[cut:], head=True)
            assert not _leaks(shown, secret), (cut, shown[:160])


def test_a_cut_start_that_only_looks_like_a_dump_is_left() -> None:
    redactor = Redactor(frozenset({SECRET}))
    for text in ("3b 2a 21 11 and then\n", "error: 73 6b were read\n", "  took 12 ms\n"):
        assert redactor.cut_edges(text, head=True) == text


@pytest.mark.parametrize("dump", sorted(DUMPS))
def test_a_dump_streamed_a_line_or_a_piece_at_a_time_shows_none_of_it(dump: str) -> None:
    """A tool printing a dump line by line (or a pipe delivering it in pieces): a secret
    wrapped over two lines is still read whole (``stream_split`` holds the open end)."""
    for secret in (SECRET, LONG):
        redactor = Redactor(frozenset({secret}))
        for lead in range(0, 17, 3):
            text = DUMPS[dump](b"x" * lead + b"key=" + secret.encode() + b"&more\n")
            for size in (0, 23):
                pieces = (text.splitlines(keepends=True) if not size
                          else [text[i:i + size] for i in range(0, len(text), size)])
                held, shown = "", []
                for piece in pieces:
                    out, held = redactor.stream_split(held + piece)
                    shown.append(out)
                whole = "".join(shown) + redactor.redact(held)
                assert not _leaks(whole, secret), (lead, size, whole[-200:])


def test_an_ordinary_line_ending_in_a_secrets_first_byte_is_not_held() -> None:
    redactor = Redactor(frozenset({SECRET}))  # 's' is 0x73
    for line in ("took 73 ms\n", "need 73 6b\n", "exit 73\n", "see 0x73 and 0x6b\n"):
        assert redactor.stream_split(line) == (line, "")
    assert redactor.stream_split("00000000: 6b65 793d 73\n")[1] == "73\n"


@pytest.mark.parametrize("dump", ["xxd", "od -c", "od -An -tx1", "xxd -g1"])
def test_a_dump_of_the_secrets_base64_is_hidden(dump: str) -> None:
    """``printf %s "$T" | base64 | xxd``: a dump of the text that is the secret's base64
    (the hex of each of its characters, its ASCII column)."""
    import base64
    import shutil
    import subprocess

    if not shutil.which(dump.split()[0]):
        pytest.skip(f"needs {dump.split()[0]}")
    encoded = base64.b64encode(SECRET.encode())
    shown = Redactor(frozenset({SECRET})).redact(subprocess.run(
        ["sh", "-c", f"base64 -w0 | {dump}"], input=SECRET.encode(), capture_output=True,
        check=True).stdout.decode())
    assert "***" in shown, shown
    assert encoded[:8].hex() not in re.sub(r"[\s:]", "", shown)
    assert encoded[4:12].decode() not in shown.replace(" ", "")
