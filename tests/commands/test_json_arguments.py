"""JSON on the command line (``permissions check --input``, ``call --json``, ``call key=value``
and their ``@FILE`` / ``-`` forms) is read one guarded way: a FIFO or a device is refused
without reading it, stdin is capped, deep nesting, long integers, NaN/Infinity and repeated
keys are one line naming the flag -- never a hang, a swollen process or an internal error."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolhost.commands._jsonarg import JsonArgumentError, json_argument
from toolhost.jsontext import JsonTextError, parse_json

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "examples" / "configs" / "demo.yaml")
TOOLHOST = str(Path(sys.executable).parent / "toolhost")
DEEP = "[" * 30_000 + "]" * 30_000
LONG_INT = "9" * 5000


def _bounded_memory() -> None:
    # reading /dev/zero is the bug: with a cap it fails in seconds instead of swelling
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def _run(*args: str, cwd: Path,
         stdin: Any = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TOOLHOST_DEBUG"}
    return subprocess.run([TOOLHOST, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=60, env=env, stdin=stdin, preexec_fn=_bounded_memory)


def _refused(done: subprocess.CompletedProcess[str], code: int, prefix: str,
             *text: str) -> None:
    assert done.returncode == code, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(prefix), done.stderr
    for part in text:
        assert part in lines[0], done.stderr


def _check(tmp_path: Path, value: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    return _run("permissions", "check", DEMO, "mcp__notes__read", "--input", value,
                cwd=tmp_path, **kw)


# -- permissions check --input -------------------------------------------------------------

def test_input_from_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "in.fifo")
    _refused(_check(tmp_path, "@in.fifo"), 2, "toolhost permissions check: --input @in.fifo",
             "not a regular file")


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_input_from_a_device_is_refused_without_reading_it(tmp_path: Path,
                                                           device: str) -> None:
    _refused(_check(tmp_path, "@" + device), 2, f"toolhost permissions check: --input @{device}",
             "not a regular file")


def test_input_from_a_directory(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    _refused(_check(tmp_path, "@d"), 2, "toolhost permissions check: --input @d",
             "a directory")


def test_endless_stdin_is_capped(tmp_path: Path) -> None:
    with open("/dev/zero", "rb") as zero:
        done = _check(tmp_path, "-", stdin=zero)
    _refused(done, 2, "toolhost permissions check: --input -", "more than the limit")


@pytest.mark.parametrize(("value", "expected"), [
    (DEEP, "nested more than 256 arrays or objects deep (line 1, column 257)"),
    ('{"n": ' + LONG_INT + "}", "an integer of 5,000 digits"),
    ('{"n": NaN}', "NaN is not JSON"),
    ('{"n": -Infinity}', "-Infinity is not JSON"),
    ('{"n": 1e400}', "1e400 is too large"),
    ('{"command": "ls", "command": "rm -rf /"}', 'the key "command" appears twice'),
])
def test_inline_input_json_refused(tmp_path: Path, value: str, expected: str) -> None:
    _refused(_check(tmp_path, value), 2, "toolhost permissions check: --input: ", expected)


@pytest.mark.parametrize(("value", "hint"), [
    ("name=x", """; write a JSON object: '{"name": "x"}'"""),
    ("{name: x}", "; JSON quotes every key and text value with double quotes"),
    ("{'name': 'x'}", "; JSON quotes every key and text value with double quotes"),
])
def test_input_written_another_way_shows_the_json(value: str, hint: str) -> None:
    with pytest.raises(JsonArgumentError) as caught:
        json_argument("--input", value)
    assert str(caught.value).startswith("--input is not JSON: ") and hint in str(caught.value)
    assert "\n" not in str(caught.value)


def test_input_file_and_stdin_are_parsed_the_same_way(tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    _refused(_check(tmp_path, "@deep.json"), 2, "toolhost permissions check: --input @deep.json",
             "deep.json:1:257: not valid JSON: nested more than 256")
    with open(tmp_path / "deep.json", "rb") as deep:
        _refused(_check(tmp_path, "-", stdin=deep), 2, "toolhost permissions check: --input -",
                 "nested more than 256")


def test_good_input_still_decides(tmp_path: Path) -> None:
    (tmp_path / "ok.json").write_text('{"name": "todo"}')
    for value in ('{"name": "todo"}', "@ok.json"):
        done = _check(tmp_path, value)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(("allow", "deny", "ask")), done.stdout


# -- call --json and key=value ----------------------------------------------------------------

def _call(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return _run("call", DEMO, "calc.add", *args, cwd=tmp_path)


@pytest.mark.parametrize(("args", "expected"), [
    (["--json", '{"a": ' + DEEP + ', "b": 1}'], "--json: nested more than 256"),
    (["a=" + DEEP, "b=2"], "argument a: nested more than 256"),
    (["--json", '{"a": NaN, "b": 1}'], "--json: NaN is not JSON"),
    (["a=NaN", "b=1"], "argument a: NaN is not JSON"),
    (["a=-Infinity", "b=1"], "argument a: -Infinity is not JSON"),
    (["a=1e400", "b=1"], "argument a: number 1e400 is too large"),
    (["--json", '{"a": ' + LONG_INT + ', "b": 1}'], "--json: an integer of 5,000 digits"),
    (["a=" + LONG_INT, "b=1"], "argument a: an integer of 5,000 digits"),
    (["--json", '{"a": 1, "a": 2, "b": 1}'], '--json: the key "a" appears twice'),
])
def test_call_json_refused(tmp_path: Path, args: list[str], expected: str) -> None:
    _refused(_call(tmp_path, *args), 2, "toolhost call: ", expected)


def test_call_json_from_a_fifo_and_a_device(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "in.fifo")
    _refused(_call(tmp_path, "--json", "@in.fifo"), 2, "toolhost call: --json @in.fifo",
             "not a regular file")
    _refused(_call(tmp_path, "--json", "@/dev/zero"), 2, "toolhost call: --json @/dev/zero",
             "not a regular file")


def test_call_json_from_a_file_runs_the_tool(tmp_path: Path) -> None:
    (tmp_path / "args.json").write_text('{"a": 2, "b": 3}')
    done = _call(tmp_path, "--json", "@args.json")
    assert done.returncode == 0, done.stderr
    assert '"text": "5"' in done.stdout
    plain = _call(tmp_path, "a=2", "b=3")
    assert plain.returncode == 0 and plain.stdout == "5\n"


# -- the shared readers -----------------------------------------------------------------------

@pytest.mark.parametrize(("text", "line", "column"), [
    ('{"a":\n  NaN}', 2, 3), ("[1,\n 1e999]", 2, 2), ('{"k": 1,\n  "k": 2}', 2, 3),
    ("[" * 257 + "]" * 257, 1, 257),
])
def test_parse_json_locates_what_it_refuses(text: str, line: int, column: int) -> None:
    with pytest.raises(JsonTextError) as caught:
        parse_json(text)
    assert (caught.value.line, caught.value.column) == (line, column)
    assert not caught.value.syntax


def test_parse_json_keeps_ordinary_json_as_json_loads_does() -> None:
    text = ('{"a": [1, -0.0, 1.5e300, "NaN", "x\\u00e9"], "b": {"c": null}, '
            '"d": 12345678901234567890}')
    import json

    assert parse_json(text) == json.loads(text)
    assert parse_json("[" * 256 + "]" * 256) is not None
    assert parse_json('"' + "[" * 1000 + '"') == "[" * 1000  # brackets in strings do not count


def test_json_argument_errors_name_the_flag(tmp_path: Path) -> None:
    with pytest.raises(JsonArgumentError, match=r"^--x is not JSON: Expecting value"):
        json_argument("--x", "[")
    with pytest.raises(JsonArgumentError, match=r"^--x @.*nope.json: .*no such file"):
        json_argument("--x", f"@{tmp_path / 'nope.json'}")


def test_an_at_sign_alone_says_a_file_is_missing(tmp_path: Path) -> None:
    # `--json @$ARGS` with ARGS unset said "--json @: : no such file"
    with pytest.raises(JsonArgumentError, match=r"^--x @: no file named after the @"):
        json_argument("--x", "@")
