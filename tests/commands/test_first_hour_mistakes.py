"""`toolhost validate` on the mistakes of a first hour with `toolhost init`'s config: each is
one located line that says how to write it. Before, a key written one level off was offered
an unrelated near key ("permissions" in a server: "did you mean 'version'?"), a python
ref with a dot for the colon showed the regular expression it failed, and a param written
in single braces (``"hi {name}"``) loaded fine while the argument stayed that literal text."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.inproc import run_cli

BASE = """\
toolhost: 1
servers:
  project:
    description: Tools for this project
    tools:
      count_lines:
        description: Count the lines of a file
        command: [wc, -l, --, "{{ path }}"]
        params:
          path: {type: string}
permissions:
  default: ask
"""

MISTAKES = {
    "permissions in a server": (
        ("    description: Tools for this project\n",
         "    description: Tools for this project\n    permissions: {default: allow}\n"),
        "5:5: servers.project.permissions: unknown key ('permissions' is a key of the file's "
        "top level, not of a server; its rules name this server's tools as "
        "mcp__project__TOOL)"),
    "plugins in a server": (
        ("    description: Tools for this project\n",
         "    description: Tools for this project\n    plugins: [x]\n"),
        "servers.project.plugins: unknown key ('plugins' is a key of the file's top level"),
    "a tool's backend in a server": (
        ("    description: Tools for this project\n",
         "    description: Tools for this project\n    command: [echo]\n"),
        "5:5: servers.project.command: unknown key ('command' is a key of a tool: write it "
        "under tools: {NAME: {command: ...}})"),
    "tools at the top": (
        ("permissions:\n", "tools: {}\npermissions:\n"),
        "11:1: tools: unknown key ('tools' is a key of a server: write it under servers: "
        "{NAME: {tools: ...}})"),
    "allow at the top": (
        ("permissions:\n", "allow: [Bash]\npermissions:\n"),
        "11:1: allow: unknown key ('allow' is a key of permissions: write it under "
        "permissions: {allow: ...})"),
    "python ref with a dot": (
        ('command: [wc, -l, --, "{{ path }}"]', "python: tools.count_lines"),
        "8:9: servers.project.tools.count_lines.python: 'tools.count_lines' is not of the "
        "form this key takes (did you mean 'tools:count_lines'? (module:function))"),
    "python function with a dot": (
        ('command: [wc, -l, --, "{{ path }}"]', "python: {function: pkg.tools.count}"),
        "did you mean 'pkg.tools:count'? (module:function)"),
    "python ref with a space": (
        ('command: [wc, -l, --, "{{ path }}"]', "python: my tools"),
        "'my tools' is not of the form this key takes (Import path "
        "'package.module:function'"),
    "env name with =": (
        ('command: [wc, -l, --, "{{ path }}"]',
         'command: {argv: [wc, "{{ path }}"], env: {"A=B": x}}'),
        "'A=B' is not of the form this key takes (A variable's name holds no '=' or NUL.)"),
    "mime type": (
        ('command: [wc, -l, --, "{{ path }}"]',
         'command: {argv: [wc, "{{ path }}"], stdout: binary, mime_type: image png}'),
        "'image png' is not of the form this key takes (e.g. 'image/png'"),
    "single braces": (
        ('"{{ path }}"', '"{path}"'),
        "8:9: servers.project.tools.count_lines.command: '{path}' is literal text, and the "
        "param 'path' is used by no template: a placeholder is written {{ path }}"),
    "single braces inside an argument": (
        ('"{{ path }}"', '"--file={path}"'),
        "'{path}' is literal text"),
    "single braces in stdin": (
        ('command: [wc, -l, --, "{{ path }}"]', 'command: {argv: [wc], stdin: "{path}"}'),
        "'{path}' is literal text"),
}


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_a_first_hour_mistake_is_one_line_that_says_how(name: str, tmp_path: Path) -> None:
    (old, new), said = MISTAKES[name]
    assert old in BASE
    config = tmp_path / "toolhost.yaml"
    config.write_text(BASE.replace(old, new, 1))
    done = run_cli(["validate", str(config)], cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    errors = [line for line in done.stderr.splitlines() if "unknown key" in line
              or (" is " in line and ": note:" not in line and ": warning:" not in line)]
    assert len(errors) == 1 and said in errors[0], done.stderr
    assert "Traceback" not in done.stderr and "does not match '" not in done.stderr


@pytest.mark.parametrize("command", [
    '[echo, "{{ path }}", "{path}"]',    # used as a placeholder too: the braces are the program's
    '[find, ., -exec, ls, "{}", ";", "{{ path }}"]',
    '[echo, "{other}", "{{ path }}"]',   # no param of that name
])
def test_braces_the_program_reads_still_load(command: str, tmp_path: Path) -> None:
    config = tmp_path / "toolhost.yaml"
    config.write_text(BASE.replace('[wc, -l, --, "{{ path }}"]', command))
    done = run_cli(["validate", str(config)], cwd=tmp_path)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("written", ["project/count_lines", "project:count_lines",
                                     "project::count_lines", "project__count_lines",
                                     "project count_lines", "count_lines"])
def test_a_tool_named_with_another_separator_gets_the_dotted_name(
        written: str, tmp_path: Path) -> None:
    config = tmp_path / "toolhost.yaml"
    config.write_text(BASE)
    done = run_cli(["call", str(config), written, "path=x"], cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].endswith(
        f"not {written!r}; did you mean project.count_lines?"), done.stderr


@pytest.mark.parametrize(("name", "text", "said"), [
    ("policy-tests.yaml", "config: toolhost.yaml\ncases:\n  - {tool: Bash, expect: ask}\n",
     "1:1: not a toolhost config: this is a policy test file (cases:) (run it with "
     "`toolhost permissions test policy-tests.yaml`)"),
    ("smoke.yaml", "description: d\nturns:\n  - text: hi\n",
     "1:1: not a toolhost config: this is a scenario (a scripted model: turns:) (run it "
     "with `toolhost run CONFIG --script smoke.yaml -p go`)"),
    ("clients.toml", "[mcpServers.x]\ncommand = 'x'\n",
     "1:1: not a toolhost config: this is an MCP client's file (mcpServers:) (`toolhost "
     "install` and `toolhost mcp-config` write its entries)"),
])
def test_another_file_of_the_project_is_named_for_what_it_is(
        name: str, text: str, said: str, tmp_path: Path) -> None:
    # `toolhost validate *.yaml` where `toolhost init` wrote its files: each says what it is,
    # not "add 'toolhost: 1' at the top" (which would make it a broken config)
    (tmp_path / name).write_text(text)
    done = run_cli(["validate", name], cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [f"{name}:{said}"], done.stderr


def test_init_writes_one_config_and_validate_of_all_its_files_says_each(
        tmp_path: Path) -> None:
    assert run_cli(["init"], cwd=tmp_path).returncode == 0
    # in a process of its own: another test's init in this one imported its own
    # toolhost_tools (one process imports one module of a name, and validate says so)
    done = subprocess.run([sys.executable, "-m", "toolhost", "validate", "toolhost.yaml",
                           "policy-tests.yaml", "scenarios/smoke.yaml"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert "toolhost.yaml: ok" in done.stdout, done.stderr
    lines = done.stderr.strip().splitlines()
    assert [line.split(": not a toolhost config: ")[0] for line in lines
            if "not a toolhost config" in line] == ["policy-tests.yaml:1:1",
                                                    "scenarios/smoke.yaml:1:1"], lines
    assert "missing format version" not in done.stderr
