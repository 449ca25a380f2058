"""Backend options (``command``, ``http``, ...) are checked with their JSON Schema, but the
messages speak the config's language: what was expected (the allowed values, the forms an
element may take), what was found by its kind, and a hint -- never jsonschema's Python reprs.
A TOML date is named as a date."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from toolhost.config.checks import describe
from toolhost.config.toml_source import parse_toml
from toolhost.errors import Problem

TOOLHOST = str(Path(sys.executable).parent / "toolhost")
RAW = ("is not valid under any", "is not one of", "should be non-empty", "{'", "['",
       "is too short", "is not of type")

YAML = {
    "argv element mapping": ("command: [{x: 1}]", "expected a string or a number or a mapping "
                             "{each, argv} or a mapping {if, argv}, got a mapping"),
    "argv element list": ("command: [echo, [a]]", "got a list"),
    "argv element null": ("command: [echo, null]", "got null"),
    "method lowercase": ('http: {url: "http://x", method: get}',
                         "expected one of GET | HEAD | OPTIONS | POST | PUT | PATCH | DELETE, "
                         "got 'get' (did you mean 'GET'?)"),
    "method number": ('http: {url: "http://x", method: 7}', "got an integer"),
    "stdout mapping": ("command: {argv: [echo], stdout: {a: 1}}",
                       "expected one of text | json | lines | binary, got a mapping"),
    "stdout typo": ("command: {argv: [echo], stdout: jsn}", "got 'jsn' (did you mean 'json'?)"),
    "stdout case": ("command: {argv: [echo], stdout: JSON}", "(did you mean 'json'?)"),
    "stderr": ("command: {argv: [echo], stderr: drop}", "expected one of error | log"),
    "empty argv": ("command: {argv: []}", "expected a list of at least 1 element, got an "
                   "empty list (argv needs at least the program)"),
    "empty shorthand": ("command: []", "(argv needs at least the program)"),
    "empty ok_codes": ("command: {argv: [echo], ok_codes: []}", "got an empty list"),
    "each without argv": ("command: [echo, {each: x}]", "a mapping {each, argv}"),
}


def _validate(path: Path) -> str:
    done = subprocess.run([TOOLHOST, "validate", "--no-layers", "--no-compile", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done
    return done.stdout + done.stderr


@pytest.mark.parametrize("case", sorted(YAML))
def test_a_bad_backend_option_is_said_in_the_config_language(tmp_path: Path, case: str) -> None:
    block, expected = YAML[case]
    path = tmp_path / "bk.yaml"
    path.write_text(f"toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n        {block}\n")
    out = _validate(path)
    assert expected in out, out
    for raw in RAW:
        assert raw not in out, out


TOML = {
    "argv table": ("[[servers.s.tools.t.command]]\nx = 1\n", "got a mapping"),
    "method": ('[servers.s.tools.t.http]\nurl = "http://x"\nmethod = "post"\n',
               "did you mean 'POST'?"),
    "date as count": ('[servers.s.tools.t]\ncommand = ["echo"]\nmax_output_chars = 1979-05-27\n',
                      "expected an integer, got a date (1979-05-27)"),
    "datetime as count": ('[servers.s.tools.t]\ncommand = ["echo"]\n'
                          "max_output_chars = 1979-05-27T07:32:00Z\n", "got a date and time"),
    "time as count": ('[servers.s.tools.t]\ncommand = ["echo"]\nmax_output_chars = 07:32:00\n',
                      "got a time (07:32:00)"),
    "list as description": ('[servers.s.tools.t]\ncommand = "x"\ndescription = [1]\n',
                                  "got a list"),
    "date in a method": ('[servers.s.tools.t.http]\nurl = "http://x"\nmethod = 1979-05-27\n',
                         "got a date (1979-05-27)"),
}


@pytest.mark.parametrize("case", sorted(TOML))
def test_a_bad_toml_value_is_named_for_what_was_written(tmp_path: Path, case: str) -> None:
    body, expected = TOML[case]
    path = tmp_path / "bk.toml"
    path.write_text("toolhost = 1\n" + body)
    out = _validate(path)
    assert expected in out, out
    for raw in RAW:
        assert raw not in out, out


def test_a_toml_date_is_still_a_string_where_a_string_belongs() -> None:
    from toolhost.config.checks import TomlDate

    problems: list[Problem] = []
    doc = parse_toml("d = 1979-05-27\nt = 1979-05-27T07:32:00Z\nl = [07:32:00]\n", "c.toml",
                     "project", problems)
    assert doc is not None and not problems
    assert doc.data == {"d": "1979-05-27", "t": "1979-05-27T07:32:00Z",
                        "l": ["07:32:00"]}
    assert isinstance(doc.data["d"], str) and isinstance(doc.data["d"], TomlDate)
    assert describe(doc.data["d"]) == "a date (1979-05-27)"
    assert describe("1979-05-27") == "a string"
