"""LineEdit: the rest of a question's answer after an Escape, fed byte by byte."""

from __future__ import annotations

import pytest

from toolhost.runner.line_edit import LineEdit


def _feed(edit: LineEdit, data: bytes, *, with_escape: bool) -> None:
    for byte in data:
        edit.feed(bytes([byte]), with_escape=with_escape)


@pytest.mark.parametrize("erase", [b"\x7f", b"\x08"])
def test_alt_backspace_erases_the_word_before_the_cursor(erase: bytes) -> None:
    edit = LineEdit("no because ")
    _feed(edit, b"rm -rf", with_escape=False)
    edit.feed(b"\x1b")
    edit.feed(erase, with_escape=True)
    assert edit.text == "no because rm "
    assert not edit.done


def test_backspace_typed_after_an_escape_erases_one_character() -> None:
    edit = LineEdit("yes")
    edit.feed(b"\x1b")
    edit.feed(b"\x7f", with_escape=False)
    assert edit.text == "ye"
