"""A python tool that returns an integer too long to write out (past Python's 4,300-digit
limit), alone or inside its result, gets an error result naming where it is, not "the tool
failed: ValueError: ... use sys.set_int_max_str_digits()" (the tool did not fail, and the
model cannot act on that hint)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from toolhost.backends.convert import to_result

HUGE = 10**5000


@dataclass
class Box:
    n: int


CASES: dict[str, tuple[Callable[[], Any], str]] = {
    "top": (lambda: HUGE, "the top"),
    "key": (lambda: {"n": HUGE}, "n"),
    "item": (lambda: [1, HUGE], "[1]"),
    "deep": (lambda: {"a": [0, {"b": HUGE}]}, "a[1].b"),
    "dataclass": (lambda: Box(HUGE), "n"),
    "set": (lambda: {HUGE}, "[0]"),
    # a generator is read once: where is no longer known
    "generator": (lambda: (i for i in (1, HUGE)), ""),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("limit", [None, 40_000])
def test_a_huge_integer_is_a_located_error_result(case: str, limit: int | None) -> None:
    make, where = CASES[case]
    result = to_result(make(), limit)
    at = f" at {where}" if where else ""
    assert result.is_error and result.text_content == (
        "The tool returned a number JSON cannot carry (an integer of more than 4,300 digits"
        f"{at}); return it as a string instead."), result.text_content


def test_a_long_integer_within_the_limit_is_its_digits() -> None:
    assert to_result(10**4000).text_content == "1" + "0" * 4000
    assert to_result({"n": -(10**4000)}).structured == {"n": -(10**4000)}
