"""A secret under encodings stacked two deep or more, or compressed, is hidden: the runs of
base64, hex, base32 and character escapes are decoded (and decompressed) and looked at again
(``toolhost.redaction.decoded``). The encodings are made by real programs where a command
would make them (gzip, bzip2, xz, base64, base32, xxd)."""

from __future__ import annotations

import base64
import binascii
import codecs
import dataclasses
import gzip
import shutil
import subprocess
import zlib
from typing import Any

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.redaction import Redactor
from toolhost.redaction import decoded as redaction_decoded
from toolhost.redaction.decoded import MAX_DECODED

SECRET = "sk-live-9f8e7d6c5b4a3921"
R = Redactor(frozenset({SECRET}))
RAW = SECRET.encode()


def shell(command: str, data: bytes = RAW) -> str:
    """``command`` run by ``sh`` over ``data`` (its output, which a tool would return)."""
    if not all(shutil.which(word) for word in ("gzip", "base64", "bzip2", "xz", "base32",
                                                "rev")):
        pytest.skip("needs gzip, bzip2, xz and coreutils")
    return subprocess.run(["sh", "-c", command], input=data, capture_output=True,
                          check=True).stdout.decode()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


FORMS = {
    "gzip | base64": lambda: shell("gzip -c | base64"),
    "gzip -9 | base64 -w0": lambda: shell("gzip -9 -c | base64 -w0"),
    "gzip -1n | base64 -w 20": lambda: shell("gzip -1 -n -c | base64 -w 20"),
    "bzip2 | base64": lambda: shell("bzip2 -c | base64"),
    "gzip | base64 | rev": lambda: shell("gzip -c | base64 | rev"),
    "gzip | base64 -w 16 | rev": lambda: shell("gzip -c | base64 -w 16 | rev"),
    "xz | base64": lambda: shell("xz -c | base64"),
    "gzip | xxd -p": lambda: shell("gzip -c | xxd -p"),
    "zlib, base64": lambda: b64(zlib.compress(RAW, 6)),
    "base64 of base32": lambda: shell("base32 -w0 | base64 -w0"),
    "base32 of base64": lambda: shell("base64 -w0 | base32 -w0"),
    "base32 | tr A-Z a-z": lambda: shell("base32 -w0 | tr A-Z a-z"),
    "gzip | base32 | tr A-Z a-z": lambda: shell("gzip -c | base32 -w0 | tr A-Z a-z"),
    "base64 of HEX": lambda: b64(RAW.hex().upper().encode()),
    "hex of hex": lambda: RAW.hex().encode().hex(),
    "base64 three times": lambda: b64(b64(b64(RAW).encode()).encode()),
    "base64 of its base64 reversed": lambda: b64(b64(RAW)[::-1].encode()),
    "base64 of every byte %-encoded": lambda: b64("".join(f"%{c:02X}" for c in RAW).encode()),
    "base64 of JSON \\u escapes": lambda: b64("".join(f"\\u{c:04x}" for c in RAW).encode()),
    "base64 of rot13": lambda: b64(codecs.encode(SECRET, "rot13").encode()),
    "HTML references of its base64": lambda: "".join(f"&#{c};" for c in b64(RAW).encode()),
    "\\x escapes of its base64": lambda: "".join(f"\\x{c:02x}" for c in b64(RAW).encode()),
    "octal escapes of its hex": lambda: "".join(f"\\{c:03o}" for c in RAW.hex().encode()),
    "Python chr() sum": lambda: "+".join(f"chr({c})" for c in RAW),
    # base58 (Bitcoin's alphabet), base85 and uuencode of a secret's other encodings
    "base58": lambda: b58(RAW),
    "base58 of base64": lambda: b58(b64(RAW).encode()),
    "base64 of base58": lambda: b64(b58(RAW).encode()),
    "gzip | base58": lambda: b58(gzip.compress(RAW)),
    "base64 | basenc --z85": lambda: shell("base64 -w0 | basenc --z85"),
    "Ascii85 of base64": lambda: base64.a85encode(b64(RAW).encode()).decode(),
    "b85encode of hex": lambda: base64.b85encode(RAW.hex().encode()).decode(),
    "uuencode line of base64": lambda: binascii.b2a_uu(b64(RAW).encode()).decode(),
    "gzip | Ascii85 (PDF)": lambda: base64.a85encode(gzip.compress(RAW), adobe=True,
                                                     wrapcol=20).decode(),
    "gzip | uuencode": lambda: uuencode(gzip.compress(RAW * 2)),
    # secrets16: base85 without Ascii85's <~ ~>, uuencode's lines without begin and end
    "zlib | b85encode": lambda: base64.b85encode(zlib.compress(b"token " + RAW)).decode(),
    "zlib | a85encode": lambda: base64.a85encode(zlib.compress(b"token " + RAW)).decode(),
    "gzip | a85encode, wrapped": lambda: base64.a85encode(gzip.compress(RAW),
                                                          wrapcol=30).decode(),
    "gzip | basenc --z85": lambda: shell("gzip -c | head -c 44 | basenc --z85",
                                         b"token " + RAW),
    "gzip | uuencode lines, no begin": lambda: uuencode(gzip.compress(RAW * 2),
                                                        framed=False),
}


def b58(data: bytes) -> str:
    alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
    number, out = int.from_bytes(data, "big"), ""
    while number:
        number, digit = divmod(number, 58)
        out = alphabet[digit] + out
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + out


def uuencode(data: bytes, framed: bool = True) -> str:
    lines = "".join(binascii.b2a_uu(data[i:i + 45]).decode() for i in range(0, len(data), 45))
    return f"begin 644 token.gz\n{lines}`\nend" if framed else lines


@pytest.mark.parametrize("form", FORMS)
def test_a_secret_encoded_twice_or_compressed_is_hidden(form: str) -> None:
    encoded = FORMS[form]()
    key = "key:\n" if "no begin" in form else "key: "  # (uuencode's lines start lines)
    text = f"{key}{encoded.strip()}\nnext line stays"
    shown = R.redact(text)
    assert "***" in shown and shown.startswith(key) and shown.endswith("next line stays")
    assert encoded.strip().splitlines()[0] not in shown
    assert R.spans(text)  # what a stream shows goes by the same spans


def test_only_the_run_that_holds_it_is_hidden() -> None:
    other = b64(zlib.compress(b"nothing to see here, a plain log line " * 3))
    hidden = b64(zlib.compress(RAW))
    shown = R.redact(f"{other} {hidden} {other}")
    assert shown == f"{other} *** {other}"


def test_base64_of_other_data_is_left_as_it_is() -> None:
    for text in [b64(bytes(range(256)) * 4), shell("gzip -c | base64", b"a log\n" * 500),
                 "&#104;&#101;&#108;&#108;&#111;&#32;&#121;&#111;",
                 # base58's alphabet, Ascii85 and uuencode of other data
                 "see abcdefghijkmnopqrstuvwxyz123456789 and ABCDEFGHJKLMNPQRSTUVWXYZ",
                 base64.a85encode(zlib.compress(b"a log line\n" * 50), adobe=True).decode(),
                 uuencode(gzip.compress(b"a log line\n" * 50)),
                 uuencode(gzip.compress(b"a log line\n" * 50), framed=False),
                 base64.b85encode(zlib.compress(b"a log line\n" * 50)).decode(),
                 "M" + "A" * 60 + "\nSHOUTING IN CAPITALS, A LINE OF THEM\n",
                 "x = https://example.com/some/long/path?query=value&other=1"]:
        assert R.redact(text) == text


def test_a_compression_bomb_is_hidden_unread() -> None:
    """A run that inflates past what may be read (``MAX_DECODED``, the text's ``Budget``)
    cannot be proved free of a secret: it is hidden whole, a secret past the bound included
    (it was shown), and is inflated no further than the bound."""
    early = b64(zlib.compress(RAW + b" " * (MAX_DECODED * 8)))
    late = b64(zlib.compress(b" " * (MAX_DECODED * 2) + RAW))
    assert R.redact(early) == "***"
    assert R.redact(late) == "***"


def test_many_bombs_share_one_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forty runs of 1 KiB that each inflate to 1 MiB, between words: together they are
    inflated within one budget (they were inflated whole, level after level: 24 s and 220 MB
    for fifty), each is hidden, the words between them are kept."""
    from toolhost.redaction import packed as redaction_packed

    inflated: list[int] = []
    real = redaction_packed._inflate

    def counted(data: bytes, limit: int) -> bytes | None:
        out = real(data, limit)
        inflated.append(len(out or b""))
        return out

    monkeypatch.setattr(redaction_packed, "_inflate", counted)
    bomb = b64(gzip.compress(b"A" * MAX_DECODED, 9))
    text = " word ".join([bomb] * 40)
    shown = R.redact(text)
    assert shown == " word ".join(["***"] * 40)
    assert sum(inflated) <= redaction_decoded.Budget(len(text)).left + len(inflated)
    honest = b64(gzip.compress(b"nothing secret here\n" * 50))
    assert R.redact(f"{honest} and {bomb}") == f"{honest} and ***"


def test_a_secret_one_encoding_deep_is_still_hidden_where_it_is() -> None:
    """A base64 block holding the secret's own base64 between other data: only that part is
    hidden, as before (not the whole block because its decoding holds the secret)."""
    block = b64(b"x" * 40 + RAW + b"y" * 60)
    shown = R.redact(block)
    assert shown.startswith("eHh4eHh4") and shown.endswith("eXl5eQ==") and "***" in shown


@pytest.mark.anyio
@pytest.mark.parametrize("pipeline", ["gzip -c | base64", "base64 -w0 | base32",
                                      "gzip -c | base64 | base64", "bzip2 -c | xxd -p"])
async def test_a_command_that_packs_a_secret_returns_it_hidden(config: Any,
                                                               pipeline: str) -> None:
    """What a model could ask a command tool to run: the secret from its env, packed."""
    shell(":")  # the programs are there
    tool = {"kind": "command", "description": "Pack.",
            "options": {"argv": ["sh", "-c", f'printf %s "$T" | {pipeline}'],
                        "env": {"T": SECRET}}}
    cfg = dataclasses.replace(config({"pack": tool}), secrets=frozenset({SECRET}))
    async with compile_tools(cfg) as compiled:
        result = await compiled.tool("demo", "pack").call({}, CallContext())
    assert not result.is_error, result.text_content
    # all of it, or all but a short last line that holds none of it (bzip2's checksum:
    # the block less that line decodes to the secret already)
    shown = result.text_content.strip()
    assert shown.splitlines()[0] == "***" and len(shown) < 20, shown


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_gzip_in_spaced_hex_is_hidden() -> None:
    # ``gzip | od -An -tx1``: hex spaced by bytes, read as compressed data (secrets16)
    packed = " ".join(f"{b:02x}" for b in gzip.compress(RAW))
    shown = R.redact(f"dump:\n{packed}\nnext line stays")
    assert shown == "dump:\n***\nnext line stays"


def _each(encode: Any, size: int, sep: str, data: bytes = RAW) -> str:
    return sep.join(encode(data[i:i + size]).decode() for i in range(0, len(data), size))


# a piece at a time (secrets24: each of these showed the secret)
PIECES = {
    "base64 of each character": _each(base64.b64encode, 1, " "),
    "base64 of each character, no separator": _each(base64.b64encode, 1, ""),
    "base64 of each character, a line each": _each(base64.b64encode, 1, "\n"),
    "base64 of 4 bytes each, a JSON list": '["' + _each(base64.b64encode, 4, '", "') + '"]',
    "base64url of 2 bytes each": _each(base64.urlsafe_b64encode, 2, ","),
    "base32 of each character": _each(base64.b32encode, 1, " "),
    "JavaScript's and Rust's \\u{NN}": "".join(f"\\u{{{b:x}}}" for b in RAW),
    "Perl's \\x{NN}": "".join(f"\\x{{{b:X}}}" for b in RAW),
    "Python's \\U000000NN": "".join(f"\\U{b:08x}" for b in RAW),
    "base64 of 2 bytes each, a word after": _each(base64.b64encode, 2, " | ") + " | ok",
    "base32 of 3 bytes each, a line each": _each(base64.b32encode, 3, "\n"),
    "\\u escapes, one a list item": '["' + '", "'.join(f"\\u{b:04x}" for b in RAW) + '"]',
    "HTML references, a space between": " ".join(f"&#x{b:x};" for b in RAW),
    "base64 of 5 bytes each, URL-encoded": ",".join(
        base64.b64encode(RAW[i:i + 5]).decode().replace("=", "%3D") for i in range(0, 24, 5)),
    "\\x escapes, two a line": _each(lambda d: "".join(f"\\x{b:02x}" for b in d).encode(),
                                      2, "\n"),
}


@pytest.mark.parametrize("form", PIECES.values(), ids=PIECES.keys())
def test_a_secret_a_piece_at_a_time_is_hidden(form: str) -> None:
    out = R.redact(f"out: {form} (done)")
    assert out in ("out: *** (done)", 'out: ["***"] (done)', "out: *** | ok (done)")


def test_pieces_of_other_data_are_left() -> None:
    text = _each(base64.b64encode, 4, " ", b"hello world, nothing secret here") + " \\u{1F600}"
    assert R.redact(text) == text


@pytest.mark.parametrize("before", ["5", "abc", "0", "f00"])
@pytest.mark.parametrize("after", ["", "7", "e0"])
@pytest.mark.parametrize("part", [RAW[1:], RAW[:-1], RAW[3:], RAW[2:-2]])
def test_hex_of_a_piece_at_either_alignment_is_hidden(before: str, after: str,
                                                       part: bytes) -> None:
    # a hex digit before it (``printf 5; xxd -p``) shifts every byte by half: the run read
    # from its first digit decodes to other bytes, and a piece (not the whole secret's hex,
    # a literal form found anywhere) was shown
    for hexed in (part.hex(), part.hex().upper()):
        shown = R.redact(f"out: {before}{hexed}{after} end")
        assert shown.startswith("out: ") and shown.endswith(" end"), shown
        left = shown[5:-4].split("***")  # the digits around it may stay, no more
        assert len(left) == 2 and len("".join(left)) <= len(before + after), shown


@pytest.mark.parametrize("before", [SECRET, SECRET.upper(), "".join(f"%{b:02X}" for b in RAW),
                                    "ghost", "x-", "_zz"])
@pytest.mark.parametrize("part", [RAW[1:], RAW[2:-2]])
def test_hex_of_a_piece_glued_to_a_word_or_another_form_is_hidden(before: str,
                                                                   part: bytes) -> None:
    # the run of base64's characters around it was not hex, so its hex was never read; or
    # the run was left out for overlapping the secret found before it
    for hexed in (part.hex(), "5" + part.hex()):
        shown = R.redact(f"out: {before}{hexed} end")
        assert part.hex() not in shown and part.hex()[4:-4] not in shown, shown
        assert shown.startswith("out: ") and shown.endswith(" end"), shown
