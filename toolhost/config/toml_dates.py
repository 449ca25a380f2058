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

from toolhost.config.limits import toml_string_end

__all__ = ["MAX_WRITTEN_DATES", "written_dates"]

# literals parsed again one by one (each a small tomllib.loads): past this many distinct ones
# the rest keep their ISO text, so a file of 400,000 dates costs no more than before
MAX_WRITTEN_DATES = 2000

_SCAN = re.compile(
    r"#|\"\"\"|'''|\"|'|(?<![\w.:+-])("
    r"\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?"
    r"|\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(?![\w.:+-])")


def written_dates(text: str) -> dict[str, str]:
    """The ISO text of each date, time or date-time literal of ``text`` -> the literal as
    written (the first one written, when two spellings name the same instant)."""
    out: dict[str, str] = {}
    seen: set[str] = set()
    i, n = 0, len(text)
    while i < n:
        found = _SCAN.search(text, i)
        if found is None:
            break
        token = found.group()
        if token == "#":
            end = text.find("\n", found.end())
            i = n if end < 0 else end
        elif found.group(1) is None:  # a string: skip to its end
            end = toml_string_end(text, found.end(), token)
            i = end + (len(token) if text.startswith(token, end) else 1)
        else:
            i = found.end()
            if token not in seen and len(seen) < MAX_WRITTEN_DATES:
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
