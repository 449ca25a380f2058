"""A secret under a simple cipher: ROT47, a Caesar shift, Atbash, XOR with a short key.

Each of these has a small, fixed set of outcomes per secret, so none needs a pass of its own:

- ROT47, Atbash and the 25 Caesar shifts of a secret's letters (digits and punctuation kept, as
  ``tr a-z d-za-c`` or a shift cipher writes them), each also reversed, are literal forms
  (``cipher_forms``), found with the secret's other literal forms in the redactor's one pass.
  Only for a secret of ``FOLD_MIN`` characters or more: a shifted short word is another word.
- XOR with one byte (``bytes(b ^ k for b in secret)``, then hex or base64, as a script that
  "hides" a token writes it) has 255 outcomes, each in several encodings. Instead of building
  them, the XOR of each byte with the next (which any one-byte key leaves as it is) is looked
  for in decoded data (``Xored``): one RE2 pass over the bytes, whatever the key.
- XOR with a repeating key of 2 to 16 bytes (``b"\\xde\\xad\\xbe\\xef"``, a word, a
  passphrase): the XOR of each byte with the one ``lag`` bytes on (``LAGS``: 3 to 16) is
  the same under any key whose length divides the lag (4: keys of 1, 2 and 4 bytes; 3: of 1
  and 3; 16: of 8 and 16), at any phase: the secret is known, so its steps are too. Looked
  for the same way, one pass of C-speed big-number XOR per lag, for a secret of
  ``lag + MIN_XOR - 1`` bytes or more. A longer key is not (a key as long as the secret is
  a one-time pad, which no finder can tell from noise).
"""

from __future__ import annotations

import functools
import string
from collections.abc import Iterable, Iterator
from typing import Any

from toolhost.redaction.spell import FOLD_MIN

__all__ = ["LAGS", "MAX_KEY", "MAX_SHAPED", "MIN_XOR", "Shifted", "Xored", "cipher_forms"]

MIN_XOR = 8  # bytes: a shorter secret's run of differences could be anyone's data
MAX_KEY = 16  # bytes of a repeating XOR key (Vigenère: letters) found by its period
# the key lengths each lag covers: 1; 1 and 3; 1, 2 and 4; then each length to MAX_KEY
LAGS = (1, 3, 4, *range(5, MAX_KEY + 1))
_ROT47 = str.maketrans("".join(chr(c) for c in range(33, 127)),
                       "".join(chr(33 + (c - 33 + 47) % 94) for c in range(33, 127)))
_LOWER, _UPPER = string.ascii_lowercase, string.ascii_uppercase
_ATBASH = str.maketrans(_LOWER + _UPPER, _LOWER[::-1] + _UPPER[::-1])  # a <-> z, b <-> y
_SHIFTS = [str.maketrans(_LOWER + _UPPER, _LOWER[k:] + _LOWER[:k] + _UPPER[k:] + _UPPER[:k])
           for k in range(1, 26)]


def cipher_forms(secret: str) -> set[str]:
    """``secret`` in ROT47, under each Caesar shift of its letters and under Atbash (``tr
    a-z zyx...a``), each also reversed
    (none for a secret shorter than ``FOLD_MIN``, or one whose letters are too few to tell)."""
    if len(secret) < FOLD_MIN:
        return set()
    found = {secret.translate(_ROT47)}
    if sum(c in string.ascii_letters for c in secret) >= 4:
        found |= {secret.translate(shift) for shift in _SHIFTS} | {secret.translate(_ATBASH)}
    return (found | {f[::-1] for f in found}) - {secret}


def _steps(data: bytes, lag: int = 1, number: int | None = None) -> bytes:
    """Each byte of ``data`` XORed with the one ``lag`` bytes on (``lag`` bytes fewer): the
    same for ``data`` XORed with any key repeating every ``lag`` bytes. (``number``: ``data``
    as a big-endian number, made once for every lag.)"""
    if len(data) <= lag:
        return b""
    if number is None:
        number = int.from_bytes(data, "big")
    return (number ^ (number >> 8 * lag)).to_bytes(len(data), "big")[lag:]


class Xored:
    """Where a secret XORed with a key of 1 to ``MAX_KEY`` bytes, repeated, is in some bytes
    (``spans``)."""

    __slots__ = ("_heads", "_patterns", "_raws")

    def __init__(self, secrets: Iterable[str]) -> None:
        steps: dict[int, set[bytes]] = {lag: set() for lag in LAGS}
        self._raws: set[bytes] = set()
        for secret in secrets:
            raw = secret.encode("utf-8", "surrogatepass")
            if len(set(raw)) < 4:  # a secret of few distinct bytes ("aaaaaaaa")
                continue
            for lag in LAGS:
                # its steps: MIN_XOR - 1 at least, of 4 values at least (a secret repeating
                # every 4 bytes has steps of zeros at lag 4, as any such run has)
                # and every byte of it in a step (2 x lag bytes at least): else its middle
                # is free, and a near-miss with its middle changed passes for it
                ahead = _steps(raw, lag)
                if (len(ahead) >= max(MIN_XOR - 1, lag) and len(set(ahead)) >= 4):
                    steps[lag].add(ahead)
                    self._raws.add(raw)
        self._patterns: list[tuple[int, Any]] = []
        # the first steps of a few secrets: most decoded runs hold none, found at C speed
        # (an RE2 call costs ~40 us from Python: 16,000 runs of near-misses doubled the pass)
        count = sum(len(found) for found in steps.values())
        self._heads = ({lag: {s[:MIN_XOR - 1] for s in found} for lag, found in steps.items()}
                       if count <= 4 * len(LAGS) else None)
        if count:
            import re2  # type: ignore[import-untyped]  # loaded by the Matcher already

            options = re2.Options()
            options.encoding = re2.Options.Encoding.LATIN1  # bytes, any of them
            options.never_capture = True
            options.longest_match = True
            options.log_errors = False
            self._patterns = [(lag, re2.compile(b"|".join(sorted(re2.escape(s)
                                                                 for s in found)), options))
                              for lag, found in steps.items() if found]

    def __bool__(self) -> bool:
        return bool(self._patterns)

    def spans(self, data: bytes) -> list[tuple[int, int]]:
        """Where in ``data`` a secret XORed with a repeating key is (not the key 0: the
        secret itself, which its other finders hide where it is)."""
        if not self._patterns or len(data) < MIN_XOR:
            return []
        found = []
        number = int.from_bytes(data, "big")
        for lag, pattern in self._patterns:
            steps = _steps(data, lag, number)
            if self._heads is not None and not any(head in steps
                                                   for head in self._heads[lag]):
                continue
            found += [(a, b) for a, b in ((hit.start(), hit.end() + lag)
                                          for hit in pattern.finditer(steps))
                      if data[a:b] not in self._raws]
        return sorted(found)


_SHAPE = str.maketrans(_LOWER + _UPPER + string.digits, "a" * 52 + "0" * 10)  # any case
MAX_SHAPED = 4096  # places one text's shapes are tried at (then no more: see ``Shifted``)
MAX_PERIOD = MAX_KEY  # letters of a Vigenère key
MIN_CHECKED = 8  # letters a key is checked by, beyond its own
_NO_LETTERS = str.maketrans("", "", string.ascii_letters)


@functools.cache
def _rotation(letters: int, digits: int) -> dict[int, int]:
    """``str.translate``'s table for letters shifted by ``letters``, digits by ``digits``."""
    return str.maketrans(_LOWER + _UPPER + string.digits,
                         _LOWER[letters:] + _LOWER[:letters] + _UPPER[letters:]
                         + _UPPER[:letters] + string.digits[digits:] + string.digits[:digits])


class Shifted:
    """Where a secret is with its letters and its digits each rotated (``spans``): rot13
    with rot5 of the digits (``rot18``), ``tr a-z0-9 d-za-c5-90-4``, any of the 26 x 10
    pairs of shifts, the secret also reversed; and the letters under a Vigenère key of 2 to
    ``MAX_PERIOD`` letters (counted over the letters or over every character), with 8 letters
    at least beyond the key's to check it by. Built for the secrets of ``FOLD_MIN``
    characters or more with 4 letters and 2 digits at least (a shift of only the letters is
    a literal form, ``cipher_forms``), in any case. Found by shape: each letter as ``a`` and
    each digit as ``0`` (``str.translate``, C speed), the secret's shape looked for in the
    text's, and each place it is at checked in Python against the pair of shifts its first
    letter and first digit give. At most ``MAX_SHAPED`` places plus one per 32 characters
    are checked per text; past that the places left are hidden unread (fail closed)."""

    __slots__ = ("_by_head", "_by_shape", "_pattern")  # (the shapes' forms, by shape)

    def __init__(self, secrets: Iterable[str]) -> None:
        self._by_shape: dict[str, list[str]] = {}
        for secret in secrets:
            if (len(secret) >= FOLD_MIN and secret.isascii()
                    and sum(c in string.ascii_letters for c in secret) >= 4
                    and sum(c in string.digits for c in secret) >= 2):
                for form in {secret, secret[::-1]}:
                    self._by_shape.setdefault(form.translate(_SHAPE), []).append(form)
        # the lengths of the shapes by their first characters: a place where a head is gets
        # one look-up per length (a head such as "aaaaaaaa" starts many shapes)
        self._by_head: dict[str, set[int]] = {}
        for pattern in self._by_shape:
            self._by_head.setdefault(pattern[:FOLD_MIN], set()).add(len(pattern))
        self._pattern: Any = None
        if len(self._by_head) > 8:  # many heads: one RE2 pass, not a find per shape (the
            # shapes themselves, 2,000 words over three letters, outgrew RE2's DFA memory)
            import re2  # loaded by the Matcher already

            options = re2.Options()
            options.never_capture = True
            options.log_errors = False
            self._pattern = re2.compile("|".join(re2.escape(head)
                                                 for head in sorted(self._by_head)), options)

    def __bool__(self) -> bool:
        return bool(self._by_shape)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where a secret is in ``text`` under a pair of shifts (not both 0: the secret)."""
        if not self._by_shape or not text.isascii():
            return []
        shape = text.translate(_SHAPE)
        left = MAX_SHAPED + len(text) // 32
        found = []
        for at, pattern in self._places(shape):
            left -= 1
            end = at + len(pattern)
            if left < 0 or any(_shifted(text[at:end], form) for form in self._by_shape[pattern]):
                found.append((at, end))
        return sorted(found)

    def _places(self, shape: str) -> Iterator[tuple[int, str]]:
        """Each place a secret's shape is at in ``shape`` (overlapping ones too), with it."""
        if self._pattern is None:
            for pattern in self._by_shape:
                at = shape.find(pattern)
                while at >= 0:
                    yield at, pattern
                    at = shape.find(pattern, at + 1)
            return
        data = shape.encode("ascii")
        hit = self._pattern.search(data)
        while hit is not None:  # every shape that starts there, then on (overlapping too)
            at = hit.start()
            for length in self._by_head.get(shape[at:at + FOLD_MIN], ()):
                if shape[at:at + length] in self._by_shape:
                    yield at, shape[at:at + length]
            hit = self._pattern.search(data, at + 1)


def _shifted(seen: str, form: str) -> bool:
    """Whether ``seen`` is ``form`` with its letters and digits shifted (not both by 0): the
    digits all by one shift, the letters by one shift or by a key of ``MAX_PERIOD`` letters
    at most, repeated (Vigenère), counted over the letters or over every character."""
    letter = next(i for i, c in enumerate(form) if c in string.ascii_letters)
    digit = next(i for i, c in enumerate(form) if c in string.digits)
    letters = (ord(seen[letter].lower()) - ord(form[letter].lower())) % 26
    digits = (ord(seen[digit]) - ord(form[digit])) % 10
    lower = seen.lower()
    if form.lower().translate(_rotation(letters, digits)) == lower:
        return (letters or digits) != 0  # in any case, as the secret's other forms of 8+
    kept = form.translate(_rotation(0, digits)).translate(_NO_LETTERS)
    if kept != lower.translate(_NO_LETTERS):
        return False  # (a digit or punctuation not as the one shift of the digits says)
    places = [i for i, c in enumerate(form) if c in string.ascii_letters]
    shifts = [(ord(lower[i]) - ord(form[i].lower())) % 26 for i in places]
    for period in range(2, MAX_PERIOD + 1):
        if len(shifts) - period < MIN_CHECKED:  # too few letters to tell a key from chance
            break
        if all(shifts[n] == shifts[n % period] for n in range(len(shifts))):
            return True  # the key counted over the letters
        key: dict[int, int] = {}
        if all(key.setdefault(i % period, d) == d for i, d in zip(places, shifts,
                                                                 strict=True)):
            return True  # over every character
    return False
