"""Secrets spelled a character at a time, spaced out: ``od -c`` (each byte in a column of
four, its lines wrapped and each started by an offset), ``sed 's/./& /g'`` and the like.

The ``Matcher``'s one RE2 pass finds a secret's first ``_TRIGGER`` characters, each followed
by one to four spaces, or a line break (raw or JSON-escaped) and an optional offset and
spaces; ``longest`` follows the secret from there, character by character. Only secrets of
``MIN_CHARS`` printable ASCII characters or more, with no space: a shorter spaced run
(``a b c``) is ordinary text, and a space is a column of blanks no one can read back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["MIN_CHARS", "SpacedChars"]

MIN_CHARS = 8
_TRIGGER = 4
_SEP = r"(?: {1,4}|[ ]*(?:\r?\n|\\n)(?:[0-7]{7}|[0-9a-fA-F]{8}:?)?[ ]{1,4})"
_SEP_RE = re.compile(_SEP)


class SpacedChars:
    """Finds secrets spelled a character at a time (see the module's text), for the
    ``Matcher``: its RE2 pass finds the ``triggers``, ``longest`` follows one from there."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self._secrets = sorted({s for s in secrets if len(s) >= MIN_CHARS and s.isascii()
                                and s.isprintable() and " " not in s}, key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def triggers(self) -> set[str]:
        """RE2 patterns of each secret's first characters, spaced out."""
        return {_SEP.join(re.escape(c) for c in s[:_TRIGGER]) for s in self._secrets}

    def longest(self, text: str, at: int) -> int:
        """Where the longest secret spelled spaced out from ``at`` ends (``at`` if none)."""
        end = at
        for secret in self._secrets:
            if text.startswith(secret[0], at):
                pos = at + 1
                for char in secret[1:]:
                    sep = _SEP_RE.match(text, pos)
                    if sep is None or not text.startswith(char, sep.end()):
                        break
                    pos = sep.end() + 1
                else:
                    end = max(end, pos)
        return end
