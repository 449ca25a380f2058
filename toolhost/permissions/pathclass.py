"""Bracket expressions (``[abc]``, ``[!a-z]``, ``[[:alnum:]]``) of a path pattern, read as
gitignore (git's wildmatch) reads them, as regex text for ``paths._translate``.

Before this module a class went to Python's ``re`` as written: ``[!_]`` became ``[^_]``, which
matches ``/`` (``allow: Read(./build[!_]*)`` reached ``build/x``), and ``[[:alpha:]]`` was a
set of ``[:alph`` then a ``]`` (a deny naming keys that way denied none).
"""

from __future__ import annotations

import re

__all__ = ["bracket"]

# POSIX classes inside a bracket, as gitignore (git's wildmatch) reads them
_POSIX = {"alnum": "0-9A-Za-z", "alpha": "A-Za-z", "blank": " \t", "cntrl": "\x00-\x1f\x7f",
          "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
          "punct": "!-/:-@[-`{-~", "space": " \t\n\r\f\v", "upper": "A-Z",
          "xdigit": "0-9A-Fa-f"}
_POSIX_NAME = re.compile(r"\[:([a-z]+):\]")


def _ranges(spec: str) -> list[tuple[str, str]]:
    """``"0-9A-Z_"`` as ranges: [("0", "9"), ("A", "Z"), ("_", "_")]."""
    out, i = [], 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            out.append((spec[i], spec[i + 2]))
            i += 3
        else:
            out.append((spec[i], spec[i]))
            i += 1
    return out


def bracket(glob: str, start: int) -> tuple[str, int] | None:
    """The regex of the bracket expression at ``glob[start]`` (a ``[``) and the index after
    it, read as gitignore reads it: ``!`` or ``^`` first negates, a ``]`` first is literal,
    ``[:alpha:]`` is a POSIX class, ``\\x`` is ``x``; it never matches ``/`` (``[!_]`` in
    ``build[!_]*`` must not reach ``build/x``). None when no ``]`` closes it (a literal ``[``).
    Raises ValueError on a POSIX class name that is none or a range that is backwards."""
    i = start + 1
    negate = i < len(glob) and glob[i] in "!^"
    i += negate
    ranges: list[tuple[str, str]] = []
    first = True
    while i < len(glob):
        c = glob[i]
        if c == "]" and not first:
            break
        first = False
        posix = _POSIX_NAME.match(glob, i) if c == "[" else None
        if posix is not None:
            if posix.group(1) not in _POSIX:
                raise ValueError(f"[:{posix.group(1)}:] is no character class (the classes: "
                                 + ", ".join(sorted(_POSIX)) + ")")
            ranges += _ranges(_POSIX[posix.group(1)])
            i = posix.end()
            continue
        if c == "\\" and i + 1 < len(glob):
            i += 1
            c = glob[i]
        low = high = c
        i += 1
        if glob.startswith("-", i) and i + 1 < len(glob) and glob[i + 1] != "]":
            high = glob[i + 1]
            if high == "\\" and i + 2 < len(glob):
                high, i = glob[i + 2], i + 1
            i += 2
            if high < low:
                raise ValueError(f"the range {low}-{high} in a bracket goes backwards "
                                 f"(write {high}-{low})")
        ranges.append((low, high))
    else:
        return None
    if negate:  # (and never "/")
        return "[^/" + "".join(_range(lo, hi) for lo, hi in ranges) + "]", i + 1
    kept = [piece for lo, hi in ranges for piece in _without_slash(lo, hi)]
    # no character but "/": nothing a path holds (it holds no NUL)
    return ("[" + "".join(_range(lo, hi) for lo, hi in kept) + "]" if kept else "\\x00"), i + 1


def _without_slash(low: str, high: str) -> list[tuple[str, str]]:
    """The range ``low``-``high`` without ``/`` (one range, two, or none)."""
    if not low <= "/" <= high:
        return [(low, high)]
    return [r for r in ((low, "."), ("0", high)) if r[0] <= r[1]]


def _range(low: str, high: str) -> str:
    """A range (or one character) as regex class text, each end escaped."""
    return re.escape(low) if low == high else f"{re.escape(low)}-{re.escape(high)}"
