"""An integer written otherwise than Python writes it, where the value is passed on as text.

YAML reads ``0x10`` (and ``0b11``, ``1_000``, ``+12``, ``-0``) as an integer; an env value,
an argv element, a header or a query value is passed on as text, and that text was Python's
('16', '3', '1000', '12', '0'): ``env: {MASK: 0x1F}`` gave the program ``MASK=31``. As a
float there already is, each is now refused at its line, with the text to quote. Where a
number is meant (a timeout, a bound, a param's default) it is a number as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config.loader import load_config
from toolhost.errors import ConfigError

MESSAGE = ("an integer written otherwise than Python writes it would be passed as Python writes "
           "it (0x10 as '16', 1_000 as '1000', +12 as '12'), not as written")
HINT = 'quote it ("0x10", not 0x10) to pass the text as written, or write the number in decimal'
SPELLINGS = [("0x10", "16"), ("0x1F", "31"), ("0b11", "3"), ("1_000", "1000"),
             ("+12", "12"), ("+12_000", "12000"), ("-0", "0")]

PLACES = {
    # (the server's body with {v}, the key path of the value)
    "env": ("    env: {{X: {v}}}\n    tools:\n      t: {{command: [echo]}}\n",
            "servers.s.env.X"),
    "argv": ("    tools:\n      t:\n        command: [echo, {v}]\n",
             "servers.s.tools.t.command[1]"),
    "argv-key": ("    tools:\n      t:\n        command: {{argv: [echo, {v}]}}\n",
                 "servers.s.tools.t.command.argv[1]"),
    "group": ("    tools:\n      t:\n        command: [echo, {{if: f, argv: [-n, {v}]}}]\n"
              "        params: {{f: boolean}}\n",
              "servers.s.tools.t.command[1].argv[1]"),
    "command-env": ("    tools:\n      t:\n        command: {{argv: [echo], env: {{X: {v}}}}}\n",
                    "servers.s.tools.t.command.env.X"),
    "header": ("    base_url: http://127.0.0.1:1/\n    headers: {{X-A: {v}}}\n"
               "    tools:\n      t: {{http: {{url: x}}}}\n", "servers.s.headers.X-A"),
    "http-query": ("    base_url: http://127.0.0.1:1/\n    tools:\n"
                   "      t: {{http: {{url: x, query: {{n: {v}}}}}}}\n",
                   "servers.s.tools.t.http.query.n"),
    "upstream-env": ("    mcp: {{command: [echo], env: {{X: {v}}}}}\n", "servers.s.mcp.env.X"),
    "http-header": ("    base_url: http://127.0.0.1:1/\n    tools:\n"
                    "      t: {{http: {{url: x, headers: {{X-N: {v}}}}}}}\n",
                    "servers.s.tools.t.http.headers.X-N"),
}


def _write(tmp_path: Path, body: str, name: str = "c.yaml") -> Path:
    path = tmp_path / name
    path.write_text("toolhost: 1\nservers:\n  s:\n" + body)
    return path


@pytest.mark.parametrize(("written", "python"), SPELLINGS)
@pytest.mark.parametrize("place", sorted(PLACES))
def test_an_integer_not_written_as_python_writes_it_is_refused_where_it_is_text(
        tmp_path: Path, place: str, written: str, python: str) -> None:
    body, key_path = PLACES[place]
    path = _write(tmp_path, body.format(v=written))
    with pytest.raises(ConfigError) as caught:
        load_config(path, layers=False)
    (problem,) = caught.value.problems
    lines = path.read_text().splitlines()
    line = next(n for n, text in enumerate(lines, 1) if f" {written}" in text)
    assert (problem.line, problem.key_path) == (line, key_path), str(problem)
    assert problem.message == MESSAGE, str(problem)
    # the same words for every value: neither form of it is shown (it may be a credential)
    assert problem.hint == HINT, str(problem)
    assert python


@pytest.mark.parametrize("place", sorted(PLACES))
@pytest.mark.parametrize("value", ["16", "'0x10'", '"1_000"', "0", "-12"])
def test_a_decimal_integer_or_a_quoted_text_loads(tmp_path: Path, place: str,
                                                  value: str) -> None:
    body, _ = PLACES[place]
    load_config(_write(tmp_path, body.format(v=value)), layers=False)


def test_where_a_number_is_meant_any_spelling_is_a_number(tmp_path: Path) -> None:
    config = load_config(_write(tmp_path, (
        "    tools:\n      t:\n        command: [echo]\n        max_output_chars: 1_000\n"
        "        params:\n          n: {type: integer, default: 0x10, maximum: +12_000}\n")),
        layers=False)
    tool = config.servers["s"].tools["t"]
    assert tool.max_output_chars == 1000
    assert tool.params["n"] == {"type": "integer", "default": 16, "maximum": 12000}


def test_a_later_layer_s_value_is_judged_as_that_layer_wrote_it(tmp_path: Path) -> None:
    # the fragment's 0x10 is replaced by the project's 16: nothing stale is judged; the
    # other way round, the project's 0x10 is refused at the project's line
    (tmp_path / "base.yaml").write_text("servers:\n  s:\n    env: {X: 0x10, Y: 7}\n")
    body = "    env: {{X: {x}, Y: {y}}}\n    tools:\n      t: {{command: [echo]}}\n"
    project = "toolhost: 1\nextends: [base.yaml]\nservers:\n  s:\n"
    (tmp_path / "c.yaml").write_text(project + body.format(x="16", y="7"))
    config = load_config(tmp_path / "c.yaml", layers=False)
    assert config.servers["s"].defaults.env == {"X": "16", "Y": "7"}
    (tmp_path / "c.yaml").write_text(project + body.format(x="16", y="0b111"))
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "c.yaml", layers=False)
    (problem,) = caught.value.problems
    assert (Path(problem.file).name, problem.line, problem.key_path) == \
        ("c.yaml", 5, "servers.s.env.Y"), str(problem)


TOML_SPELLINGS = [("0x10", "16"), ("0o755", "493"), ("0b11", "3"), ("1_000", "1000"),
                  ("+12", "12"), ("-0", "0")]
TOML_PLACES = {
    "env": ("[servers.s]\nenv = {{ X = {v} }}\n[servers.s.tools.t]\ncommand = [\"echo\"]\n",
            "servers.s.env.X"),
    "dotted-env": ("[servers.s]\nenv.X = {v}\n[servers.s.tools.t]\ncommand = [\"echo\"]\n",
                   "servers.s.env.X"),
    "argv": ("[servers.s.tools.t]\ncommand = [\"echo\", \"0x10 in a string\", {v}]\n",
             "servers.s.tools.t.command[2]"),
    "argv-lines": ("[servers.s.tools.t]\ncommand = [\n  \"echo\",  # 0x10 in a comment\n"
                   "  {v},\n]\n", "servers.s.tools.t.command[1]"),
    "header": ("[servers.s]\nbase_url = \"http://127.0.0.1:1/\"\n[servers.s.headers]\n"
               "X-A = {v}\n[servers.s.tools.t]\nhttp = {{ url = \"x\" }}\n",
               "servers.s.headers.X-A"),
}


@pytest.mark.parametrize(("written", "python"), TOML_SPELLINGS)
@pytest.mark.parametrize("place", sorted(TOML_PLACES))
def test_toml_integers_not_written_as_python_writes_them_are_refused_too(
        tmp_path: Path, place: str, written: str, python: str) -> None:
    body, key_path = TOML_PLACES[place]
    path = tmp_path / "c.toml"
    path.write_text("toolhost = 1\n" + body.format(v=written))
    with pytest.raises(ConfigError) as caught:
        load_config(path, layers=False)
    (problem,) = caught.value.problems
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1)
                if f" {written}" in text.split("#")[0])
    assert (problem.line, problem.key_path) == (line, key_path), str(problem)
    assert problem.message == MESSAGE, str(problem)
    assert python


@pytest.mark.parametrize("place", sorted(TOML_PLACES))
@pytest.mark.parametrize("value", ["16", "\"0x10\"", "'1_000'", "-12"])
def test_toml_decimal_integers_and_strings_load(tmp_path: Path, place: str,
                                                value: str) -> None:
    path = tmp_path / "c.toml"
    path.write_text("toolhost = 1\n" + TOML_PLACES[place][0].format(v=value))
    load_config(path, layers=False)


def test_toml_numbers_meant_as_numbers_keep_any_spelling(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("toolhost = 1\n[servers.s.tools.t]\ncommand = [\"echo\"]\n"
                    "max_output_chars = 1_000\n[servers.s.tools.t.params.n]\n"
                    "type = \"integer\"\ndefault = 0x10\n")
    tool = load_config(path, layers=False).servers["s"].tools["t"]
    assert (tool.max_output_chars, tool.params["n"]["default"]) == (1000, 16)
