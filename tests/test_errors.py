"""toolhost.errors: a problem prints as one located line, whatever a config put in it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolhost.errors import Problem, shown


def test_a_forged_line_or_an_escape_sequence_is_written_out() -> None:
    problem = Problem("unknown key", "c.yaml", 3, 5,
                      key_path="servers.a\nfake.yaml:1:1: all good\r\x1b[2K\x07\u2028")
    assert str(problem) == ("c.yaml:3:5: servers.a\\nfake.yaml:1:1: all good\\r\\x1b[2K\\x07"
                            "\\u2028: unknown key")


@given(st.text())
def test_any_text_prints_as_one_line_without_control_characters(text: str) -> None:
    line = str(Problem(text, "f", 1, 1, key_path=text, hint=text))
    assert len(line.splitlines()) == 1
    assert not any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f for c in line)
    assert shown("plain text, ünïcode") == "plain text, ünïcode"
