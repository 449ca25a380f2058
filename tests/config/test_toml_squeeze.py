"""A big TOML text's runs of blank and comment lines are not walked by tomllib (16 MiB of
``#`` lines took it ~4 s), and taking them out changes no data, mark, error or error line."""

from __future__ import annotations

from typing import Any

import pytest
import tomllib
from hypothesis import example, given
from hypothesis import strategies as st

from toolhost.config import toml_source, toml_squeeze
from toolhost.config.toml_source import parse_toml
from toolhost.errors import Problem


def _parse(text: str) -> tuple[Any, list[str], dict[Any, Any]]:
    problems: list[Problem] = []
    doc = parse_toml(text, "c.toml", "project", problems)
    return (doc.data if doc else None, [str(p) for p in problems],
            dict(doc.marks) if doc else {})


@pytest.mark.parametrize("run", ["#\n", "# a comment\n", "\n", "  \t\n", "# c\r\n", "\r\n"])
def test_a_big_texts_comment_runs_are_not_handed_to_tomllib(
        run: str, monkeypatch: pytest.MonkeyPatch) -> None:
    handed: list[str] = []
    real = tomllib.loads

    def loads(text: str, **kwargs: Any) -> dict[str, Any]:
        handed.append(text)
        return real(text, **kwargs)

    monkeypatch.setattr(toml_source.tomllib, "loads", loads)
    lines = toml_squeeze.SQUEEZE_LINES
    text = "toolhost = 1\n" + run * lines + "[t]\n" + run * lines + "x = 'y'\n"
    data, problems, marks = _parse(text)
    assert problems == [] and data == {"toolhost": 1, "t": {"x": "y"}}
    assert marks[("t", "x")].line == 2 * lines + 3
    assert len(handed) == 1 and len(handed[0]) < 100
    bad = text + run * lines + "y = nope\n"
    assert _parse(bad)[1] == [
        f"c.toml:{3 * lines + 4}:5: t.y: invalid TOML: Invalid value (quote text in TOML: "
        'y = "nope")']


FRAGMENTS = [
    "a = 1\n", "[t]\n", "[[aot]]\n", "b.c = 'x'\n", "# comment\n", "\n", "   \n", "#\n",
    "\t# indented\n", "# c\r\n", "\r\n", "d = [\n", "1,\n", "]\n", "s = '''\n", "'''\n",
    'm = """\n', '"""\n', "# in \x00 comment\n", "# cr \r alone\n", "e = { f = 1,\n", "}\n",
    "g = 'unterminated\n", 'h = "\\\n', "# quote ' \" in comment\n", "x = 1 # tail\n",
    "i =\n", "# \x7f del\n", "key\n", "[t.u]  # c\n", "j = 2", "# last", "k = '#'\n",
    'l = "# not a comment"\n', "= 3\n", "[t]\n", "a = 2\n", "# ''' in a comment\n",
    '# """ in a comment\n', "n = '''open\n", 'o = """open\n', "p = [ # c\n", "q = 'a' 'b'\n",
]


# each piece written 1 to 5 times: runs of 4 and more blank or comment lines are taken out
PIECES = st.builds(lambda piece, times: piece * times, st.sampled_from(FRAGMENTS),
                   st.integers(1, 5))


@given(st.lists(PIECES, max_size=30))
@example(["d = [\n", "# comment\n" * 3, "\n" * 2, "1,\n", "#\n" * 4, "]\n"])
@example(["s = '''\n", "# comment\n" * 5, "\n", "'''\n", "# c\r\n" * 4, "a = 1\n"])
@example(['m = """\n', "#\n" * 5, '"""\n', "#\n" * 5, "= 3\n"])
@example(["#\n" * 3, "# in \x00 comment\n", "#\n" * 5, "a = 1\n"])
@example(["e = { f = 1,\n", "#\n" * 5, "}\n"])
@example(["g = 'unterminated\n", "a = 1\n", "# quote ' \" in comment\n" * 4])
def test_taking_runs_out_changes_nothing_but_what_tomllib_walks(pieces: list[str]) -> None:
    text = "".join(pieces)
    whole = _parse(text)
    old = toml_squeeze.SQUEEZE_LINES
    toml_squeeze.SQUEEZE_LINES = 0  # (not monkeypatch: hypothesis runs many examples)
    try:
        squeezed = _parse(text)
    finally:
        toml_squeeze.SQUEEZE_LINES = old
    assert squeezed == whole
