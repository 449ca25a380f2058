"""``toolhost call`` with arguments that cannot fit the tool at all: a required one left out,
a ``--json`` key the tool does not take, a value not of its parameter's type. Each is a
command-line mistake (exit 2) that says the tool's arguments and, for a missing one, a line to
copy. Before, the tool's validator answered as a failed result (exit 1): "Invalid arguments
for tool 'add': 'b' is a required property", with nothing on how to call it."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.cli import main

CONFIG = """\
toolhost: 1
servers:
  s:
    tools:
      t:
        command: [echo, "{{ n }}", "{{ word }}"]
        params:
          n: {type: integer, maximum: 100}
          word: {type: string}
          ratio: {type: number, required: false}
          flag: {type: boolean, default: false}
          items: {type: array, items: {type: integer}, required: false}
          opts: {type: object, required: false}
          either: {type: [integer, "null"], required: false}
"""


def _call(tmp_path: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    code = main(["call", str(config), "s.t", *argv])
    out, err = capsys.readouterr()
    return code, out + err


TAKES = "it takes: n=INTEGER word=STRING [ratio=NUMBER] [flag=BOOLEAN] [items=ARRAY] " \
        "[opts=OBJECT] [either=INTEGER]"


@pytest.mark.parametrize(("argv", "says"), [
    (["n=1"], ["the tool 't' needs 'word'; " + TAKES, "e.g.: toolhost call ", " s.t n=1 word=..."]),
    ([], ["needs 'n' and 'word'", " s.t n=... word=..."]),
    (["--json", '{"word": "w"}'], ["needs 'n'", " s.t word=w n=..."]),
])
def test_a_required_argument_left_out_says_how_to_call(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
        says: list[str]) -> None:
    code, said = _call(tmp_path, capsys, *argv)
    assert code == 2, said
    for part in says:
        assert part in said, said


def test_a_json_key_the_tool_does_not_take_is_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # as `wrod=w` is: exit 2, with the did-you-mean
    code, said = _call(tmp_path, capsys, "--json", '{"n": 1, "wrod": "w"}')
    assert code == 2, said
    assert "the tool 't' has no argument 'wrod' (did you mean 'word'?); " + TAKES in said, said


@pytest.mark.parametrize(("pair", "takes"), [
    ("n=x", "takes a whole number, not 'x'"),
    ("n=1.5", "takes a whole number, not '1.5'"),
    ("ratio=many", "takes a number, not 'many'"),
    ("flag=maybe", "takes true or false, not 'maybe'"),
    ("items=a,b", "takes a JSON array, as key='[1, 2]', not 'a,b'"),
    ("opts=k=1", "takes a JSON object"),
    ("either=x", "takes a whole number or null, not 'x'"),
])
def test_a_value_of_no_type_the_parameter_takes_is_a_usage_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], pair: str, takes: str) -> None:
    argv = ["n=1", "word=w", pair] if not pair.startswith("n=") else ["word=w", pair]
    code, said = _call(tmp_path, capsys, *argv)
    assert code == 2, said
    assert takes in said and TAKES.replace("it takes", "the tool 't' takes") in said, said


@pytest.mark.parametrize("argv", [["--json", '{"n": 2.0, "word": "w"}'], ["n=2", "word=w"],
                                  ["n=1", "word=w", "either=null"]])
def test_what_fits_is_called(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                             argv: list[str]) -> None:
    code, said = _call(tmp_path, capsys, *argv)
    assert code == 0, said


def test_what_only_the_schema_judges_is_still_the_tool_s_answer(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, said = _call(tmp_path, capsys, "n=200", "word=w")
    assert code == 1 and "200 is greater than the maximum of 100" in said, said
