"""Review 19: a git command's options read as git reads them when what it brings is read.
git takes bundled short options (``-fb new evil``), a value stuck to its option (``-sevil``)
and any unique prefix of a long one (``--har``, ``--sour evil``); read word by word, the
value passed for the revision (or the mode was missed) and ``evil``'s hook came in allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.permissions.later.test_archive import GUARDED, decide
from tests.permissions.later.test_git import ASKED, repo

__all__ = ["repo"]  # (the fixture: a repository whose branch evil brings a husky hook)

SPELLED = [
    "git checkout -fb new evil", "git checkout -qB new evil", "git checkout --orph new evil",
    "git checkout --conf merge evil", "git switch -fc new evil", "git restore -sevil .",
    "git restore -Ws evil .", "git restore --sour evil .", "git restore --so=evil .",
    "git reset --har evil", "git reset --ha evil", "git merge -Skeym evil",
    "git rebase --ont evil main", "git worktree add -fb x ../w1 evil",
]
HONEST = [
    "git merge --edit plain", "git rebase --cont", "git merge --abo", "git checkout -fb n plain",
    "git restore -sHEAD README", "git cherry-pick -xe plain", "git checkout -b n2",
]


@pytest.mark.parametrize("command", SPELLED)
def test_bundled_stuck_and_abbreviated_options_are_read_as_git_reads_them(
        repo: Path, command: str) -> None:
    assert decide(repo, command, GUARDED) == "deny"
    assert decide(repo, command, ASKED) == "ask"


@pytest.mark.parametrize("command", ["git merge --s evil", "git reset --m evil"])
def test_an_abbreviation_of_several_options_is_not_provable(repo: Path, command: str) -> None:
    assert decide(repo, command, GUARDED) == "deny"


@pytest.mark.parametrize("command", HONEST)
def test_honest_spellings_stay_allowed(repo: Path, command: str) -> None:
    assert decide(repo, command, GUARDED) == "allow"
