"""Hostile configs through `toolhost validate`, in process (fast): each gets its located line,
exit 1, no traceback and no line past 1,000 characters. (What only a process shows, exit code
and memory, is tests/config/test_hostile_files.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from toolhost.cli import main

HEAD = "toolhost: 1\n"
TOOL = "servers:\n  s:\n    tools:\n      t:\n        command: [echo, '{{ p }}']\n"
PARAM = "        params:\n          p:\n"
TOML = "toolhost = 1\n[servers.s.tools.t]\ncommand = ['echo']\n"


def _param(*lines: str) -> str:
    return HEAD + TOOL + PARAM + "".join(f"            {line}\n" for line in lines)


def _schema(*lines: str) -> str:
    return (HEAD + TOOL.replace(", '{{ p }}'", "") + "        input_schema:\n"
            + "          type: object\n" + "".join(f"          {line}\n" for line in lines))


CASES: dict[str, tuple[str, str]] = {
    # an integer written in hex, octal or binary has no digit limit when read
    "hex-timeout.yaml": (HEAD + TOOL + "        timeout: 0x" + "f" * 5000 + "\n",
                         ":7:18: servers.s.tools.t.timeout: an integer of more than 4,000 "
                         "digits"),
    "bin-default.yaml": (_param("type: integer", "default: 0b" + "1" * 20_000),
                         ":10:22: servers.s.tools.t.params.p.default: an integer of more "
                         "than 4,000"),
    "hex-timeout.toml": (TOML + "timeout = 0x" + "f" * 5000 + "\n",
                         ":4:1: servers.s.tools.t.timeout: an integer of more than 4,000"),
    "oct-timeout.toml": (TOML + "timeout = 0o" + "7" * 20_000 + "\n",
                         ":4:1: servers.s.tools.t.timeout: an integer of more than 4,000"),
    "bin-list.toml": ("toolhost = 1\nx = [1, 0b" + "1" * 20_000 + "]\n",
                      ": x[1]: an integer of more than 4,000"),
    # a hostile key or value quoted back is cut, whatever message quotes it
    "huge-key.toml": ("toolhost = 1\n" + "k" * 2_000_000 + " = 1\n",
                      ":2:1: " + "k" * 300 + "…1,999,700 more characters: unknown key"),
    "explicit-key.yaml": (HEAD + "? " + "k" * 5000 + "\n: 1\n", ":2:3: kkk"),
    "rule.yaml": (HEAD + "permissions:\n  allow: ['Bash(" + "(" * 4_000 + "']\n",
                  ":3:11: permissions.allow[0]: permission rule 'Bash((("),
    "params.yaml": (HEAD + TOOL + "        params:\n"
                    + "".join(f"          p{i}: string\n" for i in range(20_000)),
                    ":6:9: servers.s.tools.t.command: placeholder 'p' is not a declared"),
    # a version the reader refused is named with the reader's reason, not as "None"
    "version-tag.yaml": ("toolhost: !!binary MQ==\n",
                         ":1:11: toolhost: unsupported YAML tag tag:yaml.org,2002:binary"),
    "version-inf.yaml": ("toolhost: 1e400\n", ":1:11: toolhost: inf is not a finite number"),
    # a TOML key nested past the depth limit by dots has its line
    "dotted.toml": ("toolhost = 1\nx = {" + ".".join(["a"] * 5000) + " = 1}\n",
                    ":2:6: x.a.a.a"),
    "header.toml": ("toolhost = 1\n[" + ".".join(["a"] * 5000) + "]\n", ":2:2: a.a.a"),
    # a NUL (written as an escape) no program can receive: refused at load, not at each start
    "nul-env.yaml": (HEAD + "servers:\n  s:\n    env: {A: \"x\\0y\"}\n    tools:\n      t: "
                     "{command: [echo]}\n", ":4:11: servers.s.env.A: an environment variable's "
                     "value cannot hold a NUL character"),
    "nul-env.toml": ("toolhost = 1\n[servers.s]\nenv = {A = \"a\\u0000\"}\n"
                     "[servers.s.tools.t]\ncommand = ['echo']\n",
                     ": servers.s.env.A: an environment variable's value cannot hold a NUL"),
    # a declared schema is held to what an upstream's is: else it loads and every call fails
    "ref-missing.yaml": (_schema("properties:", "  x: {$ref: '#/$defs/nope'}"),
                         ":5:7: servers.s.tools.t.input_schema: inputSchema cannot be used: "
                         "$ref '#/$defs/nope' points at nothing in the schema"),
    "ref-remote.yaml": (_schema("properties:", "  x: {$ref: 'http://127.0.0.1:9/x.json'}"),
                        "inputSchema cannot be used: $ref 'http://127.0.0.1:9/x.json' is not "
                        "local to the schema"),
    "ref-file.yaml": (_schema("properties:", "  x: {$ref: 'file:///etc/passwd'}"),
                      "is not local to the schema"),
    "ref-loop.yaml": (_schema("$defs:", "  a: {$ref: '#/$defs/b'}", "  b: {$ref: '#/$defs/a'}",
                              "properties:", "  x: {$ref: '#/$defs/a'}"),
                      "references form a cycle"),
    "ref-param.yaml": (_param("$ref: '#/nope'"),
                       ":5:7: servers.s.tools.t.params: inputSchema cannot be used: $ref "
                       "'#/nope' points at nothing"),
    "lookbehind.yaml": (_schema("properties:", "  a: {type: string, pattern: '(?<=x)y'}"),
                        "inputSchema cannot be used: pattern '(?<=x)y' cannot be used: "
                        "invalid regular expression"),
    "pattern-key.yaml": (_schema("patternProperties:", "  '(a)\\1': {type: string}"),
                         "pattern '(a)\\\\1' cannot be used"),
    # one mistake is one line: these said it twice, or in Python's words, or at the owner
    "json-form.yaml": (HEAD + "servers:\n  h:\n    tools:\n      t: {http: {url: "
                       "'http://127.0.0.1:9/x', method: POST, json: {a: 1}, form: {b: c}}}\n",
                       ":5:11: servers.h.tools.t.http: 'json' and 'form' cannot be given "
                       "together (keep one of them)"),
    "complete-time.toml": ("toolhost = 1\n[servers.r.prompts.p]\ntemplate = 'x'\n"
                           "arguments.a.complete = 07:32:00\n",
                           ":4:1: servers.r.prompts.p.arguments.a.complete: '07:32:00' is "
                           "not 'module:function'"),
    "extends-int.toml": ("toolhost = 1\nextends = [7]\n", ": extends[0]: extends: expected "
                         "a path string or {repo, rev, path}, got an integer"),
    "output-ref.yaml": (HEAD + TOOL.replace(", '{{ p }}'", "") + "        output_schema: {type: "
                        "object, properties: {a: {$ref: 'http://127.0.0.1:9/x'}}}\n",
                        "servers.s.tools.t.output_schema: outputSchema cannot be used: $ref"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_hostile_config_gets_a_located_line(name: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    text, expected = CASES[name]
    path = tmp_path / name
    path.write_bytes(text.encode())
    code = main(["validate", "--no-layers", str(path)])
    out, err = capsys.readouterr()
    assert code == 1, out + err
    assert "Traceback" not in err and "internal error" not in err, err[-2000:]
    assert f"{path}{expected}" in err or (f"{path}:" in err and expected in err), err[-2000:]
    for line in err.splitlines():
        assert len(line) <= 1100, line[:300]


def test_a_pattern_python_warns_about_is_checked_without_a_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Python's re says "FutureWarning: Possible nested set" for [[:alpha:]] (RE2 reads a
    # POSIX class): that line, with a source line of toolhost's, is no user's business
    path = tmp_path / "posix.yaml"
    path.write_text(_schema("properties:", "  a: {type: string, pattern: '[[:alpha:]]+'}"))
    code = main(["validate", "--no-layers", str(path)])
    _, err = capsys.readouterr()
    assert code == 0, err
    assert "Warning" not in err and "re.compile" not in err, err


@pytest.mark.parametrize("source", [
    "{{ 'a' * 20000000 }}", "{{ [1] * 20000000 }}", "{{ 10 ** 100000 }}",
    "{{ 'x' * n }}", "{{ n ** n }}", "{{ '%0999999d' % 1 }}",
])
def test_a_template_cannot_build_a_huge_value_when_it_compiles_or_renders(source: str) -> None:
    # jinja folds constant arithmetic while it compiles: `{{ 'a' * 10**9 }}` in a command
    # kept `validate` busy building a gigabyte; now nothing is folded and a call refuses it
    from toolhost.backends.templating import compile_template

    template = compile_template(source)
    with pytest.raises(OverflowError):
        template.render(n=10**8)


def test_template_arithmetic_still_works() -> None:
    from toolhost.backends.templating import compile_template

    template = compile_template("{{ x * 3 }} {{ 6 * 7 }} {{ 2 ** 10 }} {{ 7 // 2 }} {{ 7 % 3 }}")
    assert template.render(x="ab") == "ababab 42 1024 3 1"


@pytest.mark.parametrize(("name", "text"), [
    ("keys.yaml", HEAD + "".join(f"bad{i}: 1\n" for i in range(5000))),
    ("tables.toml", "toolhost = 1\n" + "".join(f"[t{i}]\n" for i in range(5000))),
    ("tools.yaml", HEAD + "servers:\n  s:\n    tools:\n"
     + "".join(f"      t{i}: {{comand: [echo]}}\n" for i in range(5000))),
])
def test_thousands_of_problems_are_the_first_1000_and_a_count(
        name: str, text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / name
    path.write_text(text)
    assert main(["validate", "--no-layers", str(path)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1001, lines[-3:]
    assert lines[-1] == (f"{path}: ... and 4,000 more not shown (the first 1,000 are listed; "
                         "fix them and check again)")
    assert lines[0].startswith(f"{path}:{5 if name == 'tools.yaml' else 2}:")  # file order


def test_a_load_that_raises_caps_its_problems_too(tmp_path: Path) -> None:
    from toolhost.config.loader import load_config
    from toolhost.errors import ConfigError

    path = tmp_path / "keys.yaml"
    path.write_text(HEAD + "".join(f"bad{i}: 1\n" for i in range(3000)))
    with pytest.raises(ConfigError) as raised:
        load_config(path, layers=False)
    assert len(raised.value.problems) == 1001
    assert raised.value.problems[-1].message == "... and 2,000 more not shown"


def test_more_tools_than_the_limit_is_one_located_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "many.yaml"
    path.write_text(HEAD + "servers:\n" + "".join(
        f"  s{s}:\n    tools:\n" + "".join(f"      t{i}: {{command: [echo]}}\n"
                                           for i in range(3)) for s in range(4)))
    monkeypatch.setenv("TOOLHOST_MAX_TOOLS", "11")
    assert main(["validate", "--no-layers", str(path)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{path}:2:1: servers: 12 tools declared; the limit is 11 (raise TOOLHOST_MAX_TOOLS "
        "if this is meant)"]
    monkeypatch.setenv("TOOLHOST_MAX_TOOLS", "12")
    assert main(["validate", "--no-layers", str(path)]) == 0


def test_thousands_of_extends_entries_stop_at_the_limit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "base.yaml").write_text("servers: {}\n")
    path = tmp_path / "c.yaml"
    path.write_text(HEAD + "extends: [" + ",".join(["base.yaml"] * 5000) + "]\n")
    assert main(["validate", "--no-layers", str(path)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"{path}:2:10011: extends[1000]: more than 1,000 extends entries in one load"), lines


def test_more_rules_than_the_limit_is_one_located_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text(HEAD + "permissions:\n  allow: [mcp__a, mcp__b]\n  deny: [mcp__c]\n")
    monkeypatch.setenv("TOOLHOST_MAX_RULES", "2")
    assert main(["validate", "--no-layers", str(path)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{path}:2:1: permissions: 3 permission rules; the limit is 2 (raise "
        "TOOLHOST_MAX_RULES if this is meant)"]


def test_toml_table_headers_count_as_five_values_each(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # tomllib takes ~50 µs a header: 100,000 one-line headers (a 1 MB file) took 6 s
    path = tmp_path / "headers.toml"
    path.write_text("toolhost = 1\n" + "[[x]]\n" * 300)
    monkeypatch.setenv("TOOLHOST_MAX_CONFIG_VALUES", "1000")
    assert main(["validate", "--no-layers", str(path)]) == 1
    assert capsys.readouterr().err.startswith(
        f"{path}:168:1: more than 1,000 values (scalars, keys, lists, tables) in one file")


@pytest.mark.parametrize(("rule", "where"), [
    ("'Read(/X/**)'", ":4:7: permissions.allow[0]:"),
    ("'Bash(X *)'", ":4:7: permissions.allow[0]:"),
    ("{tool: 'mcp__X'}", ":4:8: permissions.allow[0].tool:"),
    ("{tool: Bash, expr: 'X'}", ":4:: permissions.allow[0].expr:")])
def test_a_rule_past_its_length_is_one_located_line(
        rule: str, where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """hostile18: one 1 MB Read rule held validate 13 s (its glob compiles char by char)."""
    path = tmp_path / "rules.yaml"
    path.write_text(HEAD + "permissions:\n  allow:\n    - " + rule.replace("X", "a" * 200)
                    + "\n")
    monkeypatch.setenv("TOOLHOST_MAX_RULE_CHARS", "100")
    assert main(["validate", "--no-layers", str(path)]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    shown = re.sub(r":4:[0-9]+:", ":4::", line, count=1) if where.startswith(":4::") else line
    assert shown.startswith(f"{path}{where} a permission rule of ") and \
        line.endswith("characters; the limit is 100 (raise TOOLHOST_MAX_RULE_CHARS if this is "
                      "meant)"), line
    monkeypatch.setenv("TOOLHOST_MAX_RULE_CHARS", "300")
    assert main(["validate", "--no-layers", str(path)]) in (0, 1)
    assert "TOOLHOST_MAX_RULE_CHARS" not in capsys.readouterr().err


@pytest.mark.parametrize("suffix", ["yaml", "toml"])
def test_names_differing_only_in_case_get_a_note(suffix: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # `Tool` and `tool` are two tools: a rule naming one does not match the other
    path = tmp_path / f"c.{suffix}"
    if suffix == "yaml":
        path.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n"
                        "      Tool: {description: d, command: [echo]}\n"
                        "      tool: {description: d, command: [echo]}\n"
                        "  S:\n    tools:\n      x: {description: d, command: [echo]}\n")
        at = (":6:7: servers.s.tools.tool: note: tool 'tool'", ":7:3: servers.S: note")
    else:
        path.write_text("toolhost = 1\n[servers.s.tools.Tool]\ndescription = 'd'\n"
                        "command = ['echo']\n[servers.s.tools.tool]\ndescription = 'd'\n"
                        "command = ['echo']\n[servers.S.tools.x]\ndescription = 'd'\n"
                        "command = ['echo']\n")
        at = (":5:2: servers.s.tools.tool: note: tool 'tool'", ": servers.S: note")
    assert main(["validate", "--no-layers", str(path)]) == 0
    err = capsys.readouterr().err
    assert f"{path}{at[0]} differs from tool 'Tool'" in err, err
    assert "does not match 'mcp__s__tool'" in err and at[1] in err, err


def test_a_type_list_of_20000_wrong_names_is_three_searches_at_most(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # each item had its own did-you-mean search (20,000 of them: 0.4 s), each line the same
    from toolhost.config import params

    searched: list[str] = []
    real = params.did_you_mean
    monkeypatch.setattr(params, "did_you_mean",
                        lambda word, names: searched.append(word) or real(word, names))
    path = tmp_path / "types.yaml"
    path.write_text(_param("type: [" + ", ".join(["1", "strng"] * 10_000) + ", '1']"))
    assert main(["validate", "--no-layers", str(path)]) == 1
    assert searched == ["1", "strng", "1"]
    lines = [line for line in capsys.readouterr().err.splitlines() if ".params.p.type:" in line]
    assert [line.split(": ", 2)[2] for line in lines] == [
        "unknown type 1, expected one of string, integer, number, boolean, array, object, null",
        "unknown type 'strng', expected one of string, integer, number, boolean, array, "
        "object, null (did you mean 'string'?)",
        "unknown type '1', expected one of string, integer, number, boolean, array, object, "
        "null"]


def test_an_alias_bomb_as_the_version_is_named_as_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the version is reported alone: it was "unsupported format version [['x', ...", the
    # bomb's partial value, not why the reader stopped
    monkeypatch.setenv("TOOLHOST_MAX_YAML_ALIAS_NODES", "50")
    path = tmp_path / "v.yaml"
    path.write_text("toolhost: [&a [x, x, x, x], &b [*a, *a, *a, *a], &c [*b, *b, *b, *b]]\n")
    assert main(["validate", "--no-layers", str(path)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}:1:") and "toolhost[" in lines[0] \
        and "YAML aliases expand to more than 50 nodes" in lines[0], lines
