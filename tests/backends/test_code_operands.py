"""Operands that are code by design: `pytest {{ path }}` imports the test files and every
conftest.py on the way to them, `go test {{ pkg }}` runs the package, `docker build {{ dir }}`
runs its Dockerfile's RUN lines. The tool still loads (naming the tests is its job), and
`validate` prints a note naming the program, what it runs and the argv position, so the author
bounds the param with `path_under` or writes the directory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolhost.backends.command_checks import option_notes
from toolhost.compile import compile_tools

from .test_command_backend import Config, cmd

V = "{{ v }}"

NOTED: list[tuple[list[Any], str, str]] = [
    (["pytest", V], "pytest", "argv[1]"),
    (["pytest", "-q", "--", V], "pytest", "argv[3]"),
    (["pytest", "-k", "fast", "tests/", V], "pytest", "argv[4]"),
    (["/usr/bin/python3", "-m", "pytest", "-x", V], "python3 -m pytest", "argv[4]"),
    (["python", "-m", "unittest", V], "python -m unittest", "argv[3]"),
    (["jest", V], "jest", "argv[1]"),
    (["vitest", "run", V], "vitest run", "argv[2]"),
    (["npx", "mocha", V], "mocha", "argv[2]"),
    (["bundle", "exec", "rspec", V], "rspec", "argv[3]"),
    (["timeout", "60", "phpunit", V], "phpunit", "argv[3]"),
    (["go", "test", "-v", V], "go test", "argv[3]"),
    (["go", "generate", V], "go generate", "argv[2]"),
    (["deno", "test", V], "deno test", "argv[2]"),
    (["bun", "test", V], "bun test", "argv[2]"),
    (["docker", "build", "-t", "app", V], "docker build", "argv[4]"),
    (["podman", "build", V], "podman build", "argv[2]"),
    (["docker", "buildx", "build", V], "docker buildx", "argv[3]"),
    (["prove", "-r", V], "prove", "argv[2]"),
    (["pytest", {"each": "v", "argv": ["{{ item }}"]}], "pytest", "argv[1].argv[0]"),
]


@pytest.mark.parametrize(("argv", "program", "key"), NOTED, ids=repr)
def test_a_value_in_a_code_operand_gets_a_note(config: Config, argv: list[Any], program: str,
                                               key: str) -> None:
    cfg = config({"t": cmd(argv)})
    compile_tools(cfg)  # it still loads
    notes = [n for n in option_notes(cfg) if "chooses which code runs" in n.message]
    assert len(notes) == 1, [n.message for n in option_notes(cfg)]
    assert f"`{program}`" in notes[0].message
    assert notes[0].key_path.endswith(f".command.{key}"), notes[0].key_path
    assert "path_under" in (notes[0].hint or "")


@pytest.mark.parametrize("argv", [
    ["pytest", "-k", V, "tests/"],  # a selection expression, not a path
    ["pytest", "-m", V],
    ["go", "test", "-run", V, "./..."],
    ["go", "vet", V],
    ["docker", "run", "--rm", "img", "ls", "--", V],
    ["docker", "build", "--build-arg", V, "."],
    ["grep", "-r", "--", V, "."],
    ["python3", "-m", "json.tool", "--", V],
], ids=" ".join)
def test_no_note_where_the_value_is_not_code(config: Config, argv: list[Any]) -> None:
    notes = option_notes(config({"t": cmd(argv)}))
    assert not [n.message for n in notes if "chooses which code runs" in n.message]


def test_validate_prints_it_and_passes(tmp_path: Path) -> None:
    config = tmp_path / "t.yaml"
    config.write_text(
        "toolhost: 1\nservers:\n  s:\n    tools:\n"
        "      tests:\n        command: [pytest, -q, --, '{{ path }}']\n"
        "        description: Run the tests of one file.\n"
        "permissions:\n  allow: [mcp__s]\n")
    proc = subprocess.run([sys.executable, "-m", "toolhost", "validate", "--no-layers",
                           str(config)], capture_output=True, text=True, timeout=60,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    (note,) = [line for line in proc.stderr.splitlines() if "pytest" in line]
    assert "t.yaml:" in note and "command.argv[3]" in note and "conftest.py" in note
