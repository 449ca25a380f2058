"""git settings that run a command line without a leading ``!`` (core.pager, core.editor,
core.sshCommand, diff.external, credential.helper, ..., any key of ``[pager]``), written as
text into a git config: their program word must be a plain literal, as an alias's ``!`` value's
is (toolhost.permissions.later.words, round 20: policy19's P19-9)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.permissions.later.test_archive import GUARDED, decide

NOT_PROVABLE = [
    r"printf '[core]\n pager = r${X}m V\n' >> .git/config",
    r"printf '[core]\n\tsshCommand = r${X}m V\n' >> .git/config",
    r"printf '[core]\n editor = \"r${X}m\" V\n' >> ~/.gitconfig",
    r"printf '[sequence]\n editor = r$()m\n' >> .git/config",
    r"printf '[pager]\n log = r${X}m V\n' >> .git/config",
    r"printf '[diff]\n external = r$()m V\n' >> .git/config",
    r"printf '[credential]\n helper = r${X}m\n' >> ~/.gitconfig",
    r"printf '[gpg]\n program = r${X}m\n' >> .git/config",
    r"printf '[filter \"x\"]\n clean = r${X}m\n' >> .git/config",
    r"printf '[diff \"x\"]\n textconv = r${X}m\n' >> .git/config",
    r"printf '[merge \"x\"]\n driver = r${X}m %O\n' >> .git/config",
    r"echo 'editor = r${X}m' >> .git/config",
    "cat >> .git/config <<'EOF'\n[core]\n  askPass = r${X}m\nEOF",
    r"printf '[core]\n fsmonitor = r${X}m\n' >> .git/config",
]
HONEST = [
    r"printf '[core]\n pager = less -R\n' >> .git/config",
    r"printf '[user]\n name = ${X}me\n' >> .git/config",
    r"printf '[alias]\n st = status\n' >> .git/config",
    r"printf '[credential]\n helper = store\n' >> .git/config",
    r"printf '[core]\n editor = vim\n' >> ~/.gitconfig",
    r"printf '[include]\n path = ~/.gitconfig.local\n' >> .git/config",
    r"printf '[core]\n fsmonitor = false\n' >> .git/config",
]


@pytest.mark.parametrize("command", NOT_PROVABLE)
def test_a_git_setting_that_runs_a_hidden_program_is_not_provable(tmp_path: Path,
                                                                    command: str) -> None:
    assert decide(tmp_path, command, GUARDED) == "deny"


@pytest.mark.parametrize("command", HONEST)
def test_an_honest_git_setting_is_allowed(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command, GUARDED) == "allow"
