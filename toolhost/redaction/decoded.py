"""A secret under two encodings or more, or compressed: decode, then look again.

The forms a ``Redactor`` builds are one encoding deep (base64, hex, ..., and base64 of hex and
hex of base64). A command can stack any number: ``gzip | base64``, base64 of base32, hex of
hex, a base64 string spelled as HTML character references or ``\\x`` escapes, Python's
``chr(115)+chr(107)+...``. Building each stack's form for each secret cannot end (and
compressed data depends on the compressor, its level and its header: gzip's holds a time and a
file name), so this module goes the other way: it finds the *runs* a text may hold an encoding
in, decodes each (gzip, zlib, bzip2 and xz data decompressed too, at most ``MAX_DECODED``
bytes), and hands the decoded texts to the redactor again (which decodes what they hold in
turn, to ``MAX_DEPTH`` levels). A run whose decoded text holds a secret is hidden whole.

Runs: base64 or base64url of 12 characters or more, wrapped over lines too (as ``base64``
writes it), also each line reversed (``| rev``); hex of 16 digits or more (read from its
first digit and from its second: a stray digit before it shifts every byte by half);
base32 of 16 characters or more; 8 or more character escapes in a row (``&#NN;``,
``&#xNN;``, ``\\xNN``, ``\\uNNNN``, ``%NN``, ``\\NNN`` octal, ``chr(NN)``; ``\\u{NN}``,
``\\x{NN}`` and ``\\U000000NN`` as Rust, JavaScript, Perl and Python write them); a
piece at a time in base64 or base32, 4 padded pieces or more in a row (``cw== aw== LQ==``,
``["c2stbA==", "aXZlLQ==", ...]``: each piece decoded, their bytes joined); hex spaced by
bytes, 8 bytes or more (``xx xx``, ``xx:xx``, ``0xNN, 0xNN``, wrapped too: what ``od -An
-tx1`` and ``xxd -i`` write); uuencode's lines without their ``begin`` and ``end`` (each
line as long as its first character says, 8 bytes or more in all).

A stream holds back a compressed run it has the start of (``packed_tail``: base64 or hex
that starts as gzip, zlib, bzip2 or xz data, at the end of what was written so far) until the
run ends, so that it is decoded whole (``gzip | base64`` written a line at a time showed every
line); a run longer than a stream holds is hidden from its start.

What one text may decode to is bounded (``Budget``: four times its length, 256 KiB at least,
4 MiB at most, every level down counted): a few kilobytes of compressed runs can expand to
gigabytes, and reading them took minutes and as much memory. A run whose decoding would go
past what is left, or whose compressed data expands past it, cannot be read, so it is
hidden (fail closed: it may hold a secret); honest output decodes far within the bound.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import contextlib
import functools
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from toolhost.redaction import radix
from toolhost.redaction.escapes import CHR, ESCAPES, unescape
from toolhost.redaction.packed import compressed, strings, unpacked
from toolhost.redaction.pieces import BASE32, PIECES, joined_pieces

if TYPE_CHECKING:
    from toolhost.redaction.cipher import Xored

__all__ = ["MAX_DECODED", "MAX_DEPTH", "Budget", "decoded_spans", "packed_tail"]

MAX_DEPTH = 4  # encodings stacked on the one-deep forms
MAX_DECODED = 1 << 20  # bytes a compressed run may expand to (a bomb stops there)
MIN_BUDGET = 256 << 10  # characters one text may decode to, all levels down: at least
MAX_BUDGET = 4 << 20  # and at most (four times the text's length in between)


class Budget:
    """How many more characters the decodings of one text (and of theirs) may hold."""

    __slots__ = ("left",)

    def __init__(self, text_length: int) -> None:
        self.left = min(MAX_BUDGET, max(MIN_BUDGET, 4 * text_length))

    def take(self, size: int) -> bool:
        """Spend ``size`` if it is left (True), else spend everything (False: unreadable)."""
        if size > self.left:
            self.left = 0
            return False
        self.left -= size
        return True

_B64 = r"[A-Za-z0-9+/_-]{12,}={0,6}(?:\r?\n[A-Za-z0-9+/_-]{4,}={0,6})*"
# hex spaced by bytes: ``od -An -tx1``, ``xxd -i``, ``31:29:6f``
_SPACED = (r"(?:0[xX])?[0-9a-fA-F]{2}(?:(?:[ :,]|\r?\n)[ \t]*(?:0[xX])?[0-9a-fA-F]{2}){7,}"
           r"(?:[^0-9a-zA-Z]|\z)")
_HEXPAIR = re.compile(r"(?:0[xX])?([0-9a-fA-F]{2})")
_HEXDIGITS = b"0123456789abcdefABCDEF"
_HEXCHARS = _HEXDIGITS.decode()  # (a first look, before the whole run)
_HEX_RUN = re.compile(r"[0-9a-fA-F]{17,}")  # hex inside a longer run of base64's characters
_CONTROLS = bytes(c for c in range(32) if chr(c) not in "\t\n\r")
_SEP = "\n\0\n"  # between decoded texts checked in one pass: no form runs across it


@functools.cache
def _engines() -> tuple[Any, ...]:
    """The run finders (RE2: one linear pass each; Python's ``re`` took 3 ms and 11 ms on
    40,000 characters of prose), built on first use: base64, escapes, spaced hex and
    uuencode's lines, for text, then the same for bytes."""
    import re2  # type: ignore[import-untyped]

    options = re2.Options()
    options.never_capture = True
    options.log_errors = False
    # a word of printable characters that starts as a base-85 group of compressed data does
    # (base85 without Ascii85's ``<~ ~>``): at the text's or a line's start, after a blank,
    # a ``=``, a ``:``, a quote or an opening bracket
    word = (r"(?:\A|[\s=:\"'(\[])[" + "".join(re.escape(c) for c in sorted(radix.FIRSTS85))
            + r"][!-~]{19,}")
    patterns = (_B64, ESCAPES, _SPACED, radix.UULINES, word, radix.WORD85, PIECES)
    return (*(re2.compile(p, options) for p in patterns),
            *(re2.compile(p.encode(), options) for p in patterns))


def decoded_spans(text: str, found: Callable[[str], list[tuple[int, int]]],
                  budget: Budget, xored: Xored | None = None) -> list[tuple[int, int]]:
    """The runs of ``text`` whose decoding holds a secret: ``found`` (the redactor's spans,
    one level deeper) is called once, on every run's decodings joined; a run that cannot be
    read within ``budget`` is one too, and one whose bytes hold a secret XORed with one byte
    (``xored``: ``toolhost.redaction.cipher``)."""
    if len(text) < 12:
        return []
    runs: list[tuple[int, int]] = []
    texts: list[str] = []
    unread: dict[int, int] = {}
    batch = _XorBatch(xored) if xored else None
    for start, end, decoded in _decodings(text, budget, batch):
        if decoded is None:
            unread[start] = max(end, unread.get(start, end))
            continue
        runs.append((start, end))
        texts.append(decoded)
    for start, end in batch.hidden() if batch is not None else ():
        unread[start] = max(end, unread.get(start, end))  # hidden whole, as if unread
    if not runs:
        return sorted(unread.items())
    joined = _SEP.join(texts)
    hits = found(joined)
    if not hits:
        return sorted(unread.items())
    bounds, at = [], 0
    for piece in texts:
        bounds.append((at, at + len(piece)))
        at += len(piece) + len(_SEP)
    shortest: dict[int, int] = {}  # a block less its last line, if that holds it too
    for (start, end), (low, high) in zip(runs, bounds, strict=True):
        if any(s < high and e > low for s, e in hits):
            shortest[start] = min(end, shortest.get(start, end))
    return sorted({**unread, **shortest}.items())


def packed_tail(text: str) -> int:
    """How much of the end of ``text`` (a stream's pieces so far) is a run of base64 or hex
    that starts as compressed data and may go on: held until it ends (0: none)."""
    block = len(text.rstrip(_RUN_CHARS))  # the base64 or hex lines the text ends with
    if block == len(text):
        return 0
    first = _MAGIC.search(text, block)
    while first is not None:  # a run starts there: its first line goes on for 12 or more
        end = text.find("\n", first.start())  # (or may still: a line in progress)
        if end < 0 or end - first.start() >= 12:
            return len(text) - first.start()
        first = _MAGIC.search(text, first.end())
    return 0


_RUN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-\r\n"
# compressed data's first bytes in base64 (gzip, zlib at its four levels, bzip2, xz) and hex
_MAGIC = re.compile(r"H4sI|eJ|eNo|eF4|eAE|QlpoO|/Td6WFo|_Td6WFo|XQAA|UEsDB|1f8b|789c|78da"
                    r"|785e|7801|425a68|fd377a585a|5d000080|504b0304", re.IGNORECASE)


class _XorBatch:
    """The bytes of every run of one text, looked at for a secret XORed with one byte in
    one pass (``Xored.spans`` per run cost an RE2 call each, ~40 us: the decoding of 40,000
    near-misses took twice as long)."""

    __slots__ = ("_data", "_index", "_runs", "_xored")

    def __init__(self, xored: Xored) -> None:
        self._xored = xored
        self._data: list[bytes] = []
        self._runs: list[list[tuple[int, int]]] = []  # the runs of each one's bytes
        self._index: dict[bytes, int] = {}  # the same bytes are looked at once

    def add(self, start: int, end: int, data: bytes) -> None:
        if len(data) >= 8:  # (``redaction.cipher.MIN_XOR``: shorter holds none)
            at = self._index.get(data)
            if at is None:
                at = self._index[data] = len(self._data)
                self._data.append(data)
                self._runs.append([])
            self._runs[at].append((start, end))

    def hidden(self) -> list[tuple[int, int]]:
        """The runs whose bytes hold a secret XORed with one byte."""
        if not self._data:
            return []
        joined = _XOR_SEP.join(self._data)
        starts, at = [], 0
        for data in self._data:
            starts.append(at)
            at += len(data) + len(_XOR_SEP)
        found = []
        for a, b in self._xored.spans(joined):
            i = bisect.bisect_right(starts, a) - 1
            if b <= starts[i] + len(self._data[i]):  # inside one run's bytes
                found += self._runs[i]
        return found


_XOR_SEP = b"\n\0\xff\0\n"


class _Replay:
    """What decoding one run gave (its texts, and the bytes handed to the XOR look), to
    give again for each place the same run is at. Stands in for the ``_XorBatch``."""

    __slots__ = ("data", "texts")

    def __init__(self) -> None:
        self.texts: list[str | None] = []
        self.data: list[bytes] = []

    def add(self, start: int, end: int, data: bytes) -> None:
        self.data.append(data)

    def record(self, found: Iterator[tuple[int, int, str | None]]) -> None:
        self.texts += [text for _, _, text in found]

    def replay(self, start: int, end: int, xored: _XorBatch | None
               ) -> Iterator[tuple[int, int, str | None]]:
        if xored is not None:
            for data in self.data:
                xored.add(start, end, data)
        for text in self.texts:
            yield start, end, text


def _decodings(text: str, budget: Budget, xored: _XorBatch | None = None
               ) -> Iterator[tuple[int, int, str | None]]:
    """(start, end, decoded text) for every decoding of every run in ``text``; the text is
    None where the run cannot be read within ``budget`` or its bytes hold a secret XORed
    with one byte (``xored``): hidden whole."""
    b64, escapes, spaced, uulines, words, words85, pieces, *in_bytes = _engines()
    if text.isascii():  # RE2 on bytes: no offsets to convert (its offsets are ours)
        source: str | bytes = text.encode("ascii")
        b64, escapes, spaced, uulines, words, words85, pieces = in_bytes
    else:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (RE2 reads UTF-8): U+FFFD, same spans
            from toolhost.redaction.spell import _encodable

            text = _encodable(text)
        source = text
    seen: dict[str, _Replay] = {}
    for match in b64.finditer(source):
        start, end = match.start(), match.end()
        run = text[start:end]
        runs = [run]
        last = run.rfind("\n")
        if last > 0:  # a block's next line may be a word of what follows (``next line``)
            runs.append(run[:last - 1 if run[last - 1] == "\r" else last])
        for one in runs:
            # a run the text holds again (a log's repeated line, near-misses of a secret)
            # is decoded once: its decodings, and the bytes its XOR look reads, are replayed
            done = seen.get(one)
            if done is None:
                done = seen[one] = _Replay()
                done.record(_run(0, 0, one, budget, done))
                # and each line reversed (``base64 | rev``: rev turns each line, keeps
                # their order)
                done.record(_run(0, 0, "\n".join(line[::-1] for line in one.split("\n")),
                                 budget, done))
            yield from done.replay(start, start + len(one), xored)
    found = list(escapes.finditer(source)) if ("\\" in text or "&#" in text or "%" in text) \
        else []
    for match in found:
        start, end = match.start(), match.end()
        yield from _payload(start, end, bytes(unescape(text[start:end])), budget, xored)
    if "=" in text or "%3" in text:  # a piece at a time: each piece decoded, their bytes joined
        for match in pieces.finditer(source):
            start, end = match.start(), match.end()
            for data in joined_pieces(text[start:end]):
                yield from _payload(start, end, data, budget, xored)
    for match in spaced.finditer(source):
        start, end = match.start(), match.end()
        end -= text[end - 1] not in _HEXCHARS  # (the character after it, matched)
        # its bytes as text are the hex-dump finder's (which leaves a secret of 3 bytes,
        # spaced hex in every dump, alone): here only compressed or XORed data
        yield from _payload(start, end, bytes.fromhex("".join(
            _HEXPAIR.findall(text, start, end))), budget, xored, plain=False)
    if "\n" in text or len(text) <= 86:  # (a line of uuencode: 86 characters at most)
        for match in uulines.finditer(source):
            for start, end, data in radix.uu_blocks(text, match.start(), match.end()):
                yield from _payload(start, end, data, budget, xored)
    for match in words.finditer(source):  # base85 of compressed data, no ``<~``
        for start, data in radix.packed85(text, match.start(), match.end()):
            yield from _payload(start, match.end(), data, budget, xored)
    for match in words85.finditer(source):  # base85 of other bytes, no ``<~``
        start, end = match.start(), match.end()
        word = text[start:end]
        if (radix.MIN85 <= len(word) <= radix.MAX85 and len(word) % 5 != 1  # (no group of one)
                and len(word) - len(word.translate(radix.NOT85)) >= 3):
            done = seen.get(word)  # (code repeats its words: each decoded once)
            if done is None:
                done = seen[word] = _Replay()
                for _, decode in radix.BASE85:
                    if (bytes85 := decode(word)) is not None:
                        done.record(_payload(0, 0, bytes85, budget, done))
            yield from done.replay(start, end, xored)
    if "<~" in text:  # Ascii85 as PostScript, PDF and ``a85encode(adobe=True)`` write it
        for match in radix.A85.finditer(text):
            with contextlib.suppress(ValueError):
                yield from _payload(match.start(), match.end(), base64.a85decode(
                    match.group(), adobe=True, ignorechars=b" \t\n\r\v"), budget, xored)
    if "begin " in text:  # uuencode's block: ``begin 644 name`` ... ``end``
        for match in radix.UU.finditer(text):
            yield from _payload(match.start(), match.end(), radix.uudecode(match.group(1)),
                                budget, xored)
    if "chr(" in text:
        for match in CHR.finditer(text):
            yield from _payload(match.start(), match.end(), bytes(unescape(match.group())),
                                budget, xored)


def _run(start: int, end: int, run: str, budget: Budget,
         xored: _XorBatch | _Replay | None = None) -> Iterator[tuple[int, int, str | None]]:
    """The decodings of one run of base64's characters: as hex, base64, base32."""
    squeezed = run.replace("\r", "").replace("\n", "") if "\n" in run else run
    if len(squeezed) >= 17 and not squeezed[:32].strip(_HEXCHARS) \
            and not squeezed.encode().translate(None, _HEXDIGITS):
        yield from _hex(start, end, squeezed, budget, xored)
    elif "\n" not in run:  # hex after a word glued to it (``...XYZ`` then a piece's hex)
        for inner in _HEX_RUN.finditer(run):
            yield from _hex(start + inner.start(), start + inner.end(), inner.group(),
                            budget, xored)
    body = squeezed.rstrip("=")
    padded = body + "=" * (-len(body) % 4)
    alphabet = b"-_" if ("-" in body or "_" in body) else b"+/"
    with contextlib.suppress(binascii.Error, ValueError):  # (a length of 4n+1: none)
        yield from _payload(start, end, base64.b64decode(padded, altchars=alphabet,
                                                         validate=True), budget, xored)
    if radix.MIN_B58 <= len(body) <= radix.MAX_B58 and radix.BASE58.fullmatch(body):
        yield from _payload(start, end, radix.b58decode(body), budget, xored)
    if len(body) >= 16 and (BASE32.fullmatch(body) or (
            body.islower() and BASE32.fullmatch(body.upper()))):  # (``| tr A-Z a-z``)
        with contextlib.suppress(binascii.Error, ValueError):
            yield from _payload(start, end, base64.b32decode(body + "=" * (-len(body) % 8),
                                                             casefold=True), budget, xored)


def _hex(start: int, end: int, digits: str, budget: Budget,
         xored: _XorBatch | _Replay | None) -> Iterator[tuple[int, int, str | None]]:
    # at both alignments: a digit before the secret's hex (``printf 5; xxd -p``), or its
    # first digit cut off, shifts every byte of an even run by half
    odd = len(digits) % 2
    for hexed in (digits[:len(digits) - odd], digits[1:len(digits) - 1 + odd]):
        if len(hexed) >= 16:
            yield from _payload(start, end, bytes.fromhex(hexed), budget, xored)


def _payload(start: int, end: int, data: bytes, budget: Budget,
             xored: _XorBatch | _Replay | None = None, plain: bool = True
             ) -> Iterator[tuple[int, int, str | None]]:
    """The texts ``data`` may be: itself, and decompressed when it starts like compressed
    data (gzip, zlib, bzip2, xz). Only text: in other bytes (an image's base64) the secret
    itself was looked for already (its base64 at any alignment is one of its forms), and
    reading them again as text cost 12 times the redaction of their base64. None: past
    ``budget`` (or a compressed run expanding past it, or past ``MAX_DECODED``), or a secret
    XORed with one byte in ``data`` (``xored``). ``plain``: False, only ``data``
    decompressed."""
    if xored is not None:
        xored.add(start, end, data)
    text = _text(data) if plain else None
    if text is not None:
        yield start, end, text if budget.take(len(text)) else None
    elif not plain and not compressed(data):
        return  # (spaced hex: its bytes, not compressed, are the hex-dump finder's)
    room = min(MAX_DECODED, budget.left)
    inner = unpacked(data, room, raw=text is None)
    if inner is None:  # a bomb, or more than is left: what it holds is unread
        budget.take(budget.left + 1)
        yield start, end, None
        return
    for piece in inner:  # (binary, as a tar archive or a zip's file is: its text view)
        if xored is not None:
            xored.add(start, end, piece)
        text = _text(piece)
        text = strings(piece) if text is None else text
        yield start, end, text if budget.take(len(text)) else None


def _text(data: bytes) -> str | None:
    """``data`` as text, if it is: UTF-8 (a cut at either end may split a character: two
    are replaced at most), with few control characters."""
    controls = len(data) - len(data.translate(None, _CONTROLS))
    if controls * 10 > len(data):
        return None
    text = data.decode("utf-8", "replace")
    return text if text.count("\ufffd") <= 2 else None
