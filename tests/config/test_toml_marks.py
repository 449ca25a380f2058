"""The TOML mark scanner's one-match path for bare dotted keys gives the marks its loop gives,
on the example configs and on keys written every way TOML allows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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
        m.setattr(toml_marks, "_BARE_KEYS", re.compile(r"(?!)"))  # never matches
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
