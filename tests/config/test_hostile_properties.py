"""Property tests of `load_config` against hostile configs, by family: a hostile value planted
at any key of a small valid config (wrong types, deep nesting, huge numbers and strings,
unicode: surrogates, bidi controls, NUL, CR), written as YAML or TOML, and hostile text
spliced into the file anywhere (syntax errors, tags, anchors, merge keys, duplicate keys,
dotted-key conflicts). The contract for every one: it loads, or ConfigError whose every
problem names the file and a line, and a key path (a planted value's, or the one where a
syntax error stopped the parser)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from toolhost.config import load_config
from toolhost.errors import ConfigError

settings.register_profile("h28-ci", derandomize=True, deadline=None, max_examples=40,
                          suppress_health_check=[HealthCheck.too_slow,
                                                 HealthCheck.function_scoped_fixture])
settings.register_profile("h28-dev", deadline=None, max_examples=40,
                          suppress_health_check=[HealthCheck.too_slow,
                                                 HealthCheck.function_scoped_fixture])
PROFILE = "h28-ci" if os.environ.get("CI") else "h28-dev"

BASE: dict[str, Any] = {"toolhost": 1, "servers": {"s": {
    "description": "d", "timeout": "5s", "env": {"A": "b"},
    "tools": {"t": {"command": ["echo", "{{ p }}"], "params": {"p": {"type": "string"}}}}}},
    "permissions": {"allow": ["mcp__s__t"], "deny": []}}


def _paths(data: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    items = data.items() if isinstance(data, dict) else enumerate(data) \
        if isinstance(data, list) else []
    for key, value in items:
        out.append((*here, key))
        out.extend(_paths(value, (*here, key)))
    return out


PATHS = _paths(BASE)
def _nested(depth: int) -> list[Any]:
    """A list nested ``depth`` deep (past the default depth limit from 100 on)."""
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


_ODD = st.sampled_from(["\x00", "\r", "\u202e", "\u2066", "\ufeff", "\u2028", "\x1b[31m",
                        "\U0001f600", "${A}", "${", "{{ x }}", "é"])
_STRINGS = st.lists(_ODD | st.text(max_size=5), max_size=6).map("".join) \
    | st.sampled_from(["x" * 20_000, "\ud800"])
_SCALARS = (st.none() | st.booleans() | st.integers() | st.sampled_from([10**400, -(10**400)])
            | st.floats(allow_nan=False, allow_infinity=False) | _STRINGS)
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(_STRINGS, inner, max_size=3), max_leaves=8) \
    | st.integers(90, 400).map(_nested)


def _check(path: Path, keyed: bool) -> None:
    try:
        load_config(path, environ={"A": "${A}${A}"}, layers=False)
    except ConfigError as exc:
        assert exc.problems
        for problem in exc.problems:
            assert problem.file == str(path) and problem.line > 0, problem
            assert "\n" not in str(problem) and len(str(problem)) < 3000 + len(str(path))
            if keyed:
                assert problem.key_path, problem


def _toml(value: Any) -> str:
    """``value`` as TOML (inline tables and arrays); TypeError for null, which TOML lacks."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # JSON's escapes are TOML's (a lone \ud800 stays refused)
    if isinstance(value, list):
        return "[" + ", ".join(map(_toml, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    raise TypeError(value)


def _toml_doc(data: dict[str, Any]) -> str:
    return "".join(f"{json.dumps(k)} = {_toml(v)}\n" for k, v in data.items())


def _write(tmp_path: Path, data: dict[str, Any], toml: bool) -> Path:
    path = tmp_path / ("c.toml" if toml else "c.yaml")
    try:
        text = _toml_doc(data) if toml else ""
    except TypeError:  # null, which TOML lacks: as YAML
        path = tmp_path / "c.yaml"
    if path.suffix == ".yaml":
        try:  # block YAML: libyaml reads a one-line flow collection whole before its first
            # event, so a syntax error inside one has no key path (line and column say where)
            text = yaml.safe_dump(data, default_flow_style=False)
        except (RecursionError, yaml.YAMLError):
            text = json.dumps(data, ensure_ascii=False)
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    return path


def _plant(at: tuple[Any, ...], value: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(BASE))
    node = data
    for key in at[:-1]:
        node = node[key]
    node[at[-1]] = value
    return data  # type: ignore[no-any-return]


@settings(settings.get_profile(PROFILE))
@given(st.sampled_from(PATHS), _VALUES, st.booleans())
@example(("servers", "s", "tools", "t", "command", 1), "\ud800", False)
@example(("servers", "s", "env", "A"), "x" * 20_000, True)
def test_a_hostile_value_at_any_key_loads_or_is_located(tmp_path: Path, at: tuple[Any, ...],
                                                         value: Any, toml: bool) -> None:
    _check(_write(tmp_path, _plant(at, value), toml), keyed=True)


_SPLICE = st.sampled_from([
    "&a ", "*a", "<<: *a\n", "!!python/object:os.system ", "!x ", "[", "{", "]", "\"", "'",
    "\\ud800", "\x00", "\t", ": ", "- ", "\n  s:\n", "\ntoolhost: 2\n", "servers.s = 1\n",
    "[servers]\n", "[[servers]]\n", "a.b = 1\na = 2\n", "---\n", "%YAML 1.1\n", "? ",
    "<<<<<<< HEAD\n"])
YAML_TEXT = json.dumps(BASE, indent=2)
TOML_TEXT = ('toolhost = 1\n[servers.s]\ndescription = "d"\ntimeout = "5s"\nenv = {A = "b"}\n'
             '[servers.s.tools.t]\ncommand = ["echo", "{{ p }}"]\nparams.p.type = "string"\n'
             '[permissions]\nallow = ["mcp__s__t"]\ndeny = []\n')


@settings(settings.get_profile(PROFILE))
@given(st.booleans(), st.integers(0, 10_000), st.lists(_SPLICE, min_size=1, max_size=3))
@example(False, 120, ["\\ud800"])
@example(True, 80, ["["])
def test_hostile_text_spliced_anywhere_is_located(tmp_path: Path, toml: bool, at: int,
                                                   splice: list[str]) -> None:
    text = TOML_TEXT if toml else YAML_TEXT
    at %= len(text)
    path = tmp_path / ("c.toml" if toml else "c.yaml")
    path.write_text(text[:at] + "".join(splice) + text[at:], encoding="utf-8")
    _check(path, keyed=False)
