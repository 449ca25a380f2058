"""Strict JSON sameness (rewrite kept or dropped, second-lock claims): ``true`` is not ``1``,
``1`` is not ``1.0``, and the answer agrees with comparing canonical JSON text."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolhost.permissions.sameness import same_json

DIFFERENT = [
    (True, 1), (False, 0), (1, 1.0), (0, 0.0), (0.0, -0.0), (None, False), (None, 0),
    ("1", 1), ("true", True), ([1], [True]), ([1], (1.0,)), ({"a": 1}, {"a": True}),
    ({"a": {"b": [0]}}, {"a": {"b": [False]}}), ({"a": 1}, {"a": 1, "b": None}),
    ([1, 2], [2, 1]), ({1: "x"}, {"1": "x"}), (float("nan"), float("nan")),
    ({"a": [1.0]}, {"a": [1]}), (set(), set()), (b"x", b"x"),
]
SAME = [
    (True, True), (1, 1), (1.5, 1.5), ("x", "x"), (None, None), ([1, [True]], (1, [True])),
    ({"a": {"b": [0, "s"]}, "c": None}, {"c": None, "a": {"b": (0, "s")}}), (10**40, 10**40),
]


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_values_python_calls_equal_are_not_the_same(a: Any, b: Any) -> None:
    assert not same_json(a, b)
    assert not same_json(b, a)


@pytest.mark.parametrize(("a", "b"), SAME)
def test_the_same_json_value_is_the_same(a: Any, b: Any) -> None:
    assert same_json(a, b) and same_json(b, a)


def test_nesting_too_deep_is_not_the_same() -> None:
    deep: Any = 1
    for _ in range(1000):
        deep = [deep]
    assert not same_json(deep, deep)


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3),
                     st.floats(allow_nan=False, allow_infinity=False, min_value=-3,
                               max_value=3), st.sampled_from(["", "a", "1", "true"]))
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b", "1"]), inner,
                                                 max_size=3)), max_leaves=8)


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


@given(_VALUES, _VALUES)
def test_same_exactly_when_the_canonical_json_is_the_same(a: Any, b: Any) -> None:
    assert same_json(a, b) == (_text(a) == _text(b))


@given(_VALUES)
def test_a_value_is_the_same_as_its_json_round_trip(a: Any) -> None:
    assert same_json(a, json.loads(_text(a)))
