from __future__ import annotations

import pytest

from toolhost.excerpt import cut


def test_short_text_is_kept() -> None:
    assert cut("abc", 3) == "abc"


def test_long_text_says_how_much_was_cut() -> None:
    assert cut("a" * 5000, 10) == "a" * 10 + "…4,990 more characters"


def test_negative_limit_is_refused() -> None:
    with pytest.raises(ValueError):
        cut("x", -1)
