"""LazyMarks and LazyOrigin: marks made on first read stand for the marks made at once."""

from __future__ import annotations

import copy
import pickle
from dataclasses import asdict, replace

import pytest

from toolhost.config.checks import Checker
from toolhost.config.model import Origin
from toolhost.config.toml_marks import scan_marks
from toolhost.config.toml_source import parse_toml
from toolhost.config.tree import LazyMarks, LazyOrigin, node_count

TEXTS = [
    "a.b.c = 1\na.b.d = [1, [2, 3], {x = 1}]\n",
    "[[t]]\nx = 1\n[[t]]\ny = {a.b = 2}\n[t.sub]\nz = 3\n",
    "[a.b.c]\n[a]\nq = \"s\"\n\"quoted.key\" = 1\n'lit' = 2\n",
    'x = """\nmulti\n"""\ny = [\n 1,\n 2, # c\n]\n',
    "d = 1979-05-27T07:32:00Z\nt = 07:32:00\ne = []\nf = {}\n",
    "a = [[], [[]], {}]\n[b]\n[b.c.d]\n[[b.e]]\n[[b.e]]\n",
]


@pytest.mark.parametrize("text", TEXTS)
def test_lazy_marks_count_what_the_scan_marks(text: str) -> None:
    doc = parse_toml(text, "f.toml", "user", [])
    assert doc is not None and isinstance(doc.marks, LazyMarks)
    assert node_count(doc.marks) == len(scan_marks(text, "f.toml", "user"))  # the budget
    assert not doc.marks.scanned
    assert dict(doc.marks) == scan_marks(text, "f.toml", "user") and doc.marks.scanned


def test_a_lazy_origin_is_the_origin_it_stands_for() -> None:
    doc = parse_toml("x = 1\n[s.t]\nk = 'v'\n", "f.toml", "user", [])
    assert doc is not None
    check = Checker(doc.marks, doc.file)
    lazy = check.origin(("s", "t", "k"))
    assert type(lazy) is LazyOrigin and check.place(("s", "t", "k")) == ("f.toml", "user")
    plain = Origin("f.toml", 3, 1, "s.t.k")
    assert lazy == plain and plain == lazy and hash(lazy) == hash(plain)
    assert asdict(lazy) == asdict(plain) and str(lazy) == "f.toml:3:1"
    assert copy.deepcopy(lazy) == plain and pickle.loads(pickle.dumps(lazy)) == plain
    assert lazy.problem("bad").line == 3
    assert replace(lazy, file="g.toml") == Origin("g.toml", 3, 1, "s.t.k")  # casetest's
    assert replace(lazy, key_path="k") == Origin("f.toml", 3, 1, "k")
    assert check.origin(("s", "u")) == Origin("f.toml", 2, 2, "s.u")  # scanned: nearest parent
