"""Interpolation is linear in the text: nested ``${A:-${B:-...}}`` defaults cost what flat
references cost (each closing brace found once, not rescanned at every level), and the result
(values, errors, spans, what is reported as used) is what a rescan at every level gives."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.config import interpolate
from toolhost.config.interpolate import (
    _BRACES,
    _NAME,
    MAX_NESTING,
    InterpolationError,
    SubstitutionBudget,
    expand,
)

ENV = {"A": "alpha", "B": "", "SECRET_TOKEN": "tok-123"}


def _old_closing(text: str, start: int) -> int:
    depth, i = 1, start
    while i < len(text):
        if text.startswith("${", i):
            depth += 1
            i += 2
            continue
        if text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise InterpolationError("unterminated '${' (missing '}')")


def _old_expand(text: str, used: list[str], depth: int = 0) -> str:
    """The reference: the former rescanning algorithm (no budget, no secrets)."""
    if depth > MAX_NESTING:
        raise InterpolationError("nested")
    out, i = [], 0
    while i < len(text):
        j = text.find("$", i)
        if j < 0:
            out.append(text[i:])
            break
        out.append(text[i:j])
        if text.startswith("$${", j):
            out.append("${")
            i = j + 3
        elif text.startswith("${", j):
            end = _old_closing(text, j + 2)
            body = text[j + 2:end]
            found = _NAME.match(body)
            if not found:
                raise InterpolationError("invalid")
            name, rest = found.group(), body[found.end():]
            value = ENV.get(name)
            if rest == "":
                if value is None:
                    raise InterpolationError("unset")
            elif rest.startswith(":-"):
                if not value:
                    value = _old_expand(rest[2:], used, depth + 1)
            elif rest.startswith(":?"):
                if not value:
                    raise InterpolationError("required")
            else:
                raise InterpolationError("invalid")
            used.append(value)
            out.append(value)
            i = end + 1
        else:
            out.append("$")
            i = j + 1
    return "".join(out)


def _outcome(run: Callable[[list[str]], str]) -> tuple[str, tuple[str, ...]] | str:
    used: list[str] = []
    try:
        return run(used), tuple(used)
    except InterpolationError:
        return "error"


PIECES = st.sampled_from(["${", "}", "$", "$${", ":-", ":?", "A", "B", "C", "x", " ",
                          "${A}", "${B:-", "${C:-", "${A:-", "SECRET_TOKEN"])


@settings(max_examples=600, deadline=None)
@given(st.lists(PIECES, max_size=30).map("".join))
def test_the_one_pass_scan_gives_what_a_rescan_gives(text: str) -> None:
    new = _outcome(lambda used: expand(text, ENV, used))
    old = _outcome(lambda used: _old_expand(text, used))
    assert new == old, text


class _Counted:
    """``interpolate._BRACES`` that counts the braces its scans yield: the work a nested
    default costs, counted rather than timed."""

    def __init__(self) -> None:
        self.seen = 0

    def finditer(self, text: str, start: int) -> Iterator[re.Match[str]]:
        for found in _BRACES.finditer(text, start):
            self.seen += 1
            yield found


def _braces_seen(text: str, monkeypatch: pytest.MonkeyPatch,
                 environ: dict[str, str] | None = None) -> int:
    counted = _Counted()
    monkeypatch.setattr(interpolate, "_BRACES", counted)
    try:
        expand(text, environ or {}, [], [], budget=SubstitutionBudget(len(text) * 4))
    except InterpolationError as exc:
        assert "unterminated" in str(exc)
    return counted.seen


@pytest.mark.parametrize("deep", [2, 16, 30])
def test_nested_defaults_find_each_brace_once(deep: int,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    nested = "${N:-" * deep + "x" + "}" * deep
    text = nested * 50
    # each "${" and "}" yielded once (a rescan per level yielded ~deep/2 times as many)
    assert _braces_seen(text, monkeypatch) == 2 * deep * 50
    flat = "${N:-x}" * (deep * 50)  # a plain reference needs no scan at all
    assert _braces_seen(flat, monkeypatch) == 0


def test_a_reference_left_open_inside_a_long_text_is_found_in_one_scan(
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = "${N:-" + "${A}" * 10_000  # never closed: one scan, then the error
    assert _braces_seen(text, monkeypatch, ENV) == 1 + 2 * 10_000
