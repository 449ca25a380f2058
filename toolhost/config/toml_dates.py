"""TOML dates and times as the file wrote them.

``tomllib`` turns ``1979-05-27T07:32:00Z`` into a ``datetime`` whose ISO text is
``1979-05-27T07:32:00+00:00`` (and ``07:32:00.999999999`` into ``07:32:00.999999``); the model
holds the text (JSON has no dates), and a message or a description should show what the
author wrote, as YAML's do. :func:`written_dates` scans the text (outside strings and
comments) for date and time literals and maps each one's ISO text to the literal.
"""

from __future__ import annotations

import re

import tomllib

__all__ = ["MAX_WRITTEN_DATES", "written_dates"]

# literals parsed again one by one (each a small tomllib.loads): past this many distinct ones
# the rest keep their ISO text, so a file of 400,000 dates costs no more than before
MAX_WRITTEN_DATES = 2000

# one pass: a run of comment lines, strings of the four kinds (skipped whole), and date /
# time literals (group 1) outside them; compiled (re.S) at the first TOML that has a date,
# not at every TOML load's import (~1.5 M instructions)
_SCAN = (
    r"#[^\n]*+(?:\n[ \t]*+#[^\n]*+)*+"
    r'|"""(?:[^\\"]++|\\.|"(?!""))*+"""(?:"{1,2}(?!"))?'
    r"|'''.*?'''(?:'{1,2}(?!'))?"
    r'|"(?:[^"\\\n]++|\\.)*+"?'
    r"|'[^'\n]*'?"
    r"|(?<![\w.:+-])("
    r"\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?"
    r"|\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(?![\w.:+-])")


def written_dates(text: str) -> dict[str, str]:
    """The ISO text of each date, time or date-time literal of ``text`` -> the literal as
    written (the first one written, when two spellings name the same instant)."""
    out: dict[str, str] = {}
    seen: set[str] = set()
    for found in re.compile(_SCAN, re.S).finditer(text):
        token = found[1]
        if token is None or token in seen:
            continue
        if len(seen) >= MAX_WRITTEN_DATES:
            break
        seen.add(token)
        iso = _iso(token)
        if iso is not None:
            out.setdefault(iso, token)
    return out


def _iso(literal: str) -> str | None:
    """The ISO text tomllib's value of ``literal`` has (None: not a value, e.g. a key)."""
    try:
        value = tomllib.loads(f"x = {literal}")["x"]
    except (tomllib.TOMLDecodeError, ValueError):
        return None
    iso = getattr(value, "isoformat", None)
    return iso() if callable(iso) else None
