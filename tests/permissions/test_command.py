"""``toolhost permissions check|list|lint`` on layered config files (in process)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.inproc import run_cli
from toolhost.cli import main

BASE = """\
toolhost: 1
permissions:
  deny:
    - mcp__db__drop
    - "Bash(rm:*)"
    - tool: mcp__db__query
      when: {sql: {regex: "(?is).*\\\\bdelete\\\\b.*"}}
      message: No deletes from an agent
"""
MAIN = """\
toolhost: 1
extends: [./team/base.yaml]
servers:
  db:
    tools:
      drop: {command: [echo, drop]}
      query:
        command: [echo, "{{ sql }}"]
        params:
          sql: {type: string}
          limit: {type: integer}
permissions:
  default: deny
  allow:
    - tool: mcp__db__query
      rewrite: {clamp: {limit: {max: 100}}}
    - "Bash(npm run test:*)"
    - "Read(./src/**)"
    - mcp__db__drop
"""
LOCAL = """\
toolhost: 1
permissions:
  allow: ["Bash(rm:*)", mcp__db__drop]
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    (tmp_path / "team").mkdir()
    (tmp_path / "team" / "base.yaml").write_text(BASE)
    (tmp_path / "toolhost.yaml").write_text(MAIN)
    (tmp_path / "toolhost.local.yaml").write_text(LOCAL)
    return tmp_path / "toolhost.yaml"


def toolhost(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(args, cwd=cwd,
                   env={"XDG_CONFIG_HOME": str(cwd or Path.cwd()) + "/no-user-config"})


def check(config: Path, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    out = toolhost("permissions", "check", str(config), tool, "--input",
                   json.dumps(tool_input), "--json", cwd=config.parent)
    assert out.returncode == 0, out.stderr
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def test_allow_in_project_and_local_layers_cannot_override_an_extends_deny(config: Path) -> None:
    got = check(config, "mcp__db__drop", {})
    assert got["decision"] == "deny"
    assert got["rule"] == "mcp__db__drop"
    assert got["origin"].startswith(str(config.parent / "team" / "base.yaml") + ":4")
    assert got["layer"] == "extends"
    bash = check(config, "Bash", {"command": "npm run test && rm -rf /"})
    assert (bash["decision"], bash["rule"]) == ("deny", "Bash(rm:*)")


def test_structured_deny_message_and_rewrite(config: Path) -> None:
    denied = check(config, "mcp__db__query", {"sql": "DELETE from users"})
    assert denied["decision"] == "deny" and denied["message"] == "No deletes from an agent"
    allowed = check(config, "mcp__db__query", {"sql": "select 1", "limit": 5000})
    assert allowed["decision"] == "allow"
    assert allowed["updatedInput"] == {"sql": "select 1", "limit": 100}
    assert allowed["origin"].startswith(str(config) + ":15:")


def test_paths_default_and_text_output(config: Path) -> None:
    (config.parent / "src").mkdir()
    assert check(config, "Read", {"file_path": "src/a.py"})["decision"] == "allow"
    assert check(config, "Read", {"file_path": "src/../toolhost.yaml"})["decision"] == "deny"
    nothing = check(config, "mcp__db__other", {})
    assert (nothing["decision"], nothing["rule"], nothing["answered_by"]) == (
        "deny", None, "default")
    text = toolhost("permissions", "check", str(config), "Bash", "--input",
                    '{"command": "npm run test -- -x"}', cwd=config.parent)
    assert text.returncode == 0
    assert text.stdout.startswith("allow: Bash(npm run test:*)  (" + str(config) + ":")


def test_exit_code_option(config: Path) -> None:
    codes = [toolhost("permissions", "check", str(config), tool, "--exit-code",
                      cwd=config.parent).returncode for tool in ("mcp__db__query", "mcp__db__drop")]
    assert codes == [0, 10]


def test_bad_input_and_bad_rules(config: Path) -> None:
    bad_json = toolhost("permissions", "check", str(config), "X", "--input", "{nope")
    assert bad_json.returncode == 2 and "--input is not JSON" in bad_json.stderr
    (config.parent / "toolhost.local.yaml").write_text(
        'toolhost: 1\npermissions:\n  allow:\n    - "Bash(npm test"\n')
    broken = toolhost("permissions", "check", str(config), "Bash", cwd=config.parent)
    assert broken.returncode == 1
    assert "toolhost.local.yaml:4" in broken.stderr and "Bash(npm test" in broken.stderr


def test_list_shows_evaluation_order_with_origins(config: Path) -> None:
    out = toolhost("permissions", "list", str(config), "--json", cwd=config.parent)
    assert out.returncode == 0, out.stderr
    listed = json.loads(out.stdout)
    assert [r["effect"] for r in listed["rules"]] == ["deny"] * 3 + ["allow"] * 6
    assert [r["layer"] for r in listed["rules"]][-2:] == ["local", "local"]
    assert listed["disallowedTools"] == ["mcp__db__drop"]
    text = toolhost("permissions", "list", str(config), cwd=config.parent).stdout
    assert "deny   mcp__db__drop  [extends]" in text


def test_lint_flags_shadowed_and_unmatched_rules(config: Path) -> None:
    out = toolhost("permissions", "lint", str(config), "--json", cwd=config.parent)
    assert out.returncode == 1
    codes = {(f["code"], f["rule"]) for f in json.loads(out.stdout)}
    assert ("shadowed", "mcp__db__drop") in codes
    (config.parent / "toolhost.local.yaml").write_text("toolhost: 1\n")
    (config.parent / "toolhost.yaml").write_text(MAIN.replace("    - mcp__db__drop\n", ""))
    clean = toolhost("permissions", "lint", str(config), cwd=config.parent)
    assert clean.returncode == 0, clean.stdout


def test_check_notes_a_name_that_is_no_tool(config: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    # rules match the CLI's names: a misspelt or SERVER.TOOL name gets a note on stderr,
    # and the decision (for that literal name) is still printed (in-process: the command's
    # process is the other tests of this file)
    monkeypatch.chdir(config.parent)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config.parent / "no-user-config"))

    def run(*args: str) -> tuple[int, str, str]:
        code = main(["permissions", "check", str(config), *args])
        out = capsys.readouterr()
        return code, out.out, out.err

    def note(tool: str) -> str:
        code, out, err = run(tool)
        assert code == 0 and out.startswith("deny: no rule matches")
        return err.strip()

    assert note("db.query") == ("toolhost permissions check: note: db.query is not a tool of "
                                "this config nor a built-in tool; did you mean mcp__db__query?")
    assert note("mcp__db__qery").endswith("did you mean mcp__db__query?")
    assert note("bash").endswith("did you mean Bash?")
    assert run("mcp__db__query")[2] == ""
    code, _, err = run("mcp__db__query", "--cwd", str(config.parent / "nonexistent"))
    assert code == 0 and err.startswith(
        "toolhost permissions check: note: the working directory "), err
    assert "does not exist" in err


@pytest.mark.parametrize(("given", "kind"), [("[1]", "array"), ("null", "null"),
                                             ('"rm x"', "string"), ("5", "number")])
def test_check_names_the_json_type_of_an_input_that_is_no_object(
        config: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        given: str, kind: str) -> None:
    # in-process: the message said `not NoneType`, `not list` (Python's names)
    monkeypatch.chdir(config.parent)
    code = main(["permissions", "check", str(config), "Bash", "--input", given])
    err = capsys.readouterr().err
    assert code == 2 and f"--input must be a JSON object, not {kind}: " in err, err


@pytest.mark.parametrize("hostile", ["\x1b[2J", "\x1b]52;c;aGk=\x07", "\u202e", "\x00", "\r"])
def test_a_case_file_or_a_rule_never_writes_a_control_to_the_terminal(
        tmp_path: Path, hostile: str) -> None:
    # `permissions test` printed a case's tool name as written (an escape sequence cleared
    # the screen, OSC 52 wrote the clipboard), and `permissions lint` a rule's text
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\npermissions:\n  allow:\n"
                      f"    - {json.dumps('Bash(ls' + hostile + ':*)')}\n"
                      f"    - {json.dumps('Bash(ls' + hostile + ':*)')}\n")
    (tmp_path / "cases.yaml").write_text(
        "config: toolhost.yaml\ncases:\n"
        f"  - tool: {json.dumps('x' + hostile)}\n    input: {{}}\n    expect: allow\n"
        f"  - name: {json.dumps('n' + hostile)}\n    tool: Bash\n"
        f"    input: {{command: {json.dumps('ls' + hostile)}}}\n    expect: deny\n")
    for args in (("permissions", "test", "cases.yaml", "-v"),
                 ("permissions", "lint", str(config))):
        out = toolhost(*args, cwd=tmp_path)
        assert out.stdout.strip() and hostile not in out.stdout + out.stderr, args
