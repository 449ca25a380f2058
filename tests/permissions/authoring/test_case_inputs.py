"""``permissions test``/``check``: a built-in tool's input the CLI would refuse gets a note.

``Read {filepath: ...}`` names no file, which every deny ``Read(...)`` rule meets, so a deny
case with a misspelt argument passed whether the path it meant was protected or not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.inproc import run_cli
from toolhost.permissions.authoring.case_inputs import builtin_input_note

REFUSED: list[tuple[str, dict[str, Any], str]] = [
    ("Read", {"filepath": "~/.ssh/id_rsa"}, "no argument 'filepath'"),
    ("Read", {"file_path": "a", "limit": "5"}, "limit must be a number"),
    ("Read", {"file_path": "a", "limit": True}, "limit must be a number"),
    ("Read", {}, "cannot run without file_path"),
    ("Edit", {"path": "a", "old_string": "x", "new_string": "y"}, "no argument 'path'"),
    ("NotebookEdit", {"file_path": "n.ipynb", "new_source": ""}, "without notebook_path"),
    ("WebFetch", {"URL": "https://example.com/"}, "no argument 'URL'"),
    ("WebFetch", {"url": ["https://example.com/"]}, "url must be a string"),
    ("Glob", {"pattern": "*", "path": "src", "root": "/"}, "no argument 'root'"),
    ("Bash", {"cmd": "ls"}, "cannot run without command"),
]
ACCEPTED: list[tuple[str, dict[str, Any]]] = [
    ("Read", {"file_path": "a", "offset": 1, "limit": 2.5}),
    ("Grep", {"pattern": "x", "-i": True, "glob": "*.py"}),
    ("Glob", {"pattern": "*"}),
    ("LS", {}),
    ("mcp__db__query", {"anything": 1}),  # (not a built-in: its own schema is the host's)
    ("SomeNewTool", {"x": 1}),
]


@pytest.mark.parametrize(("tool", "tool_input", "word"), REFUSED)
def test_an_input_the_cli_refuses_gets_a_note(tool: str, tool_input: dict[str, Any],
                                               word: str) -> None:
    note = builtin_input_note(tool, tool_input)
    assert word in note and "proves nothing" in note


@pytest.mark.parametrize(("tool", "tool_input"), ACCEPTED)
def test_an_input_the_cli_takes_gets_none(tool: str, tool_input: dict[str, Any]) -> None:
    assert builtin_input_note(tool, tool_input) == ""


def test_a_deny_case_with_a_misspelt_path_argument_is_noted(tmp_path: Path) -> None:
    (tmp_path / "toolhost.yaml").write_text(
        "toolhost: 1\npermissions:\n  default: ask\n  deny: ['Read(./secret/**)']\n")
    (tmp_path / "cases.yaml").write_text(
        "config: toolhost.yaml\ncases:\n"
        "  - name: ssh keys are safe\n    tool: Read\n"
        "    input: {filepath: ~/.ssh/id_rsa}\n    expect: deny\n"
        "  - name: secrets are safe\n    tool: Read\n"
        "    input: {file_path: secret/k}\n    expect: deny\n")
    done = run_cli(["permissions", "test", str(tmp_path / "cases.yaml")],
                   env={"HOME": str(tmp_path)})
    assert done.returncode == 0, done.stdout + done.stderr  # a note: the cases still pass
    notes = [line for line in done.stderr.splitlines() if ": note: " in line]
    assert len(notes) == 1, notes
    assert notes[0].startswith(f"{tmp_path / 'cases.yaml'}:3:5: note: ssh keys are safe: ")
    assert "no argument 'filepath'" in notes[0]
