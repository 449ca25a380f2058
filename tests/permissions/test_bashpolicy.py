"""Round 21: a program's name spelled with quotes is read as the name it is (``g''it``,
``m''ake``), and a local shell's ``-c`` string is read as the line itself is: the script, the
Makefile it runs is judged (``bash -c 'bash s.sh'`` and ``bash -c 'make x'`` were allowed
while ``bash s.sh`` and ``make x`` were not)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.permissions.gitrepo import evil_repo
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


@pytest.mark.parametrize("command", [
    "g''it checkout evil", "git che''ckout evil", "\"git\" checkout evil",
    "bash -c 'git checkout evil'", "m''ake x", "\"make\" x", "bash -c 'm\"\"ake x'",
])
def test_a_program_name_spelled_with_quotes_is_still_read(tmp_path: Path, command: str) -> None:
    """The quick look for ``git``/``make``/``tar``/``patch`` before anything is read took the
    line as written: ``g''it checkout evil`` (git runs) was never read, and allowed."""
    root = evil_repo(tmp_path / "r")
    (root / "Makefile").write_text("x:\n\trm -rf ~/x\n")
    assert decide(root, command, GUARDED) == "deny"
