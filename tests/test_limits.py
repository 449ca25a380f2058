"""Sizes on the command line (``--max-message``, ``--max-argument``): every unit up to TiB,
the limit itself accepted in the unit its message names, anything past it refused in one
line that names a value that is accepted."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolhost.limits import MAX_SIZE, parse_size

UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20,
         "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30, "GiB": 1 << 30, "t": 1 << 40,
         "tb": 1 << 40, "tib": 1 << 40, "TiB": 1 << 40, "T": 1 << 40}


@pytest.mark.parametrize("text,size", [
    ("1TiB", 1 << 40), ("1 TiB", 1 << 40), ("1024GiB", 1 << 40), ("0.5TiB", 1 << 39),
    ("1t", 1 << 40), ("1048576MiB", 1 << 40), (str(1 << 40), 1 << 40)])
def test_the_limit_is_accepted_in_every_unit(text: str, size: int) -> None:
    assert parse_size(text) == size == MAX_SIZE or parse_size(text) == size


@pytest.mark.parametrize("text", ["1025GiB", "2TiB", "1.5TiB", "1099511627777", "9" * 400])
def test_past_the_limit_is_refused_naming_an_accepted_value(text: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_size(text)
    message = str(caught.value)
    named = re.findall(r"at most (\d+[KMGT]iB)", message)  # the size the message teaches
    assert named, message
    for value in named:
        assert parse_size(value) >= 1


@given(st.integers(min_value=1, max_value=4096), st.sampled_from(sorted(UNITS)))
def test_a_whole_number_of_any_unit_is_that_many_bytes_or_refused(count: int,
                                                                   unit: str) -> None:
    want = count * UNITS[unit]
    if want <= MAX_SIZE:
        assert parse_size(f"{count}{unit}") == want
    else:
        with pytest.raises(ValueError, match="at most 1TiB"):
            parse_size(f"{count}{unit}")
