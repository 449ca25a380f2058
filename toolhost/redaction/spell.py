"""How a secret may be spelled on its way out: one regex per secret, each character in any of
its encodings, so one pass finds the secret however much of it a program escaped.

A secret is first turned into its *views* (the same text as other programs may hold it):
itself, its NFC and NFD normalisations, and each of those as UTF-8 bytes read as Latin-1 or
Windows-1252 (mojibake: how an HTTP server decodes a header). Each character of a view may
then appear as

- itself (and, for secrets of ``FOLD_MIN`` characters or more, in upper or lower case);
- a backslash escape, with any number of backslashes before it (JSON, JSON inside JSON,
  ``repr``): ``\\u00e9`` with either case of hex digits, a surrogate pair, ``\\xe9``,
  ``\\/``, ``\\"``, ``\\n``, ``\\t``;
- percent-encoded, each UTF-8 byte (or the Latin-1 byte) as ``%hh`` in either case, maybe
  encoded twice (``%25hh``), ``+`` for a space;
- an HTML character reference: named (``&amp;``, ``&eacute;``), decimal or hex, with or
  without leading zeros and the closing ``;``.

All secrets of a config, and their literal forms (base64, hex), are one RE2 pattern matched in
one pass, in time linear in the text (``Matcher``).
"""

from __future__ import annotations

import contextlib
import functools
import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolhost.redaction.chardump import SpacedChars
    from toolhost.redaction.hexdump import SpacedHex

__all__ = ["FOLD_MIN", "LONG", "TRIGGER", "Matcher", "spellings", "view_patterns", "views"]

# Secrets this long or longer are matched whatever the case of their letters (a shorter one
# would hide ordinary words); see docs/secrets.md.
FOLD_MIN = 8
# Past this length (a PEM key, a certificate) a secret's characters are spelled raw, as JSON
# or as a line break of another kind only: the regex stays small enough to build at once.
LONG = 256



@functools.cache
def _entity_names() -> dict[str, list[str]]:
    # character -> its HTML named references; built with the first secret, not at import
    # (every command imports this module; ~2,000 entities cost a start-up millisecond)
    import html.entities

    names: dict[str, list[str]] = {}
    for name, char in html.entities.html5.items():
        if len(char) == 1 and name.endswith(";"):
            names.setdefault(char, []).append(name[:-1])
    return names


_SHORT = {'"': '"', "\\": "\\", "/": "/", "\n": "n", "\r": "r", "\t": "t", "\b": "b",
          "\f": "f", "'": "'"}


def views(secret: str) -> set[str]:
    """The secret as other programs may hold it (see the module docstring); bounded: 9 at
    most, one for an ASCII secret."""
    found: set[str] = set()
    for text in {secret, unicodedata.normalize("NFC", secret),
                 unicodedata.normalize("NFD", secret)}:
        found.add(text)
        data = text.encode("utf-8", "surrogatepass")
        for codec in ("latin-1", "cp1252"):
            with contextlib.suppress(UnicodeDecodeError):  # cp1252 leaves five bytes out
                found.add(data.decode(codec))
    return found


def _pieces(char: str, fold: bool, long: bool) -> list[tuple[str, str]]:
    """Each spelling of ``char`` as (its first character, a regex for the rest)."""
    return [(first, rest) for first, rest, _ in spellings(char, fold, long)]


def _upto(text: str, fold: bool = False) -> str:
    """A regex for any start of the literal ``text``, the empty one too."""
    out = ""
    for char in reversed(text):
        out = f"(?:{re.escape(char)}{out})?"
    return f"(?i:{out})" if fold and out else out


def _sequence(atoms: list[tuple[str, str]]) -> str:
    """A regex for any start of the atoms' (full, start-of) regexes one after another."""
    out = ""
    for full, start in reversed(atoms):
        out = f"(?:{start}|{full}{out})" if out else start
    return out


def spellings(char: str, fold: bool, long: bool) -> list[tuple[str, str, str]]:
    """Each spelling of ``char`` as (its first character, a regex for the rest, a regex for
    any start of the rest, the empty one and the whole one too): the last is how a text cut
    inside a spelled secret is found (``toolhost.redaction.tail``)."""
    variants = {char}
    if fold:
        variants |= {v for v in (char.upper(), char.lower()) if len(v) == 1}
    out: list[tuple[str, str, str]] = []
    codes = sorted({ord(v) for v in variants})
    escape: list[tuple[str, str]] = []
    if char in _SHORT:
        escape.append((re.escape(_SHORT[char]), _upto(_SHORT[char])))
    if char == "\n":
        out.append(("\r", "\n", "\n?"))
        escape.append((r"r\\+n", r"(?:r(?:\\+n?)?)?"))
    for n in codes:
        if n < 0x10000:
            escape.append((f"(?i:u{n:04x})", _upto(f"u{n:04x}", True)))
        else:
            high, low = 0xD800 + ((n - 0x10000) >> 10), 0xDC00 + ((n - 0x10000) & 0x3FF)
            escape.append((f"(?i:u{high:04x}\\\\+u{low:04x}|U{n:08x})",
                           f"(?:(?i:u{high:04x})\\\\+{_upto(f'u{low:04x}', True)}|"
                           f"{_upto(f'u{high:04x}', True)}|{_upto(f'U{n:08x}', True)})"))
        if n < 0x20 or 0x7F <= n < 0x100:
            escape.append((f"(?i:x{n:02x})", _upto(f"x{n:02x}", True)))
        if n < 0x20 or n >= 0x7F:  # octal, a byte at a time: sed's l, bash's printf %q
            data = chr(n).encode("utf-8", "surrogatepass")
            escape.append(("\\\\+".join(f"{b:03o}" for b in data), _sequence(
                [item for i, b in enumerate(data)
                 for item in ([(r"\\+", r"\\*")] if i else []) + [(f"{b:03o}",
                                                                   _upto(f"{b:03o}"))]])))
    if char.isascii() and not char.isalnum() and char not in _SHORT:
        # a shell's backslash before punctuation or a space: bash's printf %q, set -x
        escape.append((re.escape(char), _upto(char)))
    out.append(("\\", r"\\*(?:" + "|".join(f for f, _ in escape) + ")",
                r"\\*(?:" + "|".join(s for _, s in escape) + ")"))
    if char == "'":  # inside a shell's single quotes: 'it'\''s', 'it'"'"'s'
        out.append(("'", r"(?:\\''|\"'\"')", r"(?:\\(?:'(?:')?)?|\"(?:'(?:\"(?:')?)?)?)?"))
    plain = [(v, "", "") for v in sorted(variants)]  # last: a longer spelling is tried first
    if long:
        return out + plain
    percent, entity = [], []
    twice = ("(?:25)?", "(?:25?)?")
    for n in codes:
        data = chr(n).encode("utf-8", "surrogatepass")
        atoms = [twice]
        for i, b in enumerate(data):
            atoms += [("%", "%?"), twice] if i else []
            atoms.append((f"(?i:{b:02x})", _upto(f"{b:02x}", True)))
        percent.append(("%(?:25)?".join(f"{b:02x}" for b in data), _sequence(atoms)))
        if 0x80 <= n < 0x100:
            percent.append((f"{n:02x}", _sequence([twice, (f"(?i:{n:02x})",
                                                           _upto(f"{n:02x}", True))])))
        entity.append((f"#(?:0*{n}|[xX]0*(?i:{n:x}));?",
                       _sequence([("#", "#?"), (f"(?:0*{n}|[xX]0*(?i:{n:x}))",
                                                f"(?:0*{_upto(str(n))}|(?:[xX]0*"
                                                f"{_upto(f'{n:x}', True)})?)"),
                                  (";?", ";?")])))
        entity += ((re.escape(name) + ";?", _upto(name + ";"))
                   for name in _entity_names().get(chr(n), ()))
    # the longest first: a case variant's one Latin-1 byte (%C3 for Ã) must not end a
    # match that the UTF-8 bytes of the character itself (%C3%A3 for ã) go on
    out.append(("%", "(?:25)?(?i:" + "|".join(sorted((f for f, _ in percent), key=len,
                                                        reverse=True)) + ")",
                "(?:" + "|".join(s for _, s in percent) + ")"))
    out.append(("&", "(?:" + "|".join(f for f, _ in entity) + ")",
                "(?:" + "|".join(s for _, s in entity) + ")"))
    if char == " ":
        out.append(("+", "", ""))
    return out + plain


def _group(pieces: Iterable[tuple[str, str]]) -> str:
    return "(?:" + "|".join(re.escape(first) + rest for first, rest in pieces) + ")"


@functools.lru_cache(maxsize=4096)
def _spelled(char: str, fold: bool, long: bool) -> str:
    """A regex for ``char`` in any of its spellings: built once per character (1,000 secrets
    spelled the same few dozen characters 12,000 times over, a third of their load)."""
    return _group(_pieces(char, fold, long))


def view_patterns(secret: str) -> list[tuple[str, str]]:
    """Each view of ``secret`` shorter than ``LONG``, and a regex for it: every character in
    any of its spellings."""
    return [(view, "".join(_spelled(_encodable(c), len(view) >= FOLD_MIN, False)
                           for c in view))
            for view in sorted(views(secret), key=len, reverse=True) if 0 < len(view) < LONG]


def _prefix_patterns(secret: str) -> list[str]:
    found = []
    for view in views(secret):
        if view:
            long, fold = len(view) >= LONG, len(view) >= FOLD_MIN
            found.append("".join(_spelled(_encodable(c), fold, long)
                                 for c in view[:TRIGGER]))
    return found


def _encodable(text: str) -> str:
    # RE2 matches UTF-8: a lone surrogate is matched as U+FFFD, in patterns and in text alike
    return _SURROGATE.sub("\ufffd", text)


class Matcher:
    """A compiled set of secrets, in two steps that keep the cost per text linear and small.

    RE2 finds *candidates*: the first ``TRIGGER`` characters of a secret in any spelling, or of
    one of its literal forms (a small program, one pass in C). Only where one is found are the
    whole secrets tried, anchored there: Python regexes (built on first use), each character in
    any spelling, and a trie of the literal forms; the longest match wins."""

    def __init__(self, secrets: Iterable[str], literal: Iterable[str],
                 spaced: SpacedHex | None = None, chars: SpacedChars | None = None,
                 dumped: tuple[SpacedHex, SpacedChars] | None = None,
                 rare: Iterable[str] = ()) -> None:
        import re2  # type: ignore[import-untyped]  # ~2.5 ms, once a config has secrets

        self._secrets = sorted({s for s in secrets if s}, key=len, reverse=True)
        literal = {w for w in literal if w}
        rare = {w for w in rare if w} - literal
        self._literal: dict[str, list[str]] = {}  # by first character, longest first
        for word in sorted(literal | rare, key=len, reverse=True):
            self._literal.setdefault(word[0], []).append(word)
        # per character a view's spelling may start with: the views, on first use
        self._views: dict[str, list[re.Pattern[str]]] | None = None
        trigger = {p for s in self._secrets for p in _prefix_patterns(s)}
        trigger |= {re.escape(_encodable(w[:TRIGGER])) for w in literal}
        # the rare forms (encodings, ciphers: ~140 a secret, random-looking) by a shorter
        # start: their programs were half of a redactor's memory and build time (1,000
        # secrets: 150 MB), and fewer distinct starts make fewer, smaller programs
        trigger |= {re.escape(_encodable(w[:RARE_TRIGGER])) for w in rare}
        literal |= rare
        self._spaced = spaced  # hex dumps: their start is a trigger, then followed in Python
        trigger |= spaced.triggers() if spaced is not None else set()
        self._chars = chars if chars else None  # od -c: spaced characters, followed alike
        trigger |= chars.triggers() if self._chars is not None and chars else set()
        # dumps of an encoding of a secret (``base64 | xxd``): found whole, never looked
        # for at a cut's edge (ordinary spaced text there looked like their start)
        self._dumped = dumped
        if dumped is not None:
            trigger |= dumped[0].triggers() | (dumped[1].triggers() if dumped[1] else set())
        options = re2.Options()
        options.longest_match = True
        options.never_capture = True
        options.log_errors = False
        options.max_mem = _MAX_MEM
        # one program per ~15 secrets: one program for them all outgrew RE2's DFA memory
        # past ~20 secrets and fell back to its slow engine (100 secrets: 4.7 s per MB of
        # prose; in programs of ``_CHUNK`` characters of pattern, one pass each: 0.02 s)
        self._triggers = [re2.compile("|".join(chunk), options)
                          for chunk in _chunks(sorted(trigger))]
        # No spelling of a secret is shorter than its shortest view or literal form: a text
        # shorter than that (most tool results) holds none, and skips the engine (~1.5 µs)
        # the farthest a secret's spelling or form can run from its start (a dump's lines,
        # padded escapes: ``REACH`` characters per character of the secret)
        self._reach = REACH * max([len(s) for s in self._secrets] + [len(w) for w in literal])
        self._shortest = min([len(v) for s in self._secrets for v in views(s)]
                             + [len(w) for w in literal])

    def spans(self, text: str, tries: list[int] | None = None) -> Iterator[tuple[int, int]]:
        """Where a secret is in ``text``, left to right, as (start, end). ``tries``: the
        places left to try, shared by the calls for the pieces of one text (``budget``);
        by default ``text``'s own."""
        if len(text) < self._shortest:
            return
        probe = text
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate: the U+FFFD copy has the same spans
                probe = _encodable(text)
        pos = 0
        # each place tried costs ~15 us of Python: a text made of near-misses of a secret's
        # start (1 MB of them took 12 s) gets this many tries, then each further candidate
        # is hidden unread, with as much after it as a spelled secret could reach
        left = self.budget(text) if tries is None else tries
        tried = 0  # places before this were tried (the programs' candidates may overlap)
        for candidate in self._candidates(probe):
            # a secret may start anywhere inside the candidate (the trigger reports the
            # longest one at its leftmost start): each place is tried once, so the work stays
            # linear in the text however many candidates fail
            at, stop = max(candidate.start(), pos, tried), candidate.end()
            if at >= stop:
                continue
            tried = stop
            if left[0] <= 0:
                pos = min(len(text), at + self._reach)
                yield at, pos
                continue
            while at < stop:
                left[0] -= 1
                end = self._longest(text, at)
                if end > at:
                    yield at, end
                    pos = at = end
                else:
                    at += 1

    def _candidates(self, probe: str) -> Iterator[Any]:
        """The trigger programs' matches in ``probe``, by their start."""
        if len(self._triggers) == 1:
            return self._triggers[0].finditer(probe)  # type: ignore[no-any-return]
        import heapq

        return heapq.merge(*(t.finditer(probe) for t in self._triggers),
                           key=lambda match: match.start())

    @staticmethod
    def budget(text: str) -> list[int]:
        """The places ``text`` (with every piece read of it: its lines joined) may be tried
        at, for ``spans``."""
        return [PLACES_BASE + len(text) // PLACES_PER]

    def _longest(self, text: str, start: int) -> int:
        end = start
        first = text[start]
        for word in self._literal.get(first, ()):
            if text.startswith(word, start):
                end = start + len(word)
                break
        if self._views is None:  # (a view of LONG characters or more: its literal forms)
            self._views = {}
            for secret in self._secrets:
                for view, pattern in view_patterns(secret):
                    compiled = re.compile(pattern)
                    for char in {c for c, _ in _pieces(view[0], len(view) >= FOLD_MIN, False)}:
                        self._views.setdefault(char, []).append(compiled)
        for spelled in self._views.get(first, ()):
            match = spelled.match(text, start)
            if match and match.end() > end:
                end = match.end()
        if self._spaced is not None:
            end = max(end, self._spaced.longest(text, start))
        if self._chars is not None:
            end = max(end, self._chars.longest(text, start))
        if self._dumped is not None:
            end = max(end, self._dumped[0].longest(text, start))
            if self._dumped[1]:
                end = max(end, self._dumped[1].longest(text, start))
        return end

    def dump_tail(self, text: str, least: int = 1) -> int:
        """How much of the end of ``text`` starts a secret's hex dump it does not finish
        (``SpacedHex.open_tail``); 0 without dumps to look for."""
        end = self._spaced.open_tail(text, least) if self._spaced is not None else 0
        if self._chars is not None:  # characters spaced out too, from 4 of them
            end = max(end, self._chars.open_tail(text))
        return end

    def dump_head(self, text: str, least: int = 2) -> int:
        """How much of the start of ``text`` ends a secret's hex dump whose start was cut off
        (``SpacedHex.open_head``); 0 without dumps to look for."""
        start = self._spaced.open_head(text, least) if self._spaced is not None else 0
        if self._chars is not None:
            start = max(start, self._chars.open_head(text))
        return start

    def sub(self, text: str, mask: str) -> str:
        """``text`` with every secret replaced by ``mask``."""
        if len(text) < self._shortest:
            return text
        out: list[str] = []
        pos = 0
        for start, end in self.spans(text):
            out += (text[pos:start], mask)
            pos = end
        if not pos:
            return text
        out.append(text[pos:])
        return "".join(out)


TRIGGER = 12  # characters of a secret that make it a candidate
RARE_TRIGGER = 8  # characters of a rare form that make it a candidate
PLACES_BASE = 4096  # places a text gets tried at, at least (then one per PLACES_PER chars)
PLACES_PER = 32
REACH = 256  # characters of text one character of a secret is spelled over, at most
_SURROGATE = re.compile("[\ud800-\udfff]")
_MAX_MEM = 32 << 20
_CHUNK = 32_000  # characters of trigger pattern per RE2 program (~15 ASCII secrets)


def _chunks(patterns: list[str]) -> Iterator[list[str]]:
    """``patterns`` in runs of about ``_CHUNK`` characters (one at least)."""
    run: list[str] = []
    size = 0
    for pattern in patterns:
        if run and size + len(pattern) > _CHUNK:
            yield run
            run, size = [], 0
        run.append(pattern)
        size += len(pattern) + 1
    if run or not patterns:
        yield run
