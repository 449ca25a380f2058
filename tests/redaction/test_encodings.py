"""The "two secrets in any encoding" family: the cheap encodings a tool's output may hold a
secret in, each hidden (docs/secrets.md has the table of what is and is not covered)."""

from __future__ import annotations

import base64
import binascii
import codecs
import functools
import json
import quopri
import re
import shlex
import textwrap
from collections.abc import Callable

import pytest

from toolhost.redaction import Redactor
from toolhost.redaction.squeezed import PIECE, squeeze

SECRETS = ("sk-live-9f8e7d6c5b4a3921", "p@ss w0rd/Ä\"x's $x!{y}")
# uuencode with blanks for zero bits is hidden within a line only (docs/secrets.md)
_NOT_ACROSS_LINES = frozenset({"uuencode (spaces)"})
_B85_TO_Z85 = str.maketrans(
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~",
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#")


@functools.cache
def _redactor() -> Redactor:
    """One for the whole file (immutable): building one and compiling its patterns costs
    ~40 ms, which each of the ~60 cases paid."""
    return Redactor(frozenset(SECRETS))


def _octal(text: str) -> str:  # sed -n l, and bash's printf %q in the C locale
    return "".join(c if c.isascii() and c.isprintable() else
                   "".join(f"\\{b:03o}" for b in c.encode()) for c in text)


def _shell_backslash(text: str) -> str:  # bash's printf %q in a UTF-8 locale
    return "".join(c if c.isalnum() or not c.isascii() or c in "@%+=:,./-_" else "\\" + c
                   for c in text)


def _od_c(data: bytes, offsets: bool = True) -> str:  # od -c (and od -An -c)
    names = {10: "\\n", 9: "\\t", 0: "\\0"}
    cells = [names.get(b, chr(b) if 32 <= b < 127 else f"{b:03o}") for b in data]
    return "\n".join((f"{at:07o}" if offsets else "")
                     + "".join(f"{c:>4}" for c in cells[at:at + 16])
                     for at in range(0, len(cells), 16)) + "\n"


def _fixed(text: str, width: int) -> str:  # wrapped at a fixed width, whatever the text
    return "\n".join(text[at:at + width] for at in range(0, len(text), width))


def _column(data: bytes) -> str:  # a dump's ASCII column
    return "".join(chr(b) if 32 <= b < 127 else "." for b in data)


def _xxd_bits(data: bytes, per_line: int) -> str:  # xxd -b (-c N)
    width = 9 * per_line
    return "".join(f"{at:08x}: " + " ".join(f"{b:08b}" for b in data[at:at + per_line])
                   .ljust(width) + " " + _column(data[at:at + per_line]) + "\n"
                   for at in range(0, len(data), per_line))


ENCODINGS: dict[str, Callable[[bytes], str]] = {
    "od -c": _od_c,
    "od -An -c": lambda d: _od_c(d, offsets=False),
    "spaced": lambda d: " ".join(d.decode()),
    "od -b": lambda d: "\n".join(f"{at:07o}" + "".join(f" {b:03o}" for b in d[at:at + 16])
                                for at in range(0, len(d), 16)) + "\n",
    "od -tu1": lambda d: "\n".join(f"{at:07o}" + "".join(f" {b:3d}" for b in d[at:at + 16])
                                  for at in range(0, len(d), 16)) + "\n",
    "list of bytes": lambda d: str(list(d)),
    "Buffer in JSON": lambda d: '{"type":"Buffer","data":[' + ",".join(map(str, d)) + "]}",

    "base32": lambda d: "\n".join(textwrap.wrap(base64.b32encode(d).decode(), 76)),
    "base32 -w0": lambda d: base64.b32encode(d).decode(),
    "utf-16 base64": lambda d: base64.b64encode(d.decode().encode("utf-16-le")).decode(),
    "utf-16 hex wrapped": lambda d: "\n".join(textwrap.wrap(
        d.decode().encode("utf-16-le").hex(), 60)),
    "rev": lambda d: d.decode()[::-1],
    "rot13": lambda d: codecs.encode(d.decode(), "rot13"),
    "sed l": lambda d: _octal(d.decode()),
    "printf %q": lambda d: _shell_backslash(d.decode()),
    "shlex.quote": lambda d: shlex.quote(d.decode()),
    "set -x": lambda d: "+ echo " + "'" + d.decode().replace("'", "'\\''") + "'",
    "xxd -p": lambda d: "\n".join(textwrap.wrap(d.hex(), 60)),
    "base64 -w 76": lambda d: "\n".join(textwrap.wrap(base64.b64encode(d).decode(), 76)),
    "percent, mixed case": lambda d: "".join(
        (f"%{b:02x}" if i % 2 else f"%{b:02X}") for i, b in enumerate(d)),
    "ascii85": lambda d: base64.a85encode(d).decode(),
    "ascii85 <~ ~> wrapped": lambda d: base64.a85encode(d, adobe=True, wrapcol=75).decode(),
    "b85 (git, python)": lambda d: base64.b85encode(d).decode(),
    "z85 (basenc --z85)": lambda d: base64.b85encode(d + b"\0" * (-len(d) % 4)).decode()
    .translate(_B85_TO_Z85),
    "uuencode": lambda d: "".join(binascii.b2a_uu(d[at:at + 45], backtick=True).decode()
                                  for at in range(0, len(d), 45)),
    "base85 wrapped at 20": lambda d: _fixed(base64.b85encode(d).decode(), 20),
    "uuencode (spaces)": lambda d: "".join(binascii.b2a_uu(d[at:at + 45]).decode()
                                           for at in range(0, len(d), 45)),
    "basenc --base2msbf": lambda d: "\n".join(textwrap.wrap(
        "".join(f"{b:08b}" for b in d), 76)),
    "basenc --base2lsbf -w0": lambda d: "".join(f"{b:08b}"[::-1] for b in d),
    "quoted-printable": lambda d: quopri.encodestring(d).decode(),
    "xxd -b": lambda d: _xxd_bits(d, 6),
    "xxd -b -c4": lambda d: _xxd_bits(d, 4),
    "octal escapes": lambda d: "".join(f"\\{b:03o}" for b in d),
    "octal escapes in JSON": lambda d: "".join(f"\\\\{b:03o}" for b in d),
    "=XX every byte": lambda d: "".join(f"={b:02X}" for b in d),
    "utf-32 hex": lambda d: d.decode().encode("utf-32-le").hex(),
    "MIME encoded word (q)": lambda d: "=?utf-8?q?" + quopri.encodestring(
        d, header=True).decode() + "?=",
    "cat -v": lambda d: "".join(_cat_v(b) for b in d),
    "bytes reversed, hex": lambda d: d[::-1].hex(),
    "perl %vd": lambda d: ".".join(map(str, d)),
    "base64 twice": lambda d: base64.b64encode(base64.b64encode(d)).decode(),
    "hex of base64": lambda d: base64.b64encode(d).hex(),
    "base64 of hex": lambda d: base64.b64encode(d.hex().encode()).decode(),
    "list of characters (JSON)": lambda d: json.dumps(list(d.decode())),
    "list of characters (repr)": lambda d: str(list(d.decode())),
    "code points": lambda d: "String.fromCharCode(" + ",".join(str(ord(c))
                                                              for c in d.decode()) + ")",
    # folded at a fixed width narrower than a wrapped block's 16 columns, or holding blanks
    "fold -w1": lambda d: _fold(d.decode(), 1),
    "fold -w5": lambda d: _fold(d.decode(), 5),
    "fold -w13": lambda d: _fold(d.decode(), 13),
    "base64 -w8": lambda d: _fixed(base64.b64encode(d).decode(), 8),
    "base64 -w1": lambda d: _fixed(base64.b64encode(d).decode(), 1),
    "xxd -p -c4": lambda d: _fixed(d.hex(), 8),
    "od -An -tx1 -w1": lambda d: "".join(f" {b:02x}\n" for b in d),
    # UTF-16 (iconv -t UTF-16, a Windows program) read as UTF-8, and in a dump
    "utf-16 read as utf-8": lambda d: d.decode().encode("utf-16").decode("utf-8", "replace"),
    "utf-16 in xxd": lambda d: _xxd(d.decode().encode("utf-16-le")),
    "list of hex(b) (Python)": lambda d: str([hex(b) for b in d]),
    # spread out by punctuation and blanks, or cut in pieces (toolhost.redaction.squeezed)
    "sed 's/./&-/g'": lambda d: "".join(c + "-" for c in d.decode()),
    "','.join": lambda d: ",".join(d.decode()),
    "cut in two lines": lambda d: _halves(d.decode(), "\n"),
    "fold -w4 | paste -sd' '": lambda d: " ".join(_fold(d.decode(), 4).split("\n")),
    "jq explode (pretty)": lambda d: json.dumps([ord(c) for c in d.decode()], indent=2),
    "octal numbers": lambda d: " ".join(f"{b:o}" for b in d),
    "base64 -w0 | rev": lambda d: base64.b64encode(d).decode()[::-1],
    "xxd -p | rev": lambda d: d.hex()[::-1],
    "tr a-z n-za-m": lambda d: d.decode().translate(str.maketrans(
        "abcdefghijklmnopqrstuvwxyz", "nopqrstuvwxyzabcdefghijklm")),
    "sed 's/[-_ ]/./g'": lambda d: re.sub(r"[-_ ]", ".", d.decode()),
    "zero-width spaces between": lambda d: "\u200b".join(d.decode()),
    "fullwidth forms": lambda d: "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c
                                         for c in d.decode()),
    "basenc --base32hex": lambda d: "\n".join(textwrap.wrap(
        base64.b32hexencode(d).decode(), 76)),
    # words of other sizes and bases (od -tx2 and -tx4: test_..._little_endian_words)
    "od -tx8": lambda d: _od_words(d, 8, lambda v: f" {v:016x}"),
    "od -to2": lambda d: _od_words(d, 2, lambda v: f" {v:06o}"),
    "od -tu2": lambda d: _od_words(d, 2, lambda v: f" {v:5d}"),
    "od -td4": lambda d: _od_words(d, 4, lambda v: f" {v - (v >> 31 << 32):11d}"),
    "hexdump -d": lambda d: _od_words(d, 2, lambda v: f"   {v:05d}"),
}


def _od_words(data: bytes, size: int, number: Callable[[int], str]) -> str:
    data += b"\0" * (-len(data) % size)
    return "".join(f"{at:07o}" + "".join(number(int.from_bytes(data[i:i + size], "little"))
                                         for i in range(at, min(at + 16, len(data)), size))
                   + "\n" for at in range(0, len(data), 16))


def _halves(text: str, between: str) -> str:  # cut -c1-N; cut -c(N+1)-
    return text[:len(text) // 2] + between + text[len(text) // 2:]


def _xxd(data: bytes) -> str:  # xxd: 16 bytes a line, in pairs, then the ASCII column
    return "".join(f"{at:08x}: " + " ".join(data[i:i + 2].hex() for i in range(
        at, min(at + 16, len(data)), 2)).ljust(39) + "  " + _column(data[at:at + 16]) + "\n"
                   for at in range(0, len(data), 16))


def _fold(text: str, width: int) -> str:  # fold -w N: each line cut at N characters
    return "\n".join(_fixed(line, width) for line in text.split("\n"))


def _cat_v(byte: int) -> str:
    meta, low = ("M-", byte - 128) if byte >= 128 else ("", byte)
    if low == 10:
        return "\n"
    return meta + (f"^{chr(low + 64)}" if low < 32 else "^?" if low == 127 else chr(low))


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_a_secret_in_a_common_encoding_is_hidden(name: str) -> None:
    redactor = _redactor()
    for secret in SECRETS:
        if name == "rev" and not secret.isascii():
            continue  # reversed by characters, as rev does in a UTF-8 locale
        if name in ("od -c", "od -An -c", "spaced", "list of characters (JSON)",
                    "list of characters (repr)") and not secret.isalnum() \
                and " " in secret:
            continue  # spaced out: ASCII secrets without a space only (docs/secrets.md)
        for lead in (0, 1, 2, 3, 4, 37):  # every base32/base64 alignment, and a wrap
            if lead == 37 and name in _NOT_ACROSS_LINES:
                continue  # a line break inside the secret's encoding: not covered
            text = ENCODINGS[name](b"x" * lead + b"key=" + secret.encode() + b"\n")
            shown = redactor.redact(text)
            assert "***" in shown, (lead, text)
            bare = shown.replace("\n", "")
            for part in (secret[2:10], secret[-8:]):
                shape = ENCODINGS[name](part.encode()).strip().replace("\n", "")
                assert shape not in bare, (lead, shown)


def test_an_ordinary_text_with_shell_escapes_is_left_as_it_is() -> None:
    redactor = _redactor()
    # (a hex word: the reversed secret's start then others; 16 of it is a part: test_reordered)
    text = "echo it\\'s\\ a\\ test\\! 'don'\\''t' \\303\\244 $'\\n' 1293a4b500ff11ee"
    assert redactor.redact(text) == text
    spaced = "s k - l i v e   9 f   " + _od_c(b"sk-live-9f8X") + str(
        list(b"sk-live-9f8e7d6c5b4X")) + " [115, 107, 45, 1080] [1115, 107, 45, 108]"
    assert redactor.redact(spaced) == spaced


def _words(data: bytes, size: int) -> str:  # od -x, hexdump (2), xxd -e (4)
    data += b"\0" * (-len(data) % size)
    words = [data[i:i + size][::-1].hex() for i in range(0, len(data), size)]
    return "\n".join(f"{at * size:07o} " + " ".join(words[at:at + 16 // size])
                     for at in range(0, len(words), 16 // size)) + "\n"


@pytest.mark.parametrize("size", [2, 4], ids=["od -x", "xxd -e"])
@pytest.mark.parametrize("secret", SECRETS)
def test_a_secret_in_little_endian_words_is_hidden(secret: str, size: int) -> None:
    """od -x / hexdump / xxd -e: the secret's bytes reversed in words, wherever it starts
    (the bytes of its first word that it shares with the bytes before it show)."""
    redactor = _redactor()
    raw = secret.encode()
    for lead in range(6):
        shown = redactor.redact(_words(b"x" * lead + b"key=" + raw + b"&more\n", size))
        digits = shown.replace(" ", "").replace("\n", "")
        for at in range(size, 2 * size):
            window = raw[at:at + 2 * size]
            swapped = "".join(window[i:i + size][::-1].hex() for i in range(0, 2 * size, size))
            assert swapped not in digits, (lead, shown)
        assert "***" in shown, (lead, shown)


def _xxd_words(data: bytes, size: int) -> str:  # xxd -e (4)
    padded = data + b"\0" * (-len(data) % size)
    out = []
    for at in range(0, len(data), 16):
        words = [padded[i:i + size][::-1].hex() for i in range(at, min(at + 16, len(padded)),
                                                                 size)]
        out.append(f"{at:08x}: " + " ".join(words).ljust(36) + "  " + _column(data[at:at + 16]))
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("size", [4], ids=["xxd -e"])
def test_a_secret_in_words_shows_none_of_itself_in_the_dumps_column(size: int) -> None:
    """The column of the line a secret in little-endian words ends on shows the secret's
    last characters in their own order (xxd -e's ``7d6c5b4a3921.`` was shown)."""
    redactor = _redactor()
    for secret in SECRETS:
        raw = secret.encode()
        for lead in range(2 * size):
            text = _xxd_words(b"x" * lead + b"key=" + raw + b"\n", size)
            shown = redactor.redact(text)
            assert _column(raw[-5:]) not in shown, (lead, shown)
            assert raw[-6:][::-1].hex() not in shown.replace(" ", ""), (lead, shown)


def _sed_l(data: bytes) -> str:  # sed -n l: lines cut at 69 characters with a "\\" and $
    text = _octal(data.decode().rstrip("\n")) + "$"
    return "\\\n".join(text[at:at + 69] for at in range(0, len(text), 69))


@pytest.mark.parametrize("name", ["quoted-printable", "sed -n l"])
def test_a_soft_line_break_inside_a_secret_shows_none_of_it(name: str) -> None:
    """quoted-printable's ``=`` and ``sed -n l``'s ``\\`` at a line's end are taken out by
    their readers: a secret broken there showed both of its parts."""
    encode = {"quoted-printable": quopri.encodestring, "sed -n l": _sed_l}[name]
    redactor = _redactor()
    for secret in SECRETS:
        for lead in range(40, 76):
            text = encode(b"x" * lead + b"key=" + secret.encode() + b" end\n")
            text = text.decode() if isinstance(text, bytes) else text
            shown = redactor.redact(text)
            joined = shown.replace("=\n", "").replace("\\\n", "")
            assert "***" in joined and " end" in joined, (lead, shown)  # nothing more hidden
            for part in (secret[:6], secret[-6:]):
                spelled = encode(part.encode())
                spelled = spelled.decode() if isinstance(spelled, bytes) else spelled
                assert spelled.strip().rstrip("$") not in joined, (lead, shown)


_SPACED = ("od -c", "od -An -c", "spaced", "od -b", "od -tu1", "list of bytes",
           "Buffer in JSON")


@pytest.mark.parametrize("name", _SPACED)
def test_a_secret_spaced_out_and_cut_inside_shows_none_of_it(name: str) -> None:
    """``max_output_bytes`` (a cut end) or a stderr tail (a cut start) falling inside a
    secret spelled a byte at a time: the part left is masked, wherever the cut falls; and
    streamed in pieces, the secret is read whole."""
    secret = SECRETS[0]
    redactor = Redactor(frozenset({secret}))
    spelled = ([f"{b:03o}" for b in secret.encode()] if name == "od -b" else
               list(secret) if "c" in name.split()[-1] or name == "spaced" else
               [str(b) for b in secret.encode()])
    runs = {tuple(spelled[i:i + 4]) for i in range(len(spelled) - 3)}

    def leaks(shown: str) -> bool:  # 4 of the secret's bytes in a row, offsets left out
        found = [t for t in re.split(r"[\s,\[\]{}:\"]+", shown.replace("\\n", " "))
                 if t and not (len(t) == 7 and t.isdigit())]
        return any(tuple(found[i:i + 4]) in runs for i in range(len(found)))

    for lead in (0, 5, 11):
        text = ENCODINGS[name](b"x" * lead + b"key=" + secret.encode() + b"&more\n")
        assert leaks(text)  # the check can see it
        for cut in range(len(text)):
            for shown in (redactor.cut_edges(text[:cut], tail=True),
                          redactor.cut_edges(text[cut:], head=True)):
                assert not leaks(shown), (lead, cut, shown)
        # streamed a line (or 23 characters) at a time: the open end is held
        for size in (0, 23):
            pieces = (text.splitlines(keepends=True) if not size
                      else [text[i:i + size] for i in range(0, len(text), size)])
            held, out = "", []
            for piece in pieces:
                part, held = redactor.stream_split(held + piece)
                out.append(part)
            whole = "".join(out) + redactor.redact(held)
            assert not leaks(whole), (lead, size, whole)


def test_ordinary_spaced_text_at_a_cut_is_left() -> None:
    redactor = Redactor(frozenset({SECRETS[0]}))
    for text in ("s k - x y z", "1 2 3 4 5", "115 107 45 99", "o k - l"):
        assert redactor.cut_edges(text, tail=True, head=True) == text


@pytest.mark.parametrize("per_line", [6, 4])
def test_xxd_bits_streamed_or_cut_at_the_end_show_none_of_a_secret(per_line: int) -> None:
    """``xxd -b`` written in pieces (a line, or a few characters, at a time) is read as
    whole; cut at its end inside a secret (``max_output_bytes``), the part left is masked."""
    secret = SECRETS[0]
    redactor = Redactor(frozenset({secret}))
    runs = {" ".join(f"{b:08b}" for b in secret.encode()[i:i + 2])
            for i in range(len(secret) - 1)}

    def leaks(shown: str) -> bool:  # 2 of its bytes in a row, or its characters
        bare = re.sub(r"\s+[ -~]{0,8}\n[0-9a-f]{8}: ", " ", shown)
        return any(run in bare for run in runs) or secret[-6:] in shown

    for lead in (0, 3, 5):  # the secret's first byte at three places of a line
        text = _xxd_bits(b"x" * lead + b"key=" + secret.encode() + b"&more\n", per_line)
        assert leaks(text)  # the check can see it
        for size in (0, 3, 23):
            pieces = (text.splitlines(keepends=True) if not size
                      else [text[i:i + size] for i in range(0, len(text), size)])
            held, out = "", []
            for piece in pieces:
                part, held = redactor.stream_split(held + piece)
                out.append(part)
            assert "".join(out) + redactor.redact(held) == redactor.redact(text), (lead, size)
        start = text.index(f"{secret.encode()[0]:08b}")
        stop = text.index(" ", text.index(f"{secret.encode()[-1]:08b}", start)) + 30
        for cut in range(start + 18, stop):  # every cut inside it and its last column
            shown = redactor.cut_edges(text[:cut], tail=True)
            assert not leaks(shown), (lead, cut, shown)


@pytest.mark.parametrize("secret", SECRETS)
def test_a_piece_of_a_secret_is_hidden_with_all_it_shows(secret: str) -> None:
    """A secret cut short (``sed 's/.$//'``, ``head -c``), each half of one split between
    stdout and stderr, a line of ``od -c`` with hex offsets: any piece of 10 of its letters
    and digits (punctuation and blanks not counted) is hidden, grown to all of it shown."""
    redactor = _redactor()
    half = len(secret) // 2
    for shown in (secret[:-1], secret[1:], secret[:half], secret[half:],
                  " ".join(secret[:-2])):
        if len(squeeze(shown)) < PIECE:
            continue  # half of the second one: 8 letters and digits
        text = f"a {shown} b"
        assert redactor.redact(text) == "a *** b", text
    if secret.isascii():  # od -c shows a non-ASCII character's bytes in octal
        dump = _od_c(secret.encode()).replace("0000000", "000000").replace("0000020", "000010")
        assert secret[2:8] not in redactor.redact(dump).replace("   ", "")
    # fewer than 10 of them, or another secret's, are shown as they are
    for honest in ("a sk-live-9f8 b", "p@ss w0rd/Ä b", "ghp_1234567890abcdefghij"):
        assert redactor.redact(honest) == honest


def test_a_secret_of_many_blanks_is_text_hidden_as_itself_only() -> None:
    """A value of many blanks (a tool list passed through `env:`, a sentence) is not read
    squeezed: its words met the same words in any layout, masking across the JSON of
    `toolhost tools --json`. It is still hidden as written; a passphrase's few blanks keep
    the squeezed reading."""
    tools = json.dumps([{"name": "echo", "description": "echo 2 things", "inputSchema": {
        "type": "object", "properties": {"text": {"type": "string"}}}}])
    redactor = Redactor(frozenset({tools, "correct horse 9 battery staple"}))
    listed = json.dumps({"tools": json.loads(tools)}, indent=2)
    assert redactor.redact(listed) == listed  # the same words, laid out anew: not the value
    assert redactor.redact(f"x {tools} y") == "x *** y"
    spread = "-".join("correct horse 9 battery staple".replace(" ", ""))
    assert "***" in redactor.redact(f"x {spread} y")


INTERLEAVED = {  # a character in two (secrets24: each showed the secret whole)
    "an x after each character": lambda s: "x".join(s) + "x",
    "a letter of another output between": lambda s: "".join(
        a + b for a, b in zip(s, "the other tool writes this line too, ok", strict=False)),
    "another output's letter first": lambda s: "".join(
        b + a for a, b in zip(s, "another tool writes this line too, ok", strict=False)),
}


@pytest.mark.parametrize("secret", ["sk-live-9f8e7d6c5b4a3921", "hunter22"])
@pytest.mark.parametrize("mix", INTERLEAVED.values(), ids=INTERLEAVED.keys())
def test_a_secret_read_a_character_in_two_is_hidden(mix: Callable[[str], str],
                                                    secret: str) -> None:
    out = Redactor(frozenset({secret})).redact(f"[{mix(secret)}]")
    assert "***" in out and len(out) <= 2 + 3 + 2


def test_text_read_a_character_in_two_is_otherwise_left() -> None:
    text = "ssuummmmaarryy: hhuunntteerr ok; 0123456789abcdef" * 3
    assert Redactor(frozenset({"hunter22", "sk-live-9f8e7d6c5b4a3921"})).redact(text) == text
