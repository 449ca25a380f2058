"""A secret's pieces between keys: a query's values (``p0=sk-l&p1=ive-&p2=9f8e...``, each
maybe in base64), a JSON object's keys (``{"sk-liv": 0, "e-9f8e": 6, ...}``) or its values
(``{"k0": "sk-liv", "k6": "e-9f8e", ...}``). The keys (or the values) between the pieces cut
the squeezed view apart, and each piece is shorter than a known piece.

``keyed_spans`` reads the short ones (``SHORT`` characters or fewer) of each kind joined by
line breaks (a query's values; a JSON object's keys; its string values) with ``find`` (the
secrets' forms and squeezed pieces); where a secret is found, the text from the first piece
it covers to the last (keys between too: fail closed) is hidden.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

__all__ = ["SHORT", "keyed_spans"]

SHORT = 24  # a piece longer than this holds 10 letters and digits: found as it is
_QUERY = re.compile(r"(?:^|(?<=[?&;\s]))[\w.\-\[\]]{1,32}=([^&;#\s=]{1,"
                    + str(SHORT) + r"}=*)(?=[&;#\s]|$)")
_STRING = r'"((?:[^"\\\n]|\\.){1,' + str(SHORT) + r'})"'
_KEY = re.compile(_STRING + r"\s*:")
_VALUE = re.compile(r":\s*" + _STRING)


def keyed_spans(text: str, find: Callable[[str], Iterable[tuple[int, int]]]
                ) -> list[tuple[int, int]]:
    """Where a secret's pieces between keys are in ``text`` (see the module)."""
    views = []
    if "=" in text:
        views.append(_QUERY)
    if '":' in text or '" :' in text:
        views += [_KEY, _VALUE]
    found: list[tuple[int, int]] = []
    for pattern in views:
        places = [m.span(1) for m in pattern.finditer(text)]
        if len(places) < 2:
            continue
        starts, at = [], 0
        for a, b in places:
            starts.append(at)
            at += b - a + 1
        joined = "\n".join(text[a:b] for a, b in places)
        for lo, hi in find(joined):
            hit = [i for i, s in enumerate(starts)
                   if s < hi and lo < s + places[i][1] - places[i][0]]
            if hit:
                found.append((places[hit[0]][0], places[hit[-1]][1]))
    return found
