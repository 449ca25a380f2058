"""Find the ``:named`` parameters of an SQL statement (outside strings and comments)."""

from __future__ import annotations

import re

__all__ = ["named_parameters"]

# Strings, quoted identifiers and comments are skipped whole; what is left is scanned for :name.
_TOKEN = re.compile(r"""
    '(?:[^']|'')*'            # 'string'
  | "(?:[^"]|"")*"            # "identifier"
  | `[^`]*`                   # `identifier`
  | \[[^\]]*\]                # [identifier]
  | --[^\n]*                  # -- comment
  | /\*.*?(?:\*/|$)           # /* comment */
  | (?<![:\w]):([A-Za-z_]\w*) # :name (not ::cast, not a:b inside a word)
  | [?$@]                     # other placeholder styles, which we refuse
""", re.VERBOSE | re.DOTALL)


def named_parameters(sql: str) -> list[str]:
    """The ``:name`` parameters in order of first use. ValueError for ``?``/``$x``/``@x``."""
    names: list[str] = []
    for match in _TOKEN.finditer(sql):
        token = match.group(0)
        if token in "?$@" and len(token) == 1:
            raise ValueError(f"use :name parameters, not {token!r} placeholders")
        name = match.group(1)
        if name and name not in names:
            names.append(name)
    return names
