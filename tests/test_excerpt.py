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


def test_decode_cut_leaves_out_a_character_the_cap_split() -> None:
    from toolhost.excerpt import decode_cut

    data = "xxGeheim-pässwörd".encode()
    for at in range(len(data) + 1):
        head, tail = decode_cut(data[:at], tail=True), decode_cut(data[at:], head=True)
        assert "\ufffd" not in head + tail
        assert "xxGeheim-pässwörd".startswith(head) and "xxGeheim-pässwörd".endswith(tail)
    assert decode_cut(b"ok \xff", tail=True) == "ok \ufffd"  # invalid bytes stay visible
