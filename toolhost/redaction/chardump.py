"""Secrets spelled a byte at a time, spaced out: as characters (``od -c``, ``sed 's/./& /g'``)
or as numbers, decimal or octal (``od -tu1``, ``od -b``, a Python list of bytes, a Node
``Buffer`` in JSON: ``[107,101,121]``) or as 8 bits (``xxd -b``), their lines wrapped and
each maybe started by an offset (and, for bits, ended by the dump's ASCII column).

The ``Matcher``'s one RE2 pass finds a secret's first ``_TRIGGER`` bytes so spelled, each
followed by a separator (spaces; for numbers a comma and spaces too), or a line break (raw
or JSON-escaped) and an optional offset and spaces; ``longest`` follows the secret from
there, byte by byte. Only secrets of ``MIN_CHARS`` bytes or more (a shorter spaced run,
``a b c``, ``1, 2, 3``, is ordinary text), and as characters only printable ASCII ones with no
space (a space is a column of blanks no one can read back).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable

__all__ = ["MIN_CHARS", "SpacedChars"]

MIN_CHARS = 8
MIN_BITS = 4  # 32 binary digits in a row are no one's ordinary text
_TRIGGER = 4
_WRAP = r"[ ]*,?[ ]*(?:\r?\n|\\n)(?:[0-7]{7}|[0-9a-fA-F]{8}:?)?[ ]*"
_CHAR_SEP = rf"(?: {{1,4}}|{_WRAP}[ ]|['\"],[ ]?['\"])"  # or a list: ["s", "k"], ['s', 'k']
_NUMBER_SEP = rf"(?:,[ ]{{0,4}}| {{1,4}}|\.|{_WRAP})"  # 115.107: perl's sprintf("%vd")
_SEPS = {False: re.compile(_CHAR_SEP), True: re.compile(_NUMBER_SEP)}
# xxd -b: bytes as 8 bits, 6 to a line, the line's ASCII column last
_BITS_SEP = r"(?: {1,4}|[ ]{2,}[^\n]{0,32}?(?:\r?\n|\\n)(?:[0-9a-fA-F]{8}:)?[ ]*)"
_BITS = (re.compile(r" {1,4}"), re.compile(_BITS_SEP.split("|", 1)[1][:-1]))
_BREAK = re.compile(r"\r?\n|\\n")
# what may follow a byte's bits at the end of a piece of ``xxd -b`` inside a secret: a
# separator's start, the line's column, its break, the next line's offset, a byte's start
_BITS_PART = re.compile(r"(?:[ ]{0,4}|[ ]{2,}[^\n]{0,32}(?:\r?\n[0-9a-fA-F]{0,8}:?[ ]*)?)"
                        r"[01]{0,7}")
# what a cut may leave of a separator at a text's end, or before its first whole token
_PART = re.compile(r"[ ,]*(?:(?:\r?\n|\\n)(?:[0-9a-fA-F]{0,8}:?)?[ ]*)?|[ ,]*\\|[ ,]*\r")
_HEAD = re.compile(r"(?:\r?\n|\\?n)?[0-9a-fA-F]{0,8}:?[ ,]*"
                   r"|[^\s,]{0,3}[ ,]*(?:\r?\n|\\n)[0-9a-fA-F]{0,8}:?[ ]*")
# three bytes spelled alike just before a place: it is inside such a dump
_LEADS = {False: re.compile(r"(?:(?<![^\s])(?:\S|\\\S) {1,4}){3}\Z"),
          True: re.compile(r"(?:(?<!\d)\d{1,3}(?:,[ ]{0,4}| {1,4})){3}\Z")}
_EDGE = 1024  # how far from a cut edge a spelled secret is looked for


class SpacedChars:
    """Finds secrets spelled a byte at a time (see the module's text), for the ``Matcher``:
    its RE2 pass finds the ``triggers``, ``longest`` follows one from there."""

    def __init__(self, secrets: Iterable[str]) -> None:
        # (each byte's spelling, whether they are numbers), longest first
        self._spelled: list[tuple[tuple[str, ...], bool]] = []
        self._bits: list[tuple[bytes, tuple[str, ...]]] = []  # xxd -b: (bytes, their bits)
        for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
            raw = secret.encode("utf-8", "surrogatepass")
            if len(raw) >= MIN_BITS:
                self._bits.append((raw, tuple(f"{b:08b}" for b in raw)))
            if len(raw) < MIN_CHARS:
                continue
            if secret.isascii() and secret.isprintable() and " " not in secret:
                self._spelled.append((tuple(secret), False))
                # in another case or rot13 (``tr a-z A-Z | sed 's/./& /g'``): a run of single
                # characters spaced out is no word, and as such the secret is hidden already
                self._spelled += [(tuple(other), False) for other in dict.fromkeys((
                    secret.upper(), secret.lower(), codecs.encode(secret, "rot13")))
                    if other != secret]
            self._spelled.append((tuple(str(b) for b in raw), True))
            if not secret.isascii():  # code points: String.fromCharCode(112, 196, ...)
                self._spelled.append((tuple(str(ord(c)) for c in secret), True))
            self._spelled.append((tuple(f"{b:03o}" for b in raw), True))
        # by their first character: ``longest`` runs at every place a candidate covers
        self._by_first: dict[str, list[tuple[tuple[str, ...], bool]]] = {}
        for tokens, numbers in self._spelled:
            self._by_first.setdefault(tokens[0][:1], []).append((tokens, numbers))

    def __bool__(self) -> bool:
        return bool(self._spelled or self._bits)

    def triggers(self) -> set[str]:
        """RE2 patterns of each secret's first bytes, spaced out."""
        return {(_NUMBER_SEP if numbers else _CHAR_SEP).join(
                    re.escape(t) for t in tokens[:_TRIGGER]) for tokens, numbers in self._spelled
                } | {_BITS_SEP.join(bits[:2]) for _, bits in self._bits}  # 16 digits of 0
        # and 1 are rare enough; each more separator (its column) costs every build

    def open_tail(self, text: str, least: int = _TRIGGER) -> int:
        """The length of the longest end of ``text`` that spells the start of a secret so
        (``least`` of its bytes or more, or fewer after 3 bytes spelled the same way: a
        dump's line) and ends inside it: what a cut there shows of it, or what the next
        piece of a stream may still make one."""
        best = 0
        begin = max(len(text) - _EDGE, 0)
        for tokens, numbers in self._spelled:
            at = text.find(tokens[0], begin)
            while at >= 0 and len(text) - at > best:
                after = text[at + len(tokens[0]):at + len(tokens[0]) + 1]
                if (after and after not in " ,\n\r\\") or (numbers and at
                                                            and text[at - 1].isdigit()):
                    at = text.find(tokens[0], at + 1)  # not a spaced byte: a word goes on
                    continue
                fewer = 1 if _LEADS[numbers].search(text, max(at - 64, 0), at) else least
                if self._ends_inside(text, at, tokens, numbers, fewer):
                    best = len(text) - at
                    break
                at = text.find(tokens[0], at + 1)
            for k in range(len(tokens[0]) - 1, 0, -1):  # the text ends inside its first byte
                at = len(text) - k
                if k > best and text.endswith(tokens[0][:k]) and (not at or text[at - 1] in
                                                                   " ,[") \
                        and _LEADS[numbers].search(text, max(at - 64, 0), at):
                    best = k
        for _, bits in self._bits:  # xxd -b: a line (or a piece) ends inside the secret
            best = max(best, _bits_open(text, bits, begin))
        return best

    @staticmethod
    def _ends_inside(text: str, at: int, tokens: tuple[str, ...], numbers: bool,
                     least: int) -> bool:
        sep = _SEPS[numbers]
        pos = at + len(tokens[0])
        for i, token in enumerate(tokens[1:], 1):
            found = sep.match(text, pos)
            rest = text[found.end():] if found is not None else ""
            if found is not None and text.startswith(token, found.end()):
                pos = found.end() + len(token)
                continue
            if i < least:
                return False
            if found is not None and token.startswith(rest):
                return True  # the text ends in the separator's end or inside the token
            return _PART.fullmatch(text, pos) is not None
        return False  # all of it: a whole match, which ``longest`` finds

    def open_head(self, text: str, least: int = _TRIGGER) -> int:
        """The length of the longest start of ``text`` that spells the end of a secret so
        (``least`` of its last bytes or more; its first cut off). 0 if none."""
        best = 0
        places = [p for p in range(min(len(text), 24)) if _HEAD.fullmatch(text, 0, p)
                  or (p == 1 and not text[0].isspace())]  # the rest of a number or a char
        for tokens, numbers in self._spelled:
            sep = _SEPS[numbers]
            for p in places:
                for j in range(1, len(tokens) - least + 1):
                    if not text.startswith(tokens[j], p):
                        continue
                    pos = p + len(tokens[j])
                    for token in tokens[j + 1:]:
                        found = sep.match(text, pos)
                        if found is None or not text.startswith(token, found.end()):
                            break
                        pos = found.end() + len(token)
                    else:
                        if not (numbers and text[pos:pos + 1].isdigit()):
                            best = max(best, pos)
        return best

    def longest(self, text: str, at: int) -> int:
        """Where the longest secret spelled spaced out from ``at`` ends (``at`` if none)."""
        end = at
        for tokens, numbers in self._by_first.get(text[at:at + 1], ()):
            if not text.startswith(tokens[0], at):
                continue
            sep = _SEPS[numbers]
            pos = at + len(tokens[0])
            for token in tokens[1:]:
                found = sep.match(text, pos)
                if found is None or not text.startswith(token, found.end()):
                    break
                pos = found.end() + len(token)
            else:
                if not (numbers and text[pos:pos + 1].isdigit()):  # not 1071 for 107
                    end = max(end, pos)
        for raw, bits in self._bits if text[at:at + 1] in "01" else ():
            if text.startswith(bits[0], at):
                end = max(end, _follow_bits(text, at, raw, bits))
        return end


def _bits_open(text: str, bits: tuple[str, ...], begin: int) -> int:
    """The length of the end of ``text`` (from ``begin`` on) that spells the start of a
    secret as ``xxd -b`` does and ends inside it (its line's column and the next line's
    offset included): what a stream must hold until it is known whether the secret goes
    on. 0 if none."""
    at = text.find(bits[0], begin)
    while at >= 0:
        if not at or text[at - 1] in " \n:":  # a byte's bits start here
            pos = at + len(bits[0])
            for token in bits[1:]:
                found = next((m for sep in _BITS if (m := sep.match(text, pos)) is not None
                              and text.startswith(token, m.end())), None)
                if found is None:
                    break
                pos = found.end() + len(token)
            else:  # all of it: held while its line (its column) is not yet whole
                if len(text) - pos <= 64 and not _BREAK.search(text, pos):
                    return len(text) - at
                pos = -1
            if pos >= 0 and _BITS_PART.fullmatch(text, pos):
                return len(text) - at
        at = text.find(bits[0], at + 1)
    if not text or text[-1] not in "01":
        return 0
    for k in range(len(bits[0]) - 1, 0, -1):  # the text ends inside its first byte
        at = len(text) - k
        if text.endswith(bits[0][:k]) and (not at or text[at - 1] in " :\n"):
            return k
    return 0


def _follow_bits(text: str, at: int, raw: bytes, bits: tuple[str, ...]) -> int:
    """Where ``raw`` spelled as ``xxd -b`` writes it, from ``at``, ends (``at`` if it is not
    all there): after its last byte's bits, or after its characters in the ASCII column of
    its last line (the column shows them too: ``key=sk``)."""
    pos = at + len(bits[0])
    on_line = 1  # of its bytes on the line it ends on
    for token in bits[1:]:
        found = next((m for sep in _BITS if (m := sep.match(text, pos)) is not None
                      and text.startswith(token, m.end())), None)
        if found is None:
            return at
        on_line = 1 if _BREAK.search(text, pos, found.end()) else on_line + 1
        pos = found.end() + len(token)
    if text[pos:pos + 1] in ("0", "1"):
        return at  # more bits: not a byte's end
    shown = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in raw[len(raw) - on_line:])
    line_end = _BREAK.search(text, pos, min(len(text), pos + 128))
    stop = line_end.start() if line_end else min(len(text), pos + 128)
    column = text.find(shown, pos, stop)
    return column + len(shown) if column >= 0 else pos
