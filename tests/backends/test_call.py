"""``toolhost call``: loads a real config file, runs one tool, prints, exits 1 on isError."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolhost.cli import main
from toolhost.commands.call import parse_value, split_tool

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "configs"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["call", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("raw", "schema", "expected"), [
    ("5", {"type": "integer"}, 5),
    ("2.5", {"type": "number"}, 2.5),
    ("007", {"type": "string"}, "007"),
    ("yes", {"type": "boolean"}, True),
    ("0", {"type": "boolean"}, False),
    ('["a", 1]', {"type": "array"}, ["a", 1]),
    ('{"k": null}', {"type": "object"}, {"k": None}),
    ("null", {"type": ["integer", "null"]}, None),
    ("7", {"anyOf": [{"type": "integer"}, {"type": "null"}]}, 7),
    ("x", {"type": "integer"}, "x"),  # left for the validator to reject, by name
    ("[1]", {}, [1]),
    ("plain", {}, "plain"),
])
def test_parse_value(raw: str, schema: dict[str, Any], expected: Any) -> None:
    assert parse_value(raw, schema) == expected


def test_split_tool() -> None:
    assert split_tool("calc.add") == ("calc", "add")
    assert split_tool("mcp__calc__add") == ("calc", "add")
    with pytest.raises(ValueError, match=r"SERVER\.TOOL"):
        split_tool("add")


def test_human_and_raw_output(capsys: pytest.CaptureFixture[str]) -> None:
    config = str(EXAMPLES / "backends-python.yaml")
    assert run(capsys, config, "demo.add", "a=2", "b=3") == (0, "5\n", "")
    code, out, _ = run(capsys, config, "demo.stats", "text=b a b", "top=1")
    assert code == 0 and json.loads(out) == {"words": 3, "characters": 5, "top": ["b"]}
    code, out, _ = run(capsys, config, "mcp__demo__add", "--json", '{"a": 1, "b": 2}', "b=5",
                       "--raw")
    assert code == 0
    assert json.loads(out) == {"content": [{"type": "text", "text": "6"}], "isError": False}
    commands = str(EXAMPLES / "backends-command.yaml")
    assert run(capsys, commands, "files.echo", "text=hi") == (0, "hi\n", "")  # one newline


@pytest.mark.parametrize("argv", [
    ["--json", '{"a": 2, "b": 3}'],           # the arguments as JSON: raw result out
    ["a=2", "b=3", "--json"],                 # a bare --json: raw result out
    ["--json", "a=2", "b=3"],                 # a bare --json before the pairs
])
def test_json_prints_the_raw_call_tool_result(capsys: pytest.CaptureFixture[str],
                                              argv: list[str]) -> None:
    code, out, _ = run(capsys, str(EXAMPLES / "backends-python.yaml"), "demo.add", *argv)
    assert code == 0
    assert json.loads(out) == {"content": [{"type": "text", "text": "5"}], "isError": False}


def test_a_failed_call_exits_1_and_a_wrong_command_line_2(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = str(EXAMPLES / "backends-python.yaml")
    code, out, err = run(capsys, config, "demo.fail", "reason=disk full")
    assert (code, out) == (1, "Tool 'fail' failed: RuntimeError: disk full\n")
    code, out, _ = run(capsys, config, "demo.add_small", "a=200", "b=1")
    assert code == 1 and "a: 200 is greater than the maximum of 100" in out
    # a wrong command line is 2, as argparse's own usage errors are: a script tells it from a
    # result that is an error
    code, _, err = run(capsys, config, "demo.nope")
    assert code == 2 and "has no tool 'nope' (tools: add," in err
    for name in ("demo." + "x" * 100_000, "x" * 100_000 + ".add"):  # cut, not the line
        code, _, err = run(capsys, config, name)
        assert code == 2 and "…99,800 more characters" in err and len(err) < 1_000
    code, _, err = run(capsys, config, "demo.ad")
    assert code == 2 and err.rstrip().endswith("; did you mean 'add'?")
    code, _, err = run(capsys, config, "dmeo.add")
    assert code == 2 and "no server 'dmeo' (servers: demo); did you mean 'demo'?" in err
    code, _, err = run(capsys, config, "add")
    assert code == 2 and err.rstrip().endswith("not 'add'; did you mean demo.add?")
    code, _, err = run(capsys, config, "demo.add", "--json", "[1]")
    assert code == 2 and "--json must be a JSON object" in err
    code, _, err = run(capsys, config, "demo.add", "novalue")
    assert code == 2 and "arguments are key=value" in err
    bad = tmp_path / "bad.yaml"
    bad.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n      t: {python: 'nope_mod_x:f'}\n")
    code, _, err = run(capsys, str(bad), "s.t")
    assert code == 1 and "bad.yaml:5" in err and "cannot import module 'nope_mod_x'" in err


def test_command_tool_through_a_real_process(tmp_path: Path) -> None:
    config = tmp_path / "tools.yaml"
    config.write_text(
        "toolhost: 1\nservers:\n  sh:\n    tools:\n"
        "      echo:\n        command: [printf, '%s|', '{{ text }}', '{{ files }}']\n"
        "        params:\n          text: string\n"
        "          files: {type: array, items: {type: string}}\n")
    argv = [sys.executable, "-m", "toolhost", "call", str(config), "sh.echo",
            "text=$(id); rm -rf /", 'files=["a b", "{{ 7*7 }}"]']
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "$(id); rm -rf /|a b|{{ 7*7 }}|\n"
    failed = subprocess.run([*argv[:5], "sh.echo", "text=1"], capture_output=True, text=True,
                            timeout=60)
    # a required argument left out: how to call it, before any call (a usage error)
    assert failed.returncode == 2 and "the tool 'echo' needs 'files'" in failed.stderr
