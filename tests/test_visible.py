"""``visible``: nothing shown on a terminal can act on it or hide from the reader."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from toolhost.visible import visible

BIDI = set("\u061c\u200e\u200f") | {chr(c) for c in range(0x202A, 0x202F)} \
    | {chr(c) for c in range(0x2066, 0x206A)}


def harmful(char: str, *, lines: bool) -> bool:
    if lines and char in "\n\t":
        return False
    return char in BIDI or (unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp")
                            and char != "\u200d")


def test_the_red_team_text() -> None:
    text = "MODEL\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b[31mRED\r\u202eevil"
    assert visible(text) == "MODEL\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J\\x1b[31mRED\\r\\u202eevil"


def test_lines_keeps_newlines_and_tabs_and_nothing_else() -> None:
    assert visible("a\nb\tc\r\x85\u2028", lines=True) == "a\nb\tc\\r\\x85\\u2028"
    assert visible("a\nb\tc") == "a\\nb\\tc"


def test_text_that_is_safe_is_unchanged() -> None:
    text = "héllo wörld 日本語 👨\u200d👩\u200d👧 \\x1b \u00e9"
    assert visible(text) == text and visible(text, lines=True) == text


def test_names_are_shown_exactly() -> None:
    assert visible("mcp__s__echo", name=True) == "mcp__s__echo"
    # two different names never look the same
    assert visible("a\x1bb", name=True) != visible("a\\x1bb", name=True)
    assert visible("a\u00a0b", name=True) == "a\\xa0b"
    assert visible("a\u200db", name=True) == "a\\u200db"
    assert visible("x\ud800", name=True) == "x\\ud800"


def test_a_name_that_looks_like_another_is_shown_as_what_it_is() -> None:
    # a Cyrillic a, then printable characters that show nothing after a real "Bash"
    assert visible("B\u0430sh", name=True) == "B\\u0430sh"
    for blank in ("\u034f", "\u3164", "\u115f", "\ufe0f", "\u0301", "\u2800", "\U000e0100"):
        escaped = f"\\u{ord(blank):04x}" if ord(blank) < 0x10000 else f"\\U{ord(blank):08x}"
        assert visible(f"Bash{blank}", name=True) == f"Bash{escaped}"
    assert visible("日本", name=True) == "\\u65e5\\u672c"
    assert visible("ok_name-1", name=True) == "ok_name-1"


def test_text_shows_printable_characters_that_show_nothing() -> None:
    for blank in ("\u034f", "\u3164", "\u115f", "\u1160", "\uffa0", "\u17b4", "\u180b",
                  "\ufe00", "\U000e0100"):
        for lines in (False, True):
            escaped = f"\\u{ord(blank):04x}" if ord(blank) < 0x10000 \
                else f"\\U{ord(blank):08x}"
            assert visible(f"rm x{blank}", lines=lines) == f"rm x{escaped}"
    # emoji keep their style selector and joiner; accents stay
    assert visible("\u2764\ufe0f \U0001f468\u200d\U0001f469 e\u0301") \
        == "\u2764\ufe0f \U0001f468\u200d\U0001f469 e\u0301"


@given(st.text())
def test_nothing_harmful_is_left(text: str) -> None:
    for lines in (False, True):
        shown = visible(text, lines=lines)
        assert not [c for c in shown if harmful(c, lines=lines)]
        shown.encode("utf-8")  # no lone surrogate: always writable


@given(st.text(), st.text())
def test_names_are_one_to_one(a: str, b: str) -> None:
    if a != b:
        assert visible(a, name=True) != visible(b, name=True)
    assert all(c.isprintable() for c in visible(a, name=True))
