"""A character libyaml refuses before parsing (a control character, NUL, a Unicode line
break) is located with the key path of the value that holds it, as a syntax error is."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config.sources import read_doc
from toolhost.config.yaml_source import parse_yaml
from toolhost.errors import Problem

HEAD = "toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n"


@pytest.mark.parametrize("char", ["\x00", "\x01", "\x07", "\x1b", "\x7f", "\x85", "\u2028",
                                  "\u2029", "\ufffe"])
@pytest.mark.parametrize(("body", "path"), [
    ('        description: "a{c}b"\n', "servers.s.tools.t.description"),
    ("        description: a{c}b\n", "servers.s.tools.t.description"),
    ("        command: [echo, 'a{c}']\n", "servers.s.tools.t.command[1]"),
    ("        command:\n        - echo\n        - a{c}\n", "servers.s.tools.t.command[1]"),
    ("        params: {{a: {{description: x{c}}}}}\n", "servers.s.tools.t.params.a.description"),
    ("        description: |\n          one\n          two{c}\n",
     "servers.s.tools.t.description"),
])
def test_a_refused_character_names_the_key_path_of_its_value(char: str, body: str,
                                                             path: str) -> None:
    problems: list[Problem] = []
    text = HEAD + body.format(c=char) + "        timeout: 5s\n"
    assert parse_yaml(text, "c.yaml", "project", problems) is None
    assert len(problems) == 1 and problems[0].key_path == path, problems
    at = text.index(char)
    assert problems[0].line == text.count("\n", 0, at) + 1


def test_a_refused_character_at_the_top_has_no_key_path() -> None:
    problems: list[Problem] = []
    assert parse_yaml("\x01toolhost: 1\n", "c.yaml", "project", problems) is None
    assert [(p.line, p.column, p.key_path) for p in problems] == [(1, 1, "")]


@pytest.mark.parametrize(("name", "data", "path"), [
    ("c.yaml", HEAD.encode() + b'        description: "a\xffb"\n', "servers.s.tools.t.description"),
    ("c.yaml", HEAD.encode() + b"        command: [echo, \xc3]\n", "servers.s.tools.t.command[1]"),
    ("c.toml", b'toolhost = 1\n[servers.s.tools.t]\ndescription = "a\xffb"\n',
     "servers.s.tools.t.description"),
    ("c.toml", b'toolhost = 1\n[servers.s.tools.t]\ncommand = ["echo", "\xe2\x82"]\n',
     "servers.s.tools.t.command"),
])
def test_a_byte_that_is_not_utf8_names_the_key_path_of_its_value(
        tmp_path: Path, name: str, data: bytes, path: str) -> None:
    file = tmp_path / name
    file.write_bytes(data)
    problems: list[Problem] = []
    assert read_doc(file, "project", problems) is None
    assert len(problems) == 1 and problems[0].key_path == path, problems
    assert problems[0].message.startswith("not UTF-8 text (byte 0x")
    assert problems[0].line == data.count(b"\n")  # the last line
