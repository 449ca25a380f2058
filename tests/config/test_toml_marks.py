"""The TOML mark scanner's one-match path for bare dotted keys gives the marks its loop gives,
on the example configs and on keys written every way TOML allows."""

from __future__ import annotations

import itertools
import re
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
import tomllib
from hypothesis import example, given
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
        for name in ("_BARE_KEYS", "_STATEMENT"):
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


_KEYS = ["a", "x-y", "a.b", "b.c.d", "'q'", '"k.e"', "a . b", "a.'q'"]
_SCALARS = ["1", "-2", "3.5", "inf", "true", "1979-05-27", "07:32:00", "1979-05-27 07:32:00Z",
            '"s"', "'lit'", '"a,b]#}"', r'"q\"x"', "'#'", '""', '"""m\nl"""', "'''r'''"]
_VALUES = [*_SCALARS, "[]", "[ ]", "[1]", "[1,2]", "[ 1 , 2 , ]", "['a', \"b\", 3]",
           "[1, [2, 3]]", "[[1], 2]", "[1,\n  2,\n]", "[1, # c\n 2]", "[{a = 1}, 2]",
           '["]", "}", ","]', "[1979-05-27 07:32:00Z, 1]", '["""x""", 1]',
           "{}", "{ }", "{a = 1}", "{ a = 1, b = 'x' }", "{a.b = 1, a.c = 2}",
           "{ x-y.z = [1, 2] }", "{a = {b = 1}}", "{'q' = 1}", "{ a . b = 1 }",
           '{s = "}"}', "{a = [1,\n 2]}"]
_ENDS = ["", " # note", "\t", "\r"]


def _corpus() -> str:
    """Every key form with every value form (the line ends taken in turn), each in its
    table; the tables go in and out of an array of tables, so their paths take its index."""
    out = []
    for number, (key, value) in enumerate(itertools.product(_KEYS, _VALUES)):
        statement = f"{key} = {value}{_ENDS[number % len(_ENDS)]}"
        tomllib.loads(statement + "\n")  # each one is TOML
        header = f"[[s]]\n[s.t{number}]" if number % 7 == 0 else f"[t{number}]"
        out.append(f"{header}\n{statement}\n")
    return "".join(out) + "[[s]]\n[ s . u ]\nk = 1\n[s.'v'.w]\nk = 2\n"


def test_one_match_statements_are_marked_as_the_loop_marks_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = _corpus()
    tomllib.loads(text)
    fast = scan_marks(text, "f.toml", "project")
    assert fast == _loop_only(text, monkeypatch)
    assert len(fast) > 1_200  # every element and entry


def test_a_long_line_that_the_one_match_cannot_take_is_not_retried_for_ever() -> None:
    # nested at the end: the one match fails at the last element, and the loop takes the line
    text = "x = [" + "1 , " * 3_000 + "[2]]\n"
    assert scan_marks(text, "f.toml", "project")[("x", 3_000)].column == 6 + 4 * 3_000


def test_a_header_below_an_array_of_tables_is_marked_in_its_latest_table() -> None:
    # the header's parent path is kept from one header to the next, until an array moves on
    marks = scan_marks("[[s]]\n[s.t]\ny = 1\n[[s]]\n[s.t]\ny = 2\n[s.u]\n", "f.toml", "p")
    assert [marks[k].line for k in (("s", 0, "t"), ("s", 1, "t", "y"), ("s", 1, "u"))] == [
        2, 6, 7]
    assert marks[("s",)].line == 1 and marks[("s", 1)].line == 4


def test_the_usual_statements_take_one_match(monkeypatch: pytest.MonkeyPatch) -> None:
    # what a big config repeats (bench/bench_startup.py's 1,000 tools) never takes the loop
    def loop(*_: object) -> None:
        raise AssertionError("the loop ran")

    monkeypatch.setattr(toml_marks._Scanner, "key_value", loop)
    monkeypatch.setattr(toml_marks._Scanner, "header", loop)
    text = "".join(f"[servers.big.tools.t{i}]\ncommand = ['echo', '{{{{ v }}}}', '{i}']\n"
                   f"params = {{ v = 'string' }}  # note\ntimeout = 1.5\n\n" for i in range(3))
    marks = scan_marks("toolhost = 1\n[[rules]]\nallow = \"x\"\n" + text, "f.toml", "p")
    assert marks[("servers", "big", "tools", "t2", "command", 2)].column == 31
    assert marks[("servers", "big", "tools", "t2", "params", "v")].line == 16


def test_a_run_of_comment_lines_costs_the_marks_no_memory_per_line() -> None:
    # a table of every line break took 8 bytes a line (16 MiB of `#` lines: 64 MB, 1.5 s)
    text = "toolhost = 1\n" + "#\n" * 500_000 + "[t]\nx = 1\n"
    tracemalloc.start()
    try:
        marks = scan_marks(text, "f.toml", "project")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert marks[("t", "x")].line == 500_003 and peak < 100_000


@given(st.lists(st.integers(0, 200_000), max_size=30))
@example([150_000, 3, 70_000, 140_000, 65_536, 200_000])
def test_a_line_is_found_forward_and_back_as_counting_finds_it(offsets: list[int]) -> None:
    text = "".join(f"{i % 7 * 'x'}\n" for i in range(50_000))[:200_000]
    lines = toml_marks._Lines(text)
    for at in offsets:
        assert lines.where(at) == (text.count("\n", 0, at) + 1, text.rfind("\n", 0, at) + 1)


@pytest.mark.parametrize("inside", ["x = [\n{}1]\n", "x = {{ a = [ {}2 ] }}\n"])
def test_comment_lines_inside_an_array_are_skipped_in_one_step(inside: str) -> None:
    # the scanner took a Python step per comment line inside an array (16 MiB: 1.4 s)
    text = inside.format("# note\n\n" * 50_000)
    steps = 0

    def trace(frame: Any, event: str, arg: Any) -> Any:
        nonlocal steps
        if frame.f_code.co_filename == toml_marks.__file__:
            steps += event == "line"
            return trace
        return None

    before = sys.gettrace()  # (a coverage run's tracer comes back after)
    sys.settrace(trace)
    try:
        marks = scan_marks(text, "f.toml", "project")
    finally:
        sys.settrace(before)
    assert marks[("x",)].line == 1 and steps < 1_000
