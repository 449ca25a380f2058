"""find's -fprint, -fprint0, -fls and -fprintf truncate the file they name and write to it.
A value there loads with a validate note (the model chooses which file is replaced); a value
as -fprintf's file and another as its format would write any text into any file (a shell's
rc file, a git hook), which is a load error (checked for real with find: it wrote a script)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import Config, cmd

V, F = "{{ out }}", "{{ fmt }}"


@pytest.mark.parametrize("argv", [
    [".", "-fprintf", V, F], [".", "-name", "x", "-fprintf", V, F],
    [".", "(", "-fprintf", V, F, ")"], [".", "-fprintf", "./" + V, "%p " + F],
])
def test_a_value_file_with_a_value_text_is_a_load_error(config: Config,
                                                        argv: list[str]) -> None:
    for wrapped in (["find", *argv], ["timeout", "5", "/usr/bin/find", *argv]):
        with pytest.raises(CompileError) as caught:
            compile_tools(config({"t": cmd(wrapped)}))
        assert "would write any text into any file you can write" in str(caught.value)


@pytest.mark.parametrize("argv", [
    [".", "-fprintf", "out.txt", F], [".", "-fprintf", V, "%p\\n"], [".", "-fprint", V],
    [".", "-fprint0", V], [".", "-fls", V], [".", "-printf", F],
])
def test_one_value_loads(config: Config, argv: list[str]) -> None:
    compile_tools(config({"t": cmd(["find", *argv])}))


def test_validate_notes_a_value_file_find_writes(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        "toolhost: 1\nservers:\n  s:\n    tools:\n"
        "      a:\n        description: d\n"
        "        command: [find, ., -fprint, \"{{ out }}\"]\n"
        "      b:\n        description: d\n"
        "        command: [find, ., -fls, \"./{{ out }}\"]\n"
        "permissions: {default: allow}\n")
    checked = subprocess.run([sys.executable, "-m", "toolhost", "validate", "t.yaml"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=120,
                             stdin=subprocess.DEVNULL)
    assert checked.returncode == 0, checked.stderr
    notes = [line for line in checked.stderr.splitlines() if "truncates and writes" in line]
    assert [n.split(": note:")[0] for n in notes] == [
        "t.yaml:7:9: servers.s.tools.a.command.argv[3]",
        "t.yaml:10:9: servers.s.tools.b.command.argv[3]"], checked.stderr
    assert "-fprint: the model chooses which of your files is replaced" in notes[0]
