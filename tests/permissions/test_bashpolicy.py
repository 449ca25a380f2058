"""Round 21: a local shell's ``-c`` string is read as the line itself is: the script, the
Makefile it runs is judged (``bash -c 'bash s.sh'`` and ``bash -c 'make x'`` were allowed
while ``bash s.sh`` and ``make x`` were not)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.permissions.test_laterarchive import GUARDED, OPEN, decide


@pytest.mark.parametrize("command,want", [
    ("bash -c 'bash s.sh'", "deny"), ("sh -c '. ./s.sh'", "deny"), ("bash -c 'make x'", "deny"),
    ("bash -lc 'make x'", "deny"), ("bash -o pipefail -c 'make x'", "deny"),
    ("env bash -c 'make x'", "deny"), ("echo 1 | xargs sh -c 'make x'", "deny"),
    ("sh -c 'sh -c \"make x\"'", "deny"),
    ("bash -c 'cat s.sh'", "allow"), ("bash -c 'make ok'", "allow"),
    ("bash -c 'echo \"$1\"' _ 'a $(b)'", "allow"),
])
def test_a_shell_s_command_string_reads_what_it_runs(tmp_path: Path, command: str,
                                                      want: str) -> None:
    (tmp_path / "s.sh").write_text("rm -rf ~/x\n")
    (tmp_path / "Makefile").write_text("x:\n\trm -rf ~/x\nok:\n\techo ok\n")
    assert decide(tmp_path, command, GUARDED) == want
    assert decide(tmp_path, command, OPEN) == "allow"
