"""Review 19: the repository read at decision time (gitread) runs nothing the repository's
configuration names, and a repository git will not read is not taken for no repository.

A partial clone fetched an object it lacked while the rules read it: git ran the remote's
``uploadpack`` (or ``core.sshCommand``, a remote helper) as the call was decided. A
repository git refuses (``dubious ownership``, which the command's own ``-c safe.directory``
lifts; an unknown format) was read as "no repository here", and the command allowed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.permissions.gitrepo import branch, evil_repo, git
from tests.permissions.later.test_archive import GUARDED, OPEN, decide


def test_a_partial_clone_s_missing_objects_are_not_fetched_while_deciding(
        tmp_path: Path) -> None:
    source = evil_repo(tmp_path / "src")
    git(source, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--no-local", "--filter=blob:none", f"file://{source}",
        str(clone))
    git(clone, "branch", "-q", "evil", "origin/evil")
    marker = tmp_path / "ran"
    script = tmp_path / "upload.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\nexec git-upload-pack \"$@\"\n")
    script.chmod(0o755)
    git(clone, "config", "remote.origin.uploadpack", str(script))
    assert decide(clone, "git checkout evil", GUARDED) == "deny"
    assert not marker.exists()  # the repository's command did not run
    assert decide(clone, "git checkout evil", OPEN) == "allow"  # (nothing to meet)


def _refused(root: Path, how: str) -> None:
    if how == "format":
        git(root, "config", "core.repositoryformatversion", "99")
    else:
        for path in (root, *root.rglob("*")):
            os.chown(path, 65534, 65534, follow_symlinks=False)


@pytest.mark.parametrize("how", [
    "format", pytest.param("owner", marks=pytest.mark.skipif(
        not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root"))])
def test_a_repository_git_refuses_is_not_provable(tmp_path: Path, how: str) -> None:
    root = evil_repo(tmp_path / "r")
    _refused(root, how)
    command = f"git -c safe.directory={root} checkout evil"
    assert decide(root, command, GUARDED) == "deny"
    assert decide(root, "git checkout evil", OPEN) == "allow"


def test_no_repository_at_all_still_brings_nothing(tmp_path: Path) -> None:
    assert decide(tmp_path, "git checkout evil", GUARDED) == "allow"


def test_a_huge_run_later_file_is_not_read_whole(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A branch's hook of 2 MB (a 2 GB one packs to a few MB) is judged too long to read
    from its size alone; it was read into memory whole first (300 MB: 878 MB resident)."""
    from toolhost.permissions.git import read as gitread

    root = evil_repo(tmp_path / "r")
    branch(root, "big", {".husky/pre-commit": "#" * (2 << 20)})
    git(root, "checkout", "-q", "main")
    sizes: list[int] = []
    real = gitread.git

    def counted(*args: str, **kwargs: str | None) -> str | None:
        out = real(*args, **kwargs)  # type: ignore[arg-type]
        sizes.append(len(out or ""))
        return out

    monkeypatch.setattr(gitread, "git", counted)
    assert decide(root, "git checkout big", GUARDED) == "deny"
    assert sizes and max(sizes) < 64 * 1024


@pytest.mark.parametrize("how", ["replace", "grafts", "base"])
def test_replaced_objects_are_not_read_as_the_originals(tmp_path: Path, how: str) -> None:
    """``git replace plain evil`` (one call), then ``git checkout plain`` brings evil's hook:
    git reads the replacement; the rules read plain's own tree and allowed it."""
    root = evil_repo(tmp_path / "r")
    branch(root, "plain", {"README": "hi\nplain\n"})
    git(root, "checkout", "-q", "main")
    command = "git checkout plain"
    if how == "replace":
        git(root, "replace", "plain", "evil")
    elif how == "grafts":  # (parents: what a merge brings; deprecated, still read by git)
        ids = git(root, "rev-parse", "plain", "evil").split()
        (root / ".git/info").mkdir(exist_ok=True)
        (root / ".git/info/grafts").write_text(" ".join(ids) + "\n")
        command = "git merge plain"
    else:  # the command's own environment names another place for replacements
        commit = git(root, "rev-parse", "plain").strip()
        git(root, "update-ref", f"refs/r/{commit}", "evil")
        command = "GIT_REPLACE_REF_BASE=refs/r/ git checkout plain"
    assert decide(root, command, GUARDED) == "deny"
    assert decide(root, "git checkout main", OPEN) == "allow"


@pytest.mark.parametrize("other", ["refs/tags/evil", "refs/evil"])
@pytest.mark.parametrize("command", ["git checkout evil", "git switch evil",
                                     "git worktree add ../w evil", "git checkout -B x evil"])
def test_a_branch_shadowed_by_a_tag_of_its_name_is_read_as_thebranch(
        tmp_path: Path, other: str, command: str) -> None:
    """A tag ``evil`` at main: rev-parse takes the tag, ``git checkout evil`` the branch."""
    root = evil_repo(tmp_path / "r")
    git(root, "update-ref", other, "main")
    assert decide(root, command, GUARDED) == "deny"


@pytest.mark.parametrize("command", ["git checkout :/evil", "git reset --hard :/evil",
                                     "git restore -s :/evil .", "git worktree add ../w :/evil"])
def test_a_revision_is_read_as_git_reads_it(tmp_path: Path, command: str) -> None:
    """``:/evil`` (the newest commit whose message says evil): the reading appended
    ``^{commit}`` to it, a search for another message, and read the checkout as of paths."""
    root = evil_repo(tmp_path / "r")
    assert decide(root, command, GUARDED) == "deny"
