"""Cutting text for messages: one rule everywhere a value is quoted back to someone.

A hostile value (a 50 MB argument, a line of a config file) must never be echoed in full.
Every secret this process knows (``toolhost.redaction``) is hidden first and the text is cut
afterwards, so a cut can never fall inside a secret and show its first characters.
"""

from __future__ import annotations

from toolhost.redaction import scrub

__all__ = ["EXCERPT_CHARS", "cut"]

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
