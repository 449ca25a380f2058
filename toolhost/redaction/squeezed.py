"""Secrets spread out by punctuation and blanks: each character followed by a separator
(``sed 's/./&-/g'``, ``",".join(s)``, ``grep -o . | paste -sd,``), the secret cut in pieces
on lines of any widths (``cut -c1-10; cut -c11-``, ``${T:0:12}`` then ``${T:12}``), or in
pieces joined by blanks (``fold -w4 | paste -sd' '``, ``awk substr``), one of its
punctuation marks changed (``sed 's/_/ /g'``, ``tr -d '_-'``), and its bytes as numbers
spread over lines (``jq 'explode'``, ``od -An -tu1 -w1``, octal numbers without escapes).

The text is read "squeezed": every ASCII punctuation mark and blank taken out, ASCII letters
in lower case (one ``str.translate``). Each secret's squeezed forms (itself, reversed, rot13
of all or of lower/upper letters alone; its bytes as hex, reversed hex, decimal and octal
numbers; its code points in decimal; its bytes as one number (``int.from_bytes``); the
base64 cores of its bytes, and those reversed (``base64 -w0 | rev``), its base32hex; the
hex and base64 of it reversed, in upper or lower case, in rot13 (``rev | base64``); and,
in a text with a line of a dump of numbers (an offset, then a number) or a list of
numbers (``struct.unpack``), its bytes in
little-endian words of 2, 4 and 8 bytes, in hex, octal and decimal, as ``od -tx8``,
``od -to2``, ``od -tu2``, ``od -td4``, ``hexdump -d`` print them) of ``MIN_SQUEEZED``
characters or more are looked for there (one RE2 pass), and what is found is mapped back
to the text, from the secret's first character to its last. Only a secret whose own
squeezed text is that long has them (a shorter one would match ordinary words spread out),
and only one shorter than ``redaction.spell.LONG`` (a PEM key is hidden as itself) with
at most ``MAX_BLANKS`` blanks inside (a token or a passphrase: text such as a JSON
document is hidden as itself).

Any piece of ``PIECE`` characters (a letter and a digit among them: not words alone, such
as a PEM's ``BEGIN OPENSSH PRIV``) of a squeezed secret is hidden too, grown on both sides as
far as the text goes on with the secret: a secret cut short (``sed 's/.$//'``, ``head -c
20``), each half of one split between stdout and stderr, or between two tool calls, a line
of ``od -c`` with hex offsets (``od -Ax -c``) or between other lines (``od -tx1 -tc``).
"""

from __future__ import annotations

import base64
import bisect
import codecs
import functools
import itertools
import re
import string
from collections.abc import Iterable, Iterator
from typing import Any

from toolhost.redaction.spell import LONG, PLACES_BASE

__all__ = ["MIN_SQUEEZED", "PIECE", "Squeezed"]

MIN_SQUEEZED = 10
MIN_ENCODED = 12  # a short secret's encoded forms: this long (no word is spread so)
MAX_BLANKS = 4  # "correct horse battery staple" has three
PIECES_PER = 256  # characters of text per piece grown, past PLACES_BASE (a text's budget)
PIECE = 10  # any piece of a squeezed secret this long is hidden, grown to all it shows
# a piece holds a letter and a digit: words alone are not one (a PEM's "BEGIN OPENSSH PRIV")
_MIXED = re.compile(r"[^\W\d_]")
_MIXED_BACK = re.compile(r"\d")
# ASCII punctuation and blanks, and the invisible ones put between characters: no-break
# and zero-width spaces, joiners, the word joiner, BOM, soft hyphen
# (and their fullwidth forms, U+FF01-U+FF5E; its letters and digits read as ASCII)
_DROP = (string.punctuation + string.whitespace + "\u00a0\u00ad\u200b\u200c\u200d\u2060\ufeff"
         + "".join(chr(ord(c) + 0xFEE0) for c in string.punctuation))
_TABLE = {**str.maketrans(string.ascii_uppercase, string.ascii_lowercase),
          **{0xFF01 + i: chr(0x21 + i).lower() for i in range(94)},
          **{ord(c): None for c in _DROP}}
_ROT_LOWER = str.maketrans(string.ascii_lowercase,
                           string.ascii_lowercase[13:] + string.ascii_lowercase[:13])
_ROT_UPPER = str.maketrans(string.ascii_uppercase,
                           string.ascii_uppercase[13:] + string.ascii_uppercase[:13])


def squeeze(text: str) -> str:
    """``text`` without ASCII punctuation and blanks (invisible ones too), its ASCII
    letters in lower case, fullwidth forms as ASCII."""
    return text.translate(_TABLE)


def _forms(secret: str, base64_cores: Iterable[str]) -> set[str]:
    raw = secret.encode("utf-8", "surrogatepass")
    texts = {secret, secret[::-1], codecs.encode(secret, "rot13"),
             secret.translate(_ROT_LOWER), secret.translate(_ROT_UPPER),
             raw.hex(), raw.hex()[::-1], raw[::-1].hex(),
             "".join(str(b) for b in raw), "".join(f"{b:o}" for b in raw),
             "".join(str(ord(c)) for c in secret),
             # one big number (``int.from_bytes``): decimal either way, bits big-endian
             str(int.from_bytes(raw, "big")), str(int.from_bytes(raw, "little")),
             f"{int.from_bytes(raw, 'big'):b}"}
    for offset in range(5):  # base32hex (``basenc --base32hex``) at each alignment
        encoded = base64.b32hexencode(b"\0" * offset + raw).decode("ascii")
        texts.add(encoded[-(-8 * offset // 5):8 * (offset + len(raw)) // 5])
    for core in base64_cores:
        texts |= {core, core[::-1]}
    # encoded after another step: reversed, upper or lower case, rot13 (``rev | base64``,
    # ``tr a-z A-Z | xxd -p``)
    from toolhost.redaction.forms import base64_cores as cores_of

    for step in {secret[::-1], secret.upper(), secret.lower(), codecs.encode(secret, "rot13")}:
        data = step.encode("utf-8", "surrogatepass")
        texts |= {data.hex(), *cores_of(data)}
    return {f for f in map(squeeze, texts | _piece_forms(raw)) if len(f) >= MIN_SQUEEZED}


def _encoded_forms(raw: bytes) -> set[str]:
    """A short secret's forms (fewer than ``MIN_SQUEEZED`` letters and digits: itself would
    be a word spread out) that are ``MIN_ENCODED`` characters or more: its bytes as hex or
    numbers, a piece at a time in base64 or base32 (``6875 | 6e74 | 6572 | 3232``)."""
    texts = {raw.hex(), raw[::-1].hex(), "".join(str(b) for b in raw),
             "".join(f"{b:o}" for b in raw), *_piece_forms(raw)}
    return {f for f in map(squeeze, texts) if len(f) >= MIN_ENCODED}


def _piece_forms(raw: bytes) -> set[str]:
    """``raw`` a piece at a time: each piece of 1 to 4 bytes in base64 or base32 (their
    padding is punctuation, squeezed out: padded or not alike), the pieces in order, in
    reverse order, and each piece reversed; the bytes as zero-padded octal and decimal
    (``%03o``), and as numbers in reverse order; base32 at each alignment."""
    texts = {"".join(f"{b:03o}" for b in raw), "".join(f"{b:03d}" for b in raw),
             "".join(f"{b:o}" for b in reversed(raw)), "".join(str(b) for b in reversed(raw))}
    for size in (1, 2, 3, 4):
        chunks = [raw[at:at + size] for at in range(0, len(raw), size)]
        for encode in (base64.b64encode, base64.b32encode):
            pieces = [encode(chunk).decode("ascii").rstrip("=") for chunk in chunks]
            texts |= {"".join(pieces), "".join(reversed(pieces)),
                      "".join(piece[::-1] for piece in pieces)}
    for offset in range(5):  # base32 (``base32``) at each alignment, as base32hex above
        encoded = base64.b32encode(b"\0" * offset + raw).decode("ascii")
        texts.add(encoded[-(-8 * offset // 5):8 * (offset + len(raw)) // 5])
    return texts


def _word_forms(raw: bytes) -> set[str]:
    """``raw`` as ``od -tx8/-to2/-tu2/-td4``, ``hexdump -d/-o`` print it: little-endian words
    of 2, 4 or 8 bytes in hex, octal (zero-padded), decimal (signed too; ``hexdump -d``'s
    zero-padded), each run of whole words inside one 16-byte line, at each of the 16 places
    the secret may start in a line (a line's offset cuts the run)."""
    found: set[str] = set()
    n = len(raw)
    for size in (2, 4, 8):
        bits = 8 * size
        for lead in range(16):
            words: dict[int, list[int]] = {}
            for at in range(-(-lead // size) * size, lead + n - size + 1, size):
                value = int.from_bytes(raw[at - lead:at - lead + size], "little")
                words.setdefault(at // 16, []).append(value)
            for run in words.values():
                signed = [v - (1 << bits) if v >> (bits - 1) else v for v in run]
                found |= {"".join(f"{v:0{2 * size}x}" for v in run),
                          "".join(f"{v:0{-(-bits // 3)}o}" for v in run),
                          "".join(map(str, run)), "".join(str(abs(v)) for v in signed),
                          "".join(f"{v:05d}" for v in run)}
    return {f for f in found if len(f) >= MIN_SQUEEZED}


class Squeezed:
    """The squeezed forms of a set of secrets, and where they are in a text."""

    __slots__ = ("_forms", "_inner", "_longest", "_marks", "_pieces", "_raws", "_shortest",
                 "_words", "forms")

    def __init__(self, secrets: Iterable[tuple[str, Iterable[str]]]) -> None:
        """``secrets``: each secret with the base64 cores of its bytes."""
        found: set[str] = set()
        self._raws: list[bytes] = []
        self._pieces: dict[str, list[str]] = {}  # a piece: the squeezed secrets holding it
        self._marks: dict[str, str] = {}
        for secret, cores in secrets:
            whole = squeeze(secret)
            # a token or a passphrase: a secret of many blanks is text (a JSON document, a
            # sentence), whose squeezed letters meet the same words in any layout (a tool
            # list passed in `env:` met `tools --json`, masking across its JSON)
            if len(whole) >= MIN_SQUEEZED and len(secret) < LONG \
                    and sum(c.isspace() for c in secret) <= MAX_BLANKS:
                found |= _forms(secret, cores)
                self._raws.append(secret.encode("utf-8", "surrogatepass"))
                marks = "".join({c for c in secret if c in string.punctuation})
                # its pieces, and those of it reversed (``rev | cut -c1-12``)
                for text in {whole, whole[::-1]}:
                    for at in range(len(text) - PIECE + 1):
                        piece = text[at:at + PIECE]
                        if _MIXED.search(piece) and _MIXED_BACK.search(piece):
                            self._pieces.setdefault(piece, []).append(text)
                    self._pieces.setdefault(text, []).append(text)
                    # its own punctuation next to a piece goes with it ("-----BEGIN ...-----")
                    self._marks[text] = self._marks.get(text, "") + marks
            elif len(secret) < LONG:  # a short one: only its encodings as long as words
                found |= _encoded_forms(secret.encode("utf-8", "surrogatepass"))
        found |= self._pieces.keys()
        self.forms = frozenset(found)
        self._shortest = min(map(len, found), default=0)  # a shorter text holds none
        self._longest = max(map(len, found), default=0)
        self._forms: Any = None  # RE2 patterns, on first use: the forms, and with the words
        self._words: Any = None
        self._inner: str | None = None  # every form but its last character, for open_tail

    def open_tail(self, text: str, limit: int, *, by_line: bool = True) -> int:
        """How many characters at the end of ``text`` (``limit`` at most) more text could
        make part of a squeezed form (0: none): those whose squeezed text is in a form and
        not at its end. A piece found later is grown back over them (``spans``), so a stream
        holds them rather than show what the whole text would hide. With ``by_line``, not
        past a line break: a stream of lines shows each as it ends (a secret cut over two
        lines is the lines' reader's: ``redaction.wrapped``)."""
        if not self.forms:
            return 0
        if self._inner is None:  # (a form's pieces are in it: a piece grows inside its form)
            self._inner = "\0".join(_encodable(form[:-1]) for form in self.forms)
        longest = self._longest
        kept: list[int] = []  # where the last characters a form may hold are, from the end
        at = len(text)
        while at > max(0, len(text) - limit) and len(kept) < longest:
            at -= 1
            if by_line and text[at] in "\r\n":  # a line is shown when it ends
                break
            if squeeze(text[at]):
                kept.append(at)
        kept.reverse()
        squeezed = _encodable(squeeze("".join(text[i] for i in kept)))
        lo, hi = 0, len(squeezed)
        while lo < hi:  # the suffixes of a form's inside are in it too: the longest, by halves
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if squeezed[len(squeezed) - mid:] in self._inner else (lo, mid - 1)
        return len(text) - kept[len(kept) - lo] if lo else 0

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        """Where a squeezed form is in ``text``, as spans of ``text``."""
        if not self.forms or len(text) < self._shortest:
            return
        if _numbers().search(_encodable(text)):  # a dump or a list of numbers: its words
            if self._words is None:
                self._words = _compile(self.forms.union(*map(_word_forms, self._raws)))
            pattern = self._words
        else:
            if self._forms is None:
                self._forms = _compile(self.forms)
            pattern = self._forms
        squeezed = _encodable(squeeze(text))
        where: _Places | None = None  # on the first hit: most texts have none
        # pieces of a secret that are not all of it (near-misses: ~50 us each to grow and
        # place, 1 MB of them took 12-60 s) are grown this many times; past that, the rest
        # of the text is hidden from the next one (fail closed, as ``Matcher.spans`` does)
        left = PLACES_BASE + len(text) // PIECES_PER
        grown = 0  # the squeezed text up to here is in a span already
        for hit in pattern.finditer(squeezed):
            where = where or _Places(text)
            start, end = hit.start(), hit.end()
            if end <= grown:  # the rest of a piece grown already
                continue
            marks = ""
            wholes = self._pieces.get(squeezed[start:end], ())
            if wholes and squeezed[start:end] not in wholes:
                left -= 1
                if left < 0:
                    yield where.of(start), len(text)
                    return
            for whole in wholes:
                start, end = _grown(squeezed, start, end, whole)
                marks += self._marks[whole]
            grown = end
            first, last = where.of(start), where.of(end - 1) + 1
            pad = last  # a base64 piece's padding after it goes with it
            while pad < len(text) and pad - last < 6 and text[pad] == "=":
                pad += 1
            last = pad
            if marks:  # over its marks, and blanks between them (``" ".join(secret)``)
                at = first
                while at and (text[at - 1] in marks or text[at - 1] == " "):
                    at -= 1
                first = min(first, at + len(text[at:first]) - len(text[at:first].lstrip()))
                at = last
                while at < len(text) and (text[at] in marks or text[at] == " "):
                    at += 1
                last = max(last, at - len(text[last:at]) + len(text[last:at].rstrip()))
            yield first, last


def _grown(squeezed: str, start: int, end: int, whole: str) -> tuple[int, int]:
    """``squeezed[start:end]``, a piece of the squeezed secret ``whole``, grown on both sides
    as far as the text goes on with the secret (a prefix, a suffix: all of it hidden)."""
    first, last = start, end
    at = whole.find(squeezed[start:end])
    while at >= 0:
        i, k = start, at
        while i > 0 and k > 0 and squeezed[i - 1] == whole[k - 1]:
            i, k = i - 1, k - 1
        j, k = end, at + end - start
        while j < len(squeezed) and k < len(whole) and squeezed[j] == whole[k]:
            j, k = j + 1, k + 1
        first, last = min(first, i), max(last, j)
        at = whole.find(squeezed[start:end], at + 1)
    return first, last


def _compile(forms: Iterable[str]) -> Any:
    import re2  # type: ignore[import-untyped]  # loaded by the Matcher already

    options = re2.Options()
    options.longest_match = True
    options.never_capture = True
    options.log_errors = False
    options.max_mem = 32 << 20
    return re2.compile("|".join(sorted({re2.escape(_encodable(f)) for f in forms})), options)


def _encodable(text: str) -> str:
    """``text`` with U+FFFD for each lone surrogate (RE2 takes UTF-8): the same length."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
    return text


@functools.cache
def _numbers() -> Any:
    """A line of a dump of numbers (od's octal, ``-A x`` or ``-A d`` offset, or hexdump's,
    then a number), or a list of numbers of 4 digits or more (``struct.unpack``: a tuple of
    words): RE2, linear (Python's ``re`` cost 0.8 ms on 40,000 characters of prose)."""
    import re2

    options = re2.Options()
    options.never_capture = True
    options.log_errors = False
    return re2.compile(r"(?m)^[0-9a-fA-F]{6,8}:?[ \t]+[-+]?[0-9a-fA-F]"
                       r"|\d{4,}, ?-?\d{4,}, ?-?\d{4,}", options)


class _Places:
    """Where the squeezed text's characters are in the text: a count per chunk of the text,
    then a walk inside one chunk (a hit in a long text costs a chunk, not the text)."""

    __slots__ = ("_before", "_kept", "_text")
    _CHUNK = 512

    def __init__(self, text: str) -> None:
        self._text = text
        chunks = [squeeze(text[at:at + self._CHUNK]) for at in range(0, len(text), self._CHUNK)]
        self._before = list(itertools.accumulate(map(len, chunks), initial=0))
        self._kept: dict[int, list[int]] = {}  # per chunk looked at: where its kept ones are

    def of(self, at: int) -> int:
        """The index in the text of the squeezed text's character ``at``."""
        k = bisect.bisect_right(self._before, at) - 1
        kept = self._kept.get(k)
        if kept is None:
            base = k * self._CHUNK
            kept = self._kept[k] = [base + i for i, c in enumerate(
                self._text[base:base + self._CHUNK]) if c not in _DROP]
        return kept[at - self._before[k]]
