"""TOML: positions found by the scanner, and YAML/TOML twins loading to the same model."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import pytest

from toolhost.config import load_config
from toolhost.config.toml_source import parse_toml
from toolhost.config.tree import format_path
from toolhost.errors import ConfigError

TOML = '''\
toolhost = 1
extends = ["a.toml",
  # a comment inside an array
  "b.toml"]

[servers.git]
description = """multi
line "" """
tools.log.command = ["git", 'log']   # dotted keys

[servers.git.tools.show]
python = { function = "m:f", "quoted.key" = {a = 1} }

[[permissions.deny]]
tool = "x"
[[permissions.deny]]
tool = "y"
when.city = 'Atlantis'
'''


def test_scanner_positions() -> None:
    doc = parse_toml(TOML, "t.toml", "project", [])
    assert doc is not None
    lines = {format_path(path): (mark.line, mark.column) for path, mark in doc.marks.items()}
    assert lines["extends[1]"] == (4, 3)
    assert lines["servers.git.description"] == (7, 1)
    assert lines["servers.git.tools.log.command[1]"] == (9, 29)
    assert lines["servers.git.tools.show"] == (11, 2)
    assert lines["servers.git.tools.show.python.quoted.key.a"] == (12, 46)
    assert lines["permissions.deny[0].tool"] == (15, 1)
    assert lines["permissions.deny[1]"] == (16, 3)
    assert lines["permissions.deny[1].when.city"] == (18, 1)
    assert doc.data["servers"]["git"]["description"] == 'multi\nline "" '


YAML_TWIN = """\
toolhost: 1
servers:
  calc:
    description: Arithmetic
    timeout: 5s
    tools:
      add:
        python: "calc:add"
        params:
          a: {type: number}
          b: {type: number, default: 0}
        annotations: {readOnlyHint: true}
permissions:
  default: deny
  allow: [mcp__calc__add]
  deny:
    - {tool: mcp__calc__add, when: {a: 13}, message: unlucky}
"""
TOML_TWIN = """\
toolhost = 1

[servers.calc]
description = "Arithmetic"
timeout = "5s"

[servers.calc.tools.add]
python = "calc:add"
params.a = { type = "number" }
params.b = { type = "number", default = 0 }
annotations = { readOnlyHint = true }

[permissions]
default = "deny"
allow = ["mcp__calc__add"]

[[permissions.deny]]
tool = "mcp__calc__add"
when = { a = 13 }
message = "unlucky"
"""


def _strip_origins(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_origins(v) for k, v in value.items()
                if k not in ("origin", "origins", "files")}
    if isinstance(value, (list, tuple)):
        return [_strip_origins(v) for v in value]
    return value


def test_twins_load_to_the_same_model(write: Any, kinds: Any) -> None:
    from_yaml = load_config(write("c.yaml", YAML_TWIN), kinds=kinds, layers=False)
    from_toml = load_config(write("c.toml", TOML_TWIN), kinds=kinds, layers=False)
    assert _strip_origins(asdict(from_yaml)) == _strip_origins(asdict(from_toml))
    assert from_toml.servers["calc"].tools["add"].origin.line == 7
    assert from_toml.permissions.rules[1].origin.line == 17


@pytest.mark.parametrize(("text", "line", "key_path"), [
    ("toolhost = 1\n[servers.s]\ndescripton = 'x'\n", 3, "servers.s.descripton"),
    ("toolhost = 1\n[servers.s.tools.t]\npython = 'm:f'\nparams = {n = {type = 'integr'}}\n",
     4, "servers.s.tools.t.params.n.type"),
    ("toolhost = 1\n\n\n[[permissions.allow]]\ntol = 'x'\n", 5, "permissions.allow[0].tol"),
    ("toolhost = 1\n[servers.s.tools.t]\ncommand = [\n  'a',\n  3,\n]\n", 5,
     "servers.s.tools.t.command[1]"),
])
def test_toml_errors_name_the_line(write: Any, kinds: Any, text: str, line: int,
                                   key_path: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write("e.toml", text), kinds=kinds, layers=False)
    found = [(p.line, p.key_path) for p in info.value.problems]
    assert (line, key_path) in found


@pytest.mark.parametrize("text, line, column, path", [
    ("x = 1\n[s]\nd = " + "[" * 101 + "]" * 101, 3, 105, "s.d[0][0]"),
    ("[[t]]\n[[t]]\ne = [1, " + "{a = [" * 51 + "]}" * 51 + "]", 3, 308, "t[1].e[1].a[0].a[0]"),
    ("a.b = {c = 2, d = [3, " + "[" * 100 + "]" * 100 + "]}", 1, 121, "a.b.d[1][0][0]"),
])
def test_nesting_past_the_limit_names_its_key_path(text: str, line: int, column: int,
                                                   path: str) -> None:
    problems: list[Any] = []
    assert parse_toml(text, "f.toml", "p", problems) is None
    (problem,) = problems
    assert problem.message.startswith("nested more than 100 ")
    assert (problem.line, problem.column) == (line, column)
    assert problem.key_path.startswith(path) and " " not in problem.key_path


def test_a_clean_load_never_scans_for_positions_until_one_is_read(
        write: Any, kinds: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import toolhost.config.toml_source as source
    scans: list[str] = []
    real = source.scan_marks
    monkeypatch.setattr(source, "scan_marks",
                        lambda text, file, layer: scans.append(file) or real(text, file, layer))
    config = load_config(write("c.toml", TOML_TWIN), kinds=kinds, layers=False)
    assert scans == []  # the model names every origin, none read yet
    add = config.servers["calc"].tools["add"]
    assert add.origin.file.endswith("c.toml") and scans == []  # the file needs no scan
    assert (add.origin.line, config.permissions.rules[1].origin.line) == (7, 17)
    assert len(scans) == 1  # one scan, then every origin of the file reads it
