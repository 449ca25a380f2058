"""A secret under a simple cipher: ROT47, a Caesar shift of its letters, XOR with one byte.

Each of these has a small, fixed set of outcomes per secret, so none needs a pass of its own:

- ROT47 and the 25 Caesar shifts of a secret's letters (digits and punctuation kept, as
  ``tr a-z d-za-c`` or a shift cipher writes them), each also reversed, are literal forms
  (``cipher_forms``), found with the secret's other literal forms in the redactor's one pass.
  Only for a secret of ``FOLD_MIN`` characters or more: a shifted short word is another word.
- XOR with one byte (``bytes(b ^ k for b in secret)``, then hex or base64, as a script that
  "hides" a token writes it) has 255 outcomes, each in several encodings. Instead of building
  them, the XOR of each byte with the next (which any one-byte key leaves as it is) is looked
  for in decoded data (``Xored``): one RE2 pass over the bytes, whatever the key.
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from typing import Any

from toolhost.redaction_spell import FOLD_MIN

__all__ = ["MIN_XOR", "Xored", "cipher_forms"]

MIN_XOR = 8  # bytes: a shorter secret's run of differences could be anyone's data
_ROT47 = str.maketrans("".join(chr(c) for c in range(33, 127)),
                       "".join(chr(33 + (c - 33 + 47) % 94) for c in range(33, 127)))
_LOWER, _UPPER = string.ascii_lowercase, string.ascii_uppercase
_SHIFTS = [str.maketrans(_LOWER + _UPPER, _LOWER[k:] + _LOWER[:k] + _UPPER[k:] + _UPPER[:k])
           for k in range(1, 26)]


def cipher_forms(secret: str) -> set[str]:
    """``secret`` in ROT47 and under each Caesar shift of its letters, each also reversed
    (none for a secret shorter than ``FOLD_MIN``, or one whose letters are too few to tell)."""
    if len(secret) < FOLD_MIN:
        return set()
    found = {secret.translate(_ROT47)}
    if sum(c in string.ascii_letters for c in secret) >= 4:
        found |= {secret.translate(shift) for shift in _SHIFTS}
    return (found | {f[::-1] for f in found}) - {secret}


def _steps(data: bytes) -> bytes:
    """Each byte of ``data`` XORed with the next one (one byte fewer): the same for ``data``
    XORed with any one byte."""
    if len(data) < 2:
        return b""
    number = int.from_bytes(data, "big")
    return (number ^ (number >> 8)).to_bytes(len(data), "big")[1:]


class Xored:
    """Where a secret XORed with one byte is in some bytes (``spans``)."""

    __slots__ = ("_heads", "_pattern", "_raws")

    def __init__(self, secrets: Iterable[str]) -> None:
        steps = set()
        self._raws: set[bytes] = set()
        for secret in secrets:
            raw = secret.encode("utf-8", "surrogatepass")
            # a secret of few distinct bytes ("aaaaaaaa") has steps any run of one byte has
            if len(raw) >= MIN_XOR and len(set(raw)) >= 4:
                steps.add(_steps(raw))
                self._raws.add(raw)
        self._pattern: Any = None
        # the first steps of a few secrets: most decoded runs hold none, found at C speed
        # (an RE2 call costs ~40 us from Python: 16,000 runs of near-misses doubled the pass)
        self._heads = {s[:MIN_XOR - 1] for s in steps} if len(steps) <= 8 else None
        if steps:
            import re2  # type: ignore[import-untyped]  # loaded by the Matcher already

            options = re2.Options()
            options.encoding = re2.Options.Encoding.LATIN1  # bytes, any of them
            options.never_capture = True
            options.longest_match = True
            options.log_errors = False
            self._pattern = re2.compile(b"|".join(sorted(re2.escape(s) for s in steps)),
                                        options)

    def __bool__(self) -> bool:
        return self._pattern is not None

    def spans(self, data: bytes) -> list[tuple[int, int]]:
        """Where in ``data`` a secret XORed with one byte is (not the key 0: the secret
        itself, which its other finders hide where it is)."""
        if self._pattern is None or len(data) < MIN_XOR:
            return []
        steps = _steps(data)
        if self._heads is not None and not any(head in steps for head in self._heads):
            return []
        return [(a, b) for a, b in ((hit.start(), hit.end() + 1)
                                    for hit in self._pattern.finditer(steps))
                if data[a:b] not in self._raws]
