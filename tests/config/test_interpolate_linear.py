"""Interpolation is linear in the text: nested ``${A:-${B:-...}}`` defaults cost what flat
references cost (each closing brace found once, not rescanned at every level), and the result
(values, errors, spans, what is reported as used) is what a rescan at every level gives."""

from __future__ import annotations

import time
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.config.interpolate import (
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


def _cost(text: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        expand(text, {}, [], [], budget=SubstitutionBudget(len(text) * 4))
        best = min(best, time.perf_counter() - start)
    return best


def test_nested_defaults_cost_about_what_flat_references_cost() -> None:
    size = 1 << 18  # both costs grow with the size: a quarter MiB tells them apart
    for deep in (16, 30):
        nested = "${N:-" * deep + "x" + "}" * deep
        flat = "${N:-x}" * deep  # as many references, none nested
        ratio = _cost(nested * (size // len(nested))) / _cost(flat * (size // len(flat)))
        assert ratio < 3, (deep, ratio)  # was ~depth/2 (a rescan per level): 15x at 30


def test_a_reference_left_open_inside_a_long_text_is_still_located() -> None:
    text = "${N:-" + "${A}" * 10_000  # never closed: one scan, then the error
    start = time.perf_counter()
    try:
        expand(text, ENV)
    except InterpolationError as exc:
        assert "unterminated" in str(exc)
    else:
        raise AssertionError("expected an error")
    assert time.perf_counter() - start < 2
