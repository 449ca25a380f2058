"""Wildcard patterns of rules (``*`` any run of characters, ``?`` one) matched in linear time.

Tool-name globs (``mcp__github__get_*``), ``Bash(...)`` command patterns (``Bash(git * main)``)
and ``callers:`` globs are matched against text the model or the caller chooses (a command, a
tool name, a token's subject). Python's ``re`` backtracks on ``.*a.*a.*a.*b``: a rule
``Bash(echo *a*a*a*a*a*b)`` held a decision for seconds on a 100-character command and for
minutes on 200. A pattern with two or more ``*`` is an RE2 pattern (``toolhost.regex``), whose
matching time grows linearly with the text; one with at most one ``*`` cannot backtrack more
than once over the text and stays with Python's ``re``, which is faster on short names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol

from toolhost import regex

__all__ = ["ANY", "ONE", "Matcher", "Token", "compile_tokens", "compile_wildcard", "literal",
           "wildcard"]



class _Wild:
    """A wildcard token (a ``str`` token is literal text, whatever it holds)."""

    __slots__ = ("regex",)

    def __init__(self, regex: str) -> None:
        self.regex = regex


ANY, ONE = _Wild(".*"), _Wild(".")  # any run of characters, one character
Token = str | _Wild


class Matcher(Protocol):
    """A compiled pattern: ``fullmatch`` (the whole text) and ``search`` (anywhere)."""

    pattern: str

    def fullmatch(self, text: str) -> bool: ...

    def search(self, text: str) -> bool: ...


class _Backtracking:
    """Python's ``re`` for a pattern with at most one ``.*`` (see the module docstring)."""

    __slots__ = ("_rx", "pattern")

    def __init__(self, source: str) -> None:
        self._rx = re.compile(source, re.DOTALL)
        self.pattern = source

    def fullmatch(self, text: str) -> bool:
        return self._rx.fullmatch(text) is not None

    def search(self, text: str) -> bool:
        return self._rx.search(text) is not None


def literal(text: str) -> str:
    """RE2 syntax matching ``text`` exactly."""
    out: list[str] = []
    for c in text:
        if c.isalnum() or c == "_" or (not c.isascii() and c.isprintable()):
            out.append(c)
        elif c.isascii() and c.isprintable():
            out.append("\\" + c)  # ASCII punctuation and space: escaped
        else:  # a control character, or a lone surrogate (matched as U+FFFD, as the text is)
            code = 0xFFFD if 0xD800 <= ord(c) <= 0xDFFF else ord(c)
            out.append(f"\\x{{{code:X}}}")
    return "".join(out)


def _tokens(pattern: str) -> list[Token]:
    out: list[Token] = []
    for c in pattern:
        if c in "*?":
            out.append(ANY if c == "*" else ONE)
        elif out and isinstance(out[-1], str):
            out[-1] += c
        else:
            out.append(c)
    return out


def _source(tokens: Sequence[Token], escape: Callable[[str], str]) -> str:
    return "".join(t.regex if isinstance(t, _Wild) else escape(t) for t in tokens)


def wildcard(pattern: str) -> str:
    """RE2 syntax for ``pattern``: ``*`` any run of characters, ``?`` one, the rest literal."""
    return _source(_tokens(pattern), literal)


def compile_tokens(tokens: Sequence[Token], *, word_tail: bool = False) -> Matcher:
    """``tokens`` (``ANY``, ``ONE`` or literal text) as one pattern; ``word_tail``: followed
    by nothing or by a space and anything (``Bash(npm test:*)``). Raises ValueError
    (``regex.RegexError``) when it is too long for RE2."""
    tail = "(?: .*)?" if word_tail else ""
    if sum(t is ANY for t in tokens) + word_tail <= 1:
        return _Backtracking(_source(tokens, re.escape) + tail)
    return regex.compile("(?s)" + _source(tokens, literal) + tail)


def compile_wildcard(pattern: str) -> Matcher:
    """``pattern`` (``*``, ``?``, the rest literal) for whole-text matching, newlines included."""
    return compile_tokens(_tokens(pattern))
