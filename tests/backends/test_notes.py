"""``validate`` notes a command or http tool with no description: the model is shown its name
alone (a python tool's docstring gives one; one with neither is noted too). A note does not
fail the check, and ``-q`` hides it."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.cli import main

CONFIG = """\
toolhost: 1
servers:
  s:
    tools:
      bare: {command: [echo, hi]}
      blank: {command: [echo, hi], description: "   "}
      fetch: {http: {url: "http://127.0.0.1:9/x"}}
      said: {command: [echo, hi], description: Says hi.}
      said_http: {http: {url: "http://127.0.0.1:9/x"}, description: Fetches x.}
      py: {python: "notes_tool:hello"}
      py_bare: {python: "notes_tool:bare"}
permissions:
  allow: [mcp__s]
"""


def test_a_tool_the_model_sees_by_name_alone_is_noted(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "t.yaml"
    config.write_text(CONFIG)
    (tmp_path / "notes_tool.py").write_text('def hello() -> str:\n    """Say hello."""\n'
                                            '    return "hello"\n\n\n'
                                            'def bare() -> str:\n    return "bare"\n')
    assert main(["validate", "--no-layers", str(config)]) == 0
    out, err = capsys.readouterr()
    assert out == f"{config}: ok (1 server, 7 tools)\n"
    notes = err.strip().splitlines()
    assert [n.split(": note: ")[0] for n in notes] == [
        f"{config}:5:7: servers.s.tools.bare", f"{config}:6:7: servers.s.tools.blank",
        f"{config}:7:7: servers.s.tools.fetch", f"{config}:11:7: servers.s.tools.py_bare"], err
    assert notes[0].endswith(": note: command tool 'bare' has no description: the model is "
                             "shown its name alone (mcp__s__bare) to decide when to call it "
                             "(add description: one sentence on what it does and when to use "
                             "it)")
    assert "http tool 'fetch' has no description" in notes[2]
    assert "python tool 'py_bare' has no description and its function no docstring" in notes[3]
    assert main(["validate", "--no-layers", "--strict", str(config)]) == 0  # not a warning
    capsys.readouterr()
    assert main(["validate", "-q", "--no-layers", str(config)]) == 0
    assert capsys.readouterr() == ("", "")


SECRET_ARGV = """\
toolhost: 1
servers:
  s:
    tools:
      curl:
        description: Fetch the status.
        command: [curl, -H, "Authorization: Bearer ${{API_TOKEN}}", --, https://x.example/]
      psql:
        description: Count rows.
        command: [psql, {{if: q, argv: [-c, "{{{{ q }}}}", "postgres://app:{pw}@db/x"]}}]
        params: {{q: string}}
      env:
        description: Fetch the status, the token in the environment.
        command:
          argv: [sh, -c, 'curl -H "Authorization: Bearer $T" https://x.example/']
          env: {{T: "${{API_TOKEN}}"}}
permissions:
  allow: [mcp__s]
"""


def test_a_secret_in_a_commands_argv_is_a_warning(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    token, password = "tok-5ecret-abcdef", "pw-Qx81-literal"
    monkeypatch.setenv("API_TOKEN", token)
    config = tmp_path / "t.yaml"
    config.write_text(SECRET_ARGV.format(pw=password))
    assert main(["validate", "--no-layers", "--no-compile", str(config)]) == 0
    out, err = capsys.readouterr()
    assert out == f"{config}: ok (1 server, 3 tools, 2 warnings)\n"
    assert token not in err and password not in err
    lines = [x for x in err.strip().splitlines() if ": note: " not in x]
    assert [x.split(": warning: ")[0] for x in lines] == [
        f"{config}:7:9: servers.s.tools.curl.command.argv[2]",
        f"{config}:10:9: servers.s.tools.psql.command.argv[1].argv[2]"], err
    assert lines[0].endswith(": warning: 'Authorization: Bearer ***' puts a secret in the "
                             "program's arguments, which every user of this machine can read "
                             "while it runs (ps, /proc/PID/cmdline) (pass it in env: (the "
                             "program's environment is private to its user) or on stdin:, if "
                             "the program can read it there)")
    assert main(["validate", "--no-layers", "--strict", str(config)]) == 1
    capsys.readouterr()


SECRET_NAMES = """\
toolhost: 1
servers:
  s:
    headers: {X-Client: "${CLIENT_ID}"}
    tools:
      search:
        description: Search.
        command: [echo, "{{ q }}"]
        params: {q: {type: string}, search_depth: {type: integer}}
      other: {command: [echo, hi], description: Says hi.}
      fetch: {http: {url: "http://127.0.0.1:9/x/{search_for}"}, description: Fetches.}
permissions:
  allow: [mcp__s]
"""


def test_a_name_holding_a_secret_is_a_warning(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # a header value is a secret; here it is also a tool's name, which every list showed as
    # '***' (a client could not call it), and part of a param's name
    monkeypatch.setenv("CLIENT_ID", "search")
    config = tmp_path / "t.yaml"
    config.write_text(SECRET_NAMES)
    assert main(["validate", "--no-layers", "--no-compile", str(config)]) == 0
    out, err = capsys.readouterr()
    assert out == f"{config}: ok (1 server, 3 tools, 4 warnings)\n"
    assert (f"{config}: warning: a secret of this config is a word of only 6 letters: it is "
            "hidden wherever that word appears") in err  # and it is a short word
    lines = [x for x in err.strip().splitlines() if ": warning: " in x and "word of" not in x]
    assert lines == [
        f"{config}:6:7: servers.s.tools.***: warning: the tool name '***' holds the value of "
        "a secret: toolhost shows it as '***' everywhere (tool lists included), so clients "
        "and the model see that name instead of the one written here (rename it, "
        "or take the secret from a value toolhost does not hide (see docs/secrets.md, which "
        "values are secrets))",
        f"{config}:6:7: servers.s.tools.***.params.***_depth: warning: the param name "
        "'***_depth' holds the value of a secret: toolhost shows it as '***_depth' everywhere "
        "(tool lists included), so clients and the model see that name instead of "
        "the one written here (rename it, or take the secret from a value toolhost does not "
        "hide (see docs/secrets.md, which values are secrets))",
        # a param declared by a placeholder only
        f"{config}:11:7: servers.s.tools.fetch.params.***_for: warning: the param name "
        "'***_for' holds the value of a secret: toolhost shows it as '***_for' everywhere "
        "(tool lists included), so clients and the model see that name instead of "
        "the one written here (rename it, or take the secret from a value toolhost does not "
        "hide (see docs/secrets.md, which values are secrets))"], err
    monkeypatch.setenv("CLIENT_ID", "unrelated-value")
    assert main(["validate", "--no-layers", "--no-compile", str(config)]) == 0
    assert capsys.readouterr().out == f"{config}: ok (1 server, 3 tools)\n"


SHORT_SECRET = """\
toolhost: 1
servers:
  s:
    tools:
      show:
        description: Shows a thing.
        command: {argv: [printenv, X], env: {X: "${MY_TOKEN}"}}
permissions:
  allow: [mcp__s]
"""


@pytest.mark.parametrize("value", ["Z", "ZQ", "ZQZ"])
def test_a_secret_shorter_than_4_characters_is_a_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        value: str) -> None:
    # still hidden (it is a secret by its name), but every copy of its text in every message
    # is '***' too: validate says so, located at the variable, without showing the value
    monkeypatch.setenv("MY_TOKEN", value)
    config = tmp_path / "t.yaml"
    config.write_text(SHORT_SECRET)
    assert main(["validate", "--no-layers", "--no-compile", str(config)]) == 0
    out, err = capsys.readouterr()
    assert out == f"{config}: ok (1 server, 1 tool, 1 warning)\n"
    chars = "character" if len(value) == 1 else "characters"
    assert err.strip().splitlines() == [
        f"{config}:7:50: warning: the value of MY_TOKEN is only {len(value)} {chars} long: it "
        "is hidden wherever that text appears, so every message, name and result holding it "
        "shows *** in its place (set the real value (see docs/secrets.md, which values are "
        "secrets))"], err
    monkeypatch.setenv("MY_TOKEN", "ZQZ4")
    assert main(["validate", "--strict", "--no-layers", "--no-compile", str(config)]) == 0
    assert capsys.readouterr().out == f"{config}: ok (1 server, 1 tool)\n"


@pytest.mark.parametrize("value", ["issues", "Deploy", "zebras"])
def test_a_secret_that_is_a_short_plain_word_is_a_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        value: str) -> None:
    # 'issues' as MY_TOKEN is hidden inside every word holding it (search_issues shows
    # search_***): kept (a model could make a command print it glued to other letters),
    # and validate says so; a value with a digit, or of 8 letters or more, is not said
    monkeypatch.setenv("MY_TOKEN", value)
    config = tmp_path / "t.yaml"
    config.write_text(SHORT_SECRET)
    assert main(["validate", "--no-layers", "--no-compile", str(config)]) == 0
    out, err = capsys.readouterr()
    assert out == f"{config}: ok (1 server, 1 tool, 1 warning)\n"
    assert err.strip().splitlines() == [
        f"{config}:7:50: warning: the value of MY_TOKEN is a word of only {len(value)} "
        "letters: it is hidden wherever that word appears, inside longer words and names "
        "too, so every message, name and result holding it shows *** in its place (set the "
        "real value (see docs/secrets.md, which values are secrets))"], err
    assert value not in err
    for fine in ("issues7", "issuesss"):
        monkeypatch.setenv("MY_TOKEN", fine)
        assert main(["validate", "--strict", "--no-layers", "--no-compile", str(config)]) == 0
        assert capsys.readouterr().out == f"{config}: ok (1 server, 1 tool)\n"


BIDI = """\
toolhost: 1
servers:
  s:
    tools:
      a: {{command: [echo, "hi{c}"], description: Says hi.}}
      b: {{command: [sh, -c, "echo x{c}y"], description: Says x.}}
      c: {{command: [echo, hi], description: "Says{c} hi."}}
      d: {{command: [echo, "\\u00e9t\\u00e9 \\u05e9\\u05dc\\u05d5\\u05dd"],
          description: "\\u200f fine"}}
permissions:
  allow: [mcp__s]
"""


@pytest.mark.parametrize("char", ["\\u202e", "\\u2066", "\\u202a", "\\u2069"])
def test_a_bidi_control_in_a_command_or_description_is_a_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], char: str) -> None:
    # "Trojan Source": an editor, a diff or a terminal shows the text after it reordered, so
    # the reviewer reads other text than the model or the program gets
    config = tmp_path / "t.yaml"
    config.write_text(BIDI.format(c=char))
    assert main(["validate", "--no-layers", "--no-compile", str(config)]) == 0
    out, err = capsys.readouterr()
    assert out == f"{config}: ok (1 server, 4 tools, 3 warnings)\n"
    lines = [x for x in err.strip().splitlines() if ": note: " not in x]
    assert [x.split(": warning: ")[0] for x in lines] == [
        f"{config}:5:11: servers.s.tools.a.command.argv[1]",
        f"{config}:6:11: servers.s.tools.b.command.argv[2]",
        f"{config}:7:7: servers.s.tools.c.description"], err
    assert f"its command holds U+{char[2:].upper()} (" in lines[0]
    assert "a reviewer sees other text than the model reads" in lines[2]
    assert main(["validate", "--no-layers", "--strict", "--no-compile", str(config)]) == 1
    capsys.readouterr()
