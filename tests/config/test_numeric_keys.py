"""Every numeric config key refuses what its consumer cannot use, with one located line:
integers of hundreds or thousands of digits (no float has them), huge floats, negatives,
booleans, in YAML and TOML."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.inproc import run_cli
from toolhost.backends.registry import builtin_kinds
from toolhost.config import load_config
from toolhost.config.checks import MAX_DURATION, parse_duration
from toolhost.errors import ConfigError, Problem

BIG = "9" * 3000  # > 308 digits: float() of it overflows
HEX = "0x" + "f" * 900
HUGE_FLOAT = "1.0e300"


def _problems(path: Path) -> list[Problem]:
    with pytest.raises(ConfigError) as info:
        load_config(path, kinds=builtin_kinds(), layers=False)
    return list(info.value.problems)


def _tool(extra: str) -> str:
    return ("toolhost: 1\nservers:\n  a:\n    tools:\n"
            f"      t: {{{extra}}}\n")


@pytest.mark.parametrize("value", [BIG, HEX, HUGE_FLOAT, "-5", "0", "true", "-" + BIG,
                                   f'"{BIG}s"', '"9999999h"', '"0ms"', "604801", "[]"])
@pytest.mark.parametrize("where", ["server", "tool"])
def test_a_duration_out_of_range_is_located(write: Any, value: str, where: str) -> None:
    if where == "server":
        text = ("toolhost: 1\nservers:\n  a:\n    timeout: " + value +
                "\n    tools:\n      t: {command: [echo]}\n")
        path_key = "servers.a.timeout"
    else:
        text = _tool(f"command: [echo], timeout: {value}")
        path_key = "servers.a.tools.t.timeout"
    found = _problems(write("c.yaml", text))
    assert [(p.key_path, p.line > 0) for p in found] == [(path_key, True)], found
    assert "duration" in found[0].message and len(str(found[0])) < 300


@pytest.mark.parametrize(("key", "value"), [
    ("max_output_chars", BIG), ("max_output_chars", "2147483648"),
    ("max_output_chars", "true"), ("max_output_chars", "0"), ("max_output_chars", HEX),
])
def test_a_tool_count_out_of_range_is_located(write: Any, key: str, value: str) -> None:
    found = _problems(write("c.yaml", _tool(f"command: [echo], {key}: {value}")))
    assert [p.key_path for p in found] == [f"servers.a.tools.t.{key}"], found
    assert len(str(found[0])) < 300


@pytest.mark.parametrize(("block", "key"), [
    ("command: {argv: [echo], max_output_bytes: %s}", "command.max_output_bytes"),
    ("command: {argv: [echo], ok_codes: [%s]}", "command.ok_codes[0]"),
    ("http: {url: 'http://h/', backoff: %s}", "http.backoff"),
    ("http: {url: 'http://h/', max_retry_after: %s}", "http.max_retry_after"),
    ("http: {url: 'http://h/', max_response_bytes: %s}", "http.max_response_bytes"),
])
@pytest.mark.parametrize("value", [BIG, "-" + BIG, HUGE_FLOAT])
def test_a_backend_number_out_of_range_is_located(write: Any, block: str, key: str,
                                                  value: str) -> None:
    found = _problems(write("c.yaml", _tool(block % value)))
    assert [p.key_path for p in found] == [f"servers.a.tools.t.{key}"], found
    assert len(str(found[0])) < 300  # not the 3,000 digits again


def test_run_max_turns_is_bounded(write: Any) -> None:
    text = f"toolhost: 1\nrun: {{max_turns: {BIG}}}\nservers: {{}}\n"
    found = _problems(write("c.yaml", text))
    assert [p.key_path for p in found] == ["run.max_turns"] and len(str(found[0])) < 300


def test_toml_numbers_are_checked_the_same(write: Any) -> None:
    text = (f'toolhost = 1\n[servers.a]\ntimeout = {BIG}\n[servers.a.tools.t]\n'
            f'command = ["echo"]\ntimeout = 1e300\nmax_output_chars = {BIG}\n')
    found = _problems(write("c.toml", text))
    assert sorted(p.key_path for p in found) == [
        "servers.a.timeout", "servers.a.tools.t.max_output_chars", "servers.a.tools.t.timeout"]
    assert all(p.line > 0 and len(str(p)) < 300 for p in found)


def test_parse_duration_bounds() -> None:
    assert parse_duration(MAX_DURATION) == MAX_DURATION
    assert parse_duration("7d") is None and parse_duration(10**400) is None
    assert parse_duration("9" * 400 + "ms") is None and parse_duration(float("inf")) is None
    assert parse_duration("2m") == 120.0 and parse_duration(True) is None


def test_the_red_team_file_is_a_located_error_in_a_real_process(tmp_path: Path) -> None:
    config = tmp_path / "bignum2.yaml"
    config.write_text("toolhost: 1\nservers: {a: {timeout: " + BIG +
                      ", tools: {t: {command: [echo]}}}}\n")
    proc = run_cli(["validate", "--no-compile", str(config)])
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith(f"{config}:2:15: servers.a.timeout: expected a positive "
                                  "duration"), proc.stderr
    assert "internal error" not in proc.stderr and len(proc.stderr) < 400


@pytest.mark.parametrize(("value", "key", "hint"), [
    ("5", "servers.s.timeout", "'5' is text (quoted, or a ${...} value, which is always text): "
     "give it a unit, '5s'"),
    (" 2.5 ", "servers.s.timeout", "give it a unit, '2.5s'"),
    ("5", "servers.s.tools.t.max_output_chars", "a ${...} value (or a quoted number) is text: "
     "write the number itself"),
])
def test_a_number_from_an_env_value_says_it_is_text(
        value: str, key: str, hint: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # `timeout: ${T}` with T=5 said "expected ... seconds (5, 2.5) ..., got '5'": 5 looked valid
    monkeypatch.setenv("T", value)
    path = tmp_path / "c.yaml"
    field = "timeout" if key.endswith("timeout") else "max_output_chars"
    server = "    timeout: ${T}\n" if field == "timeout" else ""
    tool = "        max_output_chars: ${T}\n" if field != "timeout" else ""
    path.write_text("toolhost: 1\nservers:\n  s:\n" + server + "    tools:\n      t:\n"
                    "        command: [echo]\n" + tool)
    (problem,) = _problems(path)
    assert problem.key_path == key
    assert hint in problem.hint, problem.hint


@pytest.mark.parametrize(("syntax", "value"), [
    ("yaml", "1e-320"), ("yaml", "5e-324"), ("yaml", "0.0009"), ("yaml", "'0.5ms'"),
    ("yaml", "'.0001s'"), ("toml", "1e-320"), ("toml", '"0.9ms"'),
])
def test_a_duration_under_one_millisecond_is_located(write: Any, syntax: str,
                                                     value: str) -> None:
    """A positive duration under 1 ms (a subnormal float, ``0.5ms``) is refused: passed on in
    whole milliseconds, it would be 0."""
    if syntax == "yaml":
        path = write("c.yaml", _tool(f"command: [echo], timeout: {value}"))
    else:
        path = write("c.toml", 'toolhost = 1\n[servers.a.tools.t]\ncommand = ["echo"]\n'
                     f"timeout = {value}\n")
    found = _problems(path)
    assert [(p.key_path, p.line > 0) for p in found] == [("servers.a.tools.t.timeout", True)]
    assert "shorter than 1 ms" in found[0].message, found


def test_one_millisecond_is_the_shortest_duration() -> None:
    assert parse_duration(0.001) == 0.001 and parse_duration("1ms") == 0.001
    assert parse_duration(0.0009) is None and parse_duration(5e-324) is None
    assert parse_duration("0.999ms") is None
