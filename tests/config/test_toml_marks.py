"""The TOML mark scanner's one-match path for bare dotted keys gives the marks its loop gives,
on the example configs and on keys written every way TOML allows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tomllib
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from toolhost.config import toml_marks
from toolhost.config.toml_marks import scan_marks
from toolhost.config.toml_source import parse_toml
from toolhost.errors import Problem

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").rglob("*.toml"))

KEYS = """toolhost = 1
plain = 1
dotted.key = 2
spaced . dotted = 3
"quoted".bare = 4
bare."quoted key" = 5
'literal'.x = 6
trailing   = 7
tab\t= 8
a-b_c.d-e = { x = 1, y.z = [1, {w = 2}] }
[table]
x=1
[ spaced.header ]
y = 2
[dotted."quoted".header]
z = 3
[[aot.list]]
k = 1
[[aot.list]]
k = 2
[aot.list.sub]
q = [
  1, # a comment
  "s",
]
"""


def _loop_only(text: str, monkeypatch: pytest.MonkeyPatch) -> dict[object, object]:
    with monkeypatch.context() as m:
        for name in ("_BARE_KEYS", "_HEADER", "_LINE"):
            m.setattr(toml_marks, name, re.compile(r"(?!)"))  # never matches
        return dict(scan_marks(text, "f.toml", "project"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_the_examples_are_marked_alike(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = path.read_text()
    assert scan_marks(text, "f.toml", "project") == _loop_only(text, monkeypatch)


def test_every_way_of_writing_a_key_is_marked_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    problems: list[Problem] = []
    assert parse_toml(KEYS, "f.toml", "project", problems) is not None  # tomllib accepts it
    assert problems == []
    fast = scan_marks(KEYS, "f.toml", "project")
    assert fast == _loop_only(KEYS, monkeypatch)
    assert fast[("spaced", "dotted")].line == 4 and fast[("spaced", "header", "y")].line == 14
    assert fast[("aot", "list", 1, "k")].line == 20


_KEY = st.sampled_from(["a", "b", "t0", "x-y", "a.b", "b.c.d", "'q'", '"k.e"', "a . b"])
_SCALAR = st.sampled_from(["1", "-2", "3.5", "inf", "true", "1979-05-27", "07:32:00",
                           "1979-05-27 07:32:00Z", '"s"', "'lit'", '"a,b]#}"', '"q\\"x"',
                           "'#'", '""', '"""m\nl"""', "'''r'''"])
_GAP = st.sampled_from(["", " ", "\t", "  "])
_VALUE = st.recursive(_SCALAR, lambda inner: st.one_of(
    st.builds(lambda items, gap, sep: "[" + gap + sep.join(items) + gap + "]",
              st.lists(inner, max_size=4), _GAP, st.sampled_from([",", ", ", " , ", ",\n  ",
                                                                    ", # c\n"])),
    st.builds(lambda pairs, gap: "{" + gap + ", ".join(f"{k} = {v}" for k, v in pairs)
              + gap + "}", st.lists(st.tuples(_KEY, inner), max_size=3), _GAP)), max_leaves=6)
_STATEMENT = st.one_of(
    st.builds(lambda k, g, v, c: f"{k}{g}={g}{v}{c}", _KEY, _GAP, _VALUE,
              st.sampled_from(["", " # note", "\r"])),
    st.builds(lambda k, g, aot: f"[{'[' if aot else ''}{g}{k}{g}]{']' if aot else ''}",
              st.sampled_from(["s", "s.t", "s.t.u", "s.'q'", "a.b"]), _GAP, st.booleans()),
    st.sampled_from(["", "# comment", "  "]))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_STATEMENT, max_size=12))
@example(["[[s]]", "[s.t]", "y = 1", "[[s]]", "[s.t]", "y = 2"])  # the parent's path moves on
def test_property_one_match_statements_are_marked_as_the_loop_marks_them(
        statements: list[str]) -> None:
    text = "\n".join(statements)
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assume(False)
    with pytest.MonkeyPatch.context() as m:
        assert scan_marks(text, "f.toml", "project") == _loop_only(text, m)


def test_a_long_line_that_the_one_match_cannot_take_is_not_retried_for_ever() -> None:
    # nested at the end: the one-line match fails after every element (atomic, so linearly)
    text = "x = [" + "1 , " * 20_000 + "[2]]\n"
    assert scan_marks(text, "f.toml", "project")[("x", 20_000)].column == 6 + 4 * 20_000


def test_a_header_below_an_array_of_tables_is_marked_in_its_latest_table() -> None:
    # the header's parent path is kept from one header to the next, until an array moves on
    marks = scan_marks("[[s]]\n[s.t]\ny = 1\n[[s]]\n[s.t]\ny = 2\n[s.u]\n", "f.toml", "p")
    assert [marks[k].line for k in (("s", 0, "t"), ("s", 1, "t", "y"), ("s", 1, "u"))] == [
        2, 6, 7]
    assert marks[("s",)].line == 1 and marks[("s", 1)].line == 4
