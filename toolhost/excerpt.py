"""Cutting text for messages: one rule everywhere a value is quoted back to someone.

A hostile value (a 50 MB argument, a line of a config file) must never be echoed in full.
Every secret this process knows (``toolhost.redaction``) is hidden first and the text is cut
afterwards, so a cut can never fall inside a secret and show its first characters.
"""

from __future__ import annotations

import codecs

from toolhost.redaction import scrub

__all__ = ["EXCERPT_CHARS", "cut", "decode_cut"]

EXCERPT_CHARS = 200


def cut(text: str, limit: int = EXCERPT_CHARS) -> str:
    """``text`` if it is at most ``limit`` characters, else its head and "…N more characters".

    The result is never longer than ``limit`` plus the length of the note.
    """
    if limit < 0:
        raise ValueError("limit must not be negative")
    text = scrub(text)  # redact before cutting, never after
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…{len(text) - limit:,} more characters"


def cut_lines(text: str, lines: int = 80) -> str:
    """``text`` cut to ``lines`` lines of at most 200 characters (a diff shown in an error)."""
    every = text.splitlines()
    shown = [cut(line, 200) for line in every[:lines]]
    if len(every) > lines:
        shown.append(f"… {len(every) - lines} more lines")
    return "\n".join(shown)


def decode_cut(data: bytes, *, head: bool = False, tail: bool = False) -> str:
    """UTF-8 ``data`` that a byte cap cut: with ``tail``, a character the cut split at the
    end is left out; with ``head``, one split at the start. (Decoded as U+FFFD it would hide
    that the text ends with the start of a secret, which ``Redactor.cut_edges`` looks for.)
    Other invalid bytes become U+FFFD."""
    if head:
        skip = 0
        while skip < 3 and skip < len(data) and 0x80 <= data[skip] < 0xC0:  # continuation
            skip += 1
        data = data[skip:]
    if tail:  # an incomplete last sequence stays in the decoder, unreturned
        return codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=False)
    return data.decode("utf-8", errors="replace")
