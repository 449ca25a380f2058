"""URI templates are matched in linear time (RE2), with the values Python's backtracking
``re`` would give: several ``{+var}`` in one template no longer cost O(n^k)."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.compile.resources import _VAR, _template_regex


def _backtracking(template: str) -> re.Pattern[str]:
    out, last = [], 0
    for found in _VAR.finditer(template):
        out.append(re.escape(template[last:found.start()]))
        out.append(f"(?P<{found.group(2)}>{'.+' if found.group(1) else '[^/?#]+'})")
        last = found.end()
    out.append(re.escape(template[last:]))
    return re.compile("".join(out))


_PIECES = st.sampled_from(["/", "a", ".", "-", "?", "#", ".md", "é", "{a}", "{+b}", "{c}",
                           "{+d}", "{+e}"])
_TEXT = st.text(st.sampled_from("/a.-?#mdé\n%2F"), max_size=30)


@settings(max_examples=400, deadline=None)
@given(pieces=st.lists(_PIECES, max_size=8), uri=_TEXT)
def test_the_same_values_as_a_backtracking_match(pieces: list[str], uri: str) -> None:
    seen: set[str] = set()
    template = "x://" + "".join(p for p in pieces if not (p.startswith("{") and (
        p in seen or seen.add(p))))  # type: ignore[func-returns-value]
    uri = "x://" + uri
    old = _backtracking(template).fullmatch(uri)
    assert _template_regex(template).groups(uri) == (None if old is None else old.groupdict())


@pytest.mark.parametrize("template, uri", [
    ("docs://{+org}/{+space}/{+page}.md", "docs://" + "a/" * 4000 + "x"),
    ("docs://{+org}/{+space}/{+page}.md", "docs://" + "a/" * 4000 + ".m"),
    ("docs://{+a}{+b}{+c}{+d}!", "docs://" + "x" * 8000),
    ("docs://{+a}.{+b}.{+c}", "docs://" + "." * 8000),
    ("docs://{a}/{+b}/{c}/{+d}/x", "docs://" + "a/" * 4000),
])
def test_hostile_uris_are_matched_quickly(template: str, uri: str) -> None:
    start = time.perf_counter()
    for _ in range(10):
        _template_regex(template).groups(uri)
    assert time.perf_counter() - start < 0.5


def test_a_lone_surrogate_matches_nothing() -> None:
    assert _template_regex("t://{a}/{b}").groups("t://a/\ud800") is None
