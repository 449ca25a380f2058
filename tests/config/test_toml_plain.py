"""TOML's data made JSON-like in place (dates as ISO strings, infinity and NaN refused with
their paths), and the table-depth check, held to the plain walks they replace."""

from __future__ import annotations

import random
from typing import Any

from toolhost.config.limits import data_depth_path
from toolhost.config.toml_source import parse_toml
from toolhost.errors import Problem


def _reference_depth_path(data: Any, limit: int) -> tuple[Any, ...] | None:
    # every value on the stack, scalars too: what data_depth_path did before it skipped them
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if len(path) > limit:
            return path
        if isinstance(value, dict):
            stack.extend((v, (*path, k)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(value))
    return None


def _nested(rng: random.Random, depth: int) -> Any:
    if depth == 0 or rng.random() < 0.25:
        return rng.choice([1, "s", 2.5, True, None])
    if rng.random() < 0.5:
        return [_nested(rng, depth - 1) for _ in range(rng.randrange(4))]
    return {f"k{i}": _nested(rng, depth - 1) for i in range(rng.randrange(4))}


def test_the_depth_check_finds_the_same_first_path() -> None:
    rng = random.Random(7)
    for _ in range(400):
        data = {"root": _nested(rng, rng.randrange(1, 9))}
        for limit in range(0, 9):
            assert data_depth_path(data, limit) == _reference_depth_path(data, limit)


def test_dates_become_iso_strings_wherever_they_are() -> None:
    problems: list[Problem] = []
    doc = parse_toml("a = 1979-05-27T07:32:00Z\nb = [1979-05-27, {t = 07:32:00}]\n"
                     "[c]\nd = { e = [1, 2.5, 'x'] }\n", "f.toml", "project", problems)
    assert problems == [] and doc is not None
    assert doc.data == {"a": "1979-05-27T07:32:00+00:00", "b": ["1979-05-27", {"t": "07:32:00"}],
                        "c": {"d": {"e": [1, 2.5, "x"]}}}


def test_infinity_and_nan_are_refused_where_they_are_written() -> None:
    problems: list[Problem] = []
    doc = parse_toml("a = 1\n[b]\nc = [1.0, inf]\nd = { e = nan }\n", "f.toml", "project",
                     problems)
    assert doc is None
    assert [(p.line, p.key_path) for p in problems] == [(3, "b.c[1]"), (4, "b.d.e")]
    assert all("not a finite number" in p.message for p in problems)
