"""`toolhost call`'s key=value arguments: a mistake is one line saying what was meant.

The real entry point on a config with one tool of two params: an option typed wrong, a key
without its value, a misspelt param name (with the params the tool takes), a bare word.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.cli import main

CONFIG = ("toolhost: 1\nservers:\n  s:\n    tools:\n      greet:\n"
          "        command: [echo, '{{ name }}', '{% if excited %}!{% endif %}']\n"
          "        params:\n          name: {type: string}\n"
          "          excited: {type: boolean, default: false}\n")

CASES: dict[str, tuple[list[str], str]] = {
    "option misspelt": (["--jsn", "{}"], "unknown option '--jsn' (did you mean '--json'?)"),
    "key without value": (["name"], "argument 'name' has no value: write name=VALUE"),
    "param misspelt": (["nme=Ada"], "has no argument 'nme' (did you mean 'name'?); it takes: "
                       "name, excited"),
    "param unknown": (["colour=red"], "has no argument 'colour'; it takes: name, excited"),
    "a bare word": (["hello"], "arguments are key=value, not 'hello' (e.g. name=VALUE)"),
    "empty key": (["=x"], "arguments are key=value, not '=x'"),
    # a hostile name is quoted back cut, not whole (a 100,000-character line)
    "huge key": (["k" * 100_000 + "=1"], "has no argument 'kkkkk"),
    "huge word": (["k" * 100_000], "arguments are key=value, not 'kkkk"),
    # n=1 n=2 took the last value without a word: which one was meant is a guess
    "key twice": (["name=Ada", "name=Bob"], "argument 'name' is given twice: give it once"),
    "key twice, one empty": (["name=", "name=Bob"], "argument 'name' is given twice"),
    "--json twice": (["--json", '{"name": "A"}', "--json", '{"name": "B"}'],
                     "--json gives the arguments object twice: give it once"),
    "--json twice, after pairs": (["--json={}", "excited=true", "--json", '{"name": "B"}'],
                                  "--json gives the arguments object twice"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_wrong_argument_says_what_was_meant(tmp_path: Path, name: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    args, says = CASES[name]
    code = main(["call", str(config), "s.greet", *args])
    err = capsys.readouterr().err
    assert code != 0 and says in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert len(err) < 1000, err[:300]


def test_right_arguments_still_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    assert main(["call", str(config), "s.greet", "name=Ada", "excited=true"]) == 0
    assert capsys.readouterr().out.strip() == "Ada !"
    # a key=value pair still overrides the same key of --json (documented)
    assert main(["call", str(config), "s.greet", "--json", '{"name": "Bob"}', "name=Ada"]) == 0
    assert '"Ada' in capsys.readouterr().out
    # a bare --json (raw output) after the object keeps the object: it was dropped
    assert main(["call", str(config), "s.greet", "--json", '{"name": "Cy"}', "--json"]) == 0
    assert '"Cy' in capsys.readouterr().out
