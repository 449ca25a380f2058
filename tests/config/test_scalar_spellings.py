"""Scalars a grammar reads otherwise than the author meant get a located line that says what
was written: YAML 1.1's words (``country: NO`` is false, ``name: ~`` is null) where text is
wanted, an ``enum`` value the param's own type refuses, a float literal that underflows to
0.0 (``1e-400``), a format version written as a float. One family, YAML and TOML."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.backends.registry import builtin_kinds
from toolhost.config import load_config
from toolhost.errors import ConfigError

_Y = "toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n        command: [echo, hi]\n"
_T = 'toolhost = 1\n[servers.s.tools.t]\ncommand = ["echo", "hi"]\n'
_YAML_WORD = "unquoted, YAML reads yes/no, on/off, true/false (any case) as a boolean"

REFUSED = [  # (file, text, the key path and what the first line must say)
    ("c.yaml", _Y + "        description: NO\n",
     f"servers.s.tools.t.description: expected a string, got a boolean ({_YAML_WORD}"),
    ("c.yaml", _Y + "        title: ~\n",
     "title: expected a string, got null (unquoted, ~, null and an empty value are null"),
    ("c.yaml", _Y.replace("[echo, hi]", "[echo, on]"),
     f"command[1]: expected a string or a number or a mapping {{each, argv}} or a mapping "
     f"{{if, argv}}, got a boolean ({_YAML_WORD}"),
    ("c.yaml", _Y.replace("    tools:", "    env: {DEBUG: yes}\n    tools:"),
     f"servers.s.env.DEBUG: expected a string, got a boolean ({_YAML_WORD}"),
    ("c.toml", _T + "description = true\n",
     'description: expected a string, got a boolean (quote the text, as in "true")'),
    ("c.yaml", _Y + "        params: {country: {type: string, enum: [SE, NO, DK]}}\n",
     "params.country.enum[1]: a boolean is not of the param's type (string): no argument can "
     f"be it ({_YAML_WORD}"),
    ("c.toml", _T + 'params = {n = {type = "integer", enum = [1, 2.5]}}\n',
     "params.n.enum[1]: a number is not of the param's type (integer): no argument can be it "
     "(remove it, or change the type)"),
    ("c.yaml", _Y + "        params: {flag: {type: string, default: off}}\n",
     "params.flag.default: the default does not match the param's schema: False is not of "
     f"type 'string' ({_YAML_WORD}"),
    ("c.yaml", _Y + "        timeout: 1e-400\n",
     "timeout: 1e-400 is too small for a float: it would be read as 0.0"),
    ("c.toml", _T + "timeout = -1E-400\n",
     "timeout: -1E-400 is too small for a float: it would be read as 0.0"),
    ("c.yaml", _Y + "        params: {x: {type: number, minimum: 0.00001e-330}}\n",
     "minimum: 0.00001e-330 is too small for a float"),
    ("c.yaml", _Y.replace("toolhost: 1", "toolhost: 1.0"),
     "toolhost: unsupported format version 1.0: this toolhost reads version 1 (a whole number)"),
    ("c.toml", _T.replace("toolhost = 1", "toolhost = 1e0"),
     "toolhost: unsupported format version 1.0: this toolhost reads version 1 (a whole number)"),
]

KEPT = [
    ("c.yaml", _Y + "        params: {n: {type: integer, enum: [1, 2.0]}}\n"),
    ("c.yaml", _Y + "        params: {n: {type: [string, 'null'], enum: [a, null, 'NO']}}\n"),
    ("c.toml", _T + "timeout = 1.5e-3\n"),
    ("c.yaml", _Y.replace("toolhost: 1", "toolhost: 0x1")),
]


@pytest.mark.parametrize(("name", "text", "said"), REFUSED)
def test_a_scalar_read_otherwise_is_said_so(tmp_path: Path, name: str, text: str,
                                            said: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path, kinds=builtin_kinds(), layers=False)
    first = str(info.value.problems[0])
    assert first.startswith(f"{path}:"), first
    assert said in first, first


@pytest.mark.parametrize(("name", "text"), KEPT)
def test_what_the_type_allows_is_kept(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    load_config(path, kinds=builtin_kinds(), layers=False)


@pytest.mark.parametrize(("name", "text", "said"), [
    ("c.yaml", _Y + 'run:\n  cwd: "a\\0b"\n', "run.cwd: a path cannot hold a NUL character"),
    ("c.toml", _T + '[run]\ncwd = "/tmp/a\\u0000b"\n', "run.cwd: a path cannot hold a NUL"),
    ("c.toml", _T + '[permissions]\naudit_log = "a\\u0000.log"\n',
     "permissions.audit_log: a path cannot hold a NUL character"),
    # an imported server's argv: validate (offline) said ok, the start failed
    ("c.yaml", 'toolhost: 1\nservers:\n  g:\n    mcp: {command: [srv, "a\\0b"]}\n',
     "servers.g.mcp.command[1]: holds a NUL character"),
])
def test_a_nul_in_a_path_is_a_located_problem(tmp_path: Path, name: str, text: str,
                                              said: str) -> None:
    # run.cwd: "a\0b" was an internal error (ValueError: embedded null byte), exit 2
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path, kinds=builtin_kinds(), layers=False)
    assert any(said in str(p) for p in info.value.problems), info.value.problems
