"""Round 22: what a git command runs from its repository's config and hooks is judged when
the command is decided (toolhost.permissions.git.config_runs). A config naming a script by
its path (``core.fsmonitor = ./fs.sh``) meets no rule when written; ``fs.sh`` is an
ordinary file. git itself is the judge here: each case asserts that git really ran the
script's rm (a fake rm logging to ``ran``) and that the decision is deny."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.permissions.gitrepo import ENV, git, new_repo
from tests.permissions.later.test_archive import GUARDED, OPEN, decide

# name: (git config lines of the repository 'r', the command, run in the tree's root)
CASES = {
    "fsmonitor": ("[core]\n\tfsmonitor = ./fs.sh\n", "git -C r status"),
    "fsmonitor_quoted": ('[core]\n\tfsmonitor = "./fs.sh"\n', "git -C r status"),
    "diff_external": ("[diff]\n\texternal = ./fs.sh\n", "echo y > r/README; git -C r diff"),
    "hooks_path": ("[core]\n\thooksPath = h\n", "git -C r commit -qm x --allow-empty"),
    "in_repo": ("[core]\n\tfsmonitor = ./fs.sh\n", "cd r && git status"),
    "git_dir_option": ("[core]\n\tfsmonitor = ./fs.sh\n",
                       "git --git-dir=r/.git --work-tree r status"),
    "git_dir_env": ("[core]\n\tfsmonitor = ./fs.sh\n", "GIT_DIR=r/.git GIT_WORK_TREE=r git status"),
}


def _tree(root: Path, config: str) -> dict[str, str]:
    repo = new_repo(root / "r")
    with open(repo / ".git/config", "a") as out:
        out.write(config)
    bin_dir = root / "bin"
    bin_dir.mkdir()
    (bin_dir / "rm").write_text(f"#!/bin/sh\necho rm \"$@\" >> {root / 'ran'}\n")
    (bin_dir / "rm").chmod(0o755)
    (repo / "fs.sh").write_text("#!/bin/sh\nrm -rf v\n")  # (an earlier call wrote it)
    (repo / "fs.sh").chmod(0o755)
    (repo / "h").mkdir()
    (repo / "h/pre-commit").write_text("#!/bin/sh\n./fs.sh\n")
    (repo / "h/pre-commit").chmod(0o755)
    return {**ENV, "PATH": f"{bin_dir}:{os.environ['PATH']}", "GIT_PAGER": "",
            "SHELL": "/bin/sh", "HOME": str(root)}


@pytest.mark.parametrize("name", list(CASES))
def test_a_script_git_runs_from_its_config_is_read(tmp_path: Path, name: str) -> None:
    config, command = CASES[name]
    env = _tree(tmp_path, config)
    assert decide(tmp_path, command, GUARDED) == "deny"
    assert decide(tmp_path, command, OPEN) == "allow"  # (no rule to dodge: as before)
    subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                   check=False, stdin=subprocess.DEVNULL, timeout=60)
    assert (tmp_path / "ran").exists()  # (git ran the script's rm: a real case)


@pytest.mark.parametrize("config", [
    "", "[core]\n\tpager = less -R\n", "[alias]\n\tst = status -s\n",
    "[core]\n\tfsmonitor = false\n", "[diff]\n\texternal = difft\n",
])
def test_an_honest_config_is_still_allowed(tmp_path: Path, config: str) -> None:
    _tree(tmp_path, config)
    (tmp_path / "r/h/pre-commit").unlink()
    for command in ("git -C r status", "git -C r log -1", "git -C r diff"):
        assert decide(tmp_path, command, GUARDED) == "allow"


def test_an_included_config_is_read(tmp_path: Path) -> None:
    _tree(tmp_path, "[include]\n\tpath = ../other.cfg\n[includeIf \"gitdir:/x/\"]\n"
                    "\tpath = ../../if.cfg\n")
    assert decide(tmp_path, "git -C r status", GUARDED) == "allow"  # (missing: skipped)
    (tmp_path / "r/.git/other.cfg").write_text("[core]\n\tpager = less\n")
    (tmp_path / "if.cfg").write_text("[core]\n\tfsmonitor = ./fs.sh\n")
    assert decide(tmp_path, "git -C r status", GUARDED) == "deny"


def test_a_linked_work_tree_reads_its_common_config(tmp_path: Path) -> None:
    _tree(tmp_path, "[core]\n\tfsmonitor = ./fs.sh\n")
    git(tmp_path / "r", "worktree", "add", "-q", str(tmp_path / "w"))
    (tmp_path / "w/fs.sh").write_text("#!/bin/sh\nrm -rf v\n")
    assert decide(tmp_path, "git -C w status", GUARDED) == "deny"


@pytest.mark.parametrize("makefile,command", [
    ("export GIT_DIR = r/.git\nexport GIT_WORK_TREE = r\nall: ; git status\n", "make"),
    (".EXPORT_ALL_VARIABLES:\nGIT_DIR = r/.git\nGIT_WORK_TREE = r\nall: ; git status\n",
     "make"),
    ("all: ; git status\n", "make GIT_DIR=r/.git GIT_WORK_TREE=r"),
])
def test_a_makefile_naming_git_s_repository_is_not_provable(tmp_path: Path, makefile: str,
                                                           command: str) -> None:
    env = _tree(tmp_path, "[core]\n\tfsmonitor = ./fs.sh\n")
    (tmp_path / "Makefile").write_text(makefile)
    assert decide(tmp_path, command, GUARDED) == "deny"
    subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                   check=False, stdin=subprocess.DEVNULL, timeout=60)
    assert (tmp_path / "ran").exists()


def test_only_the_hooks_a_subcommand_runs_are_read(tmp_path: Path) -> None:
    """husky 9's hook sources a file by ``$0`` (not provable): a commit runs it, a status or
    a log runs no pre-commit hook."""
    _tree(tmp_path, "[core]\n\thooksPath = h\n")
    (tmp_path / "r/h/pre-commit").write_text('#!/usr/bin/env sh\n. "${0%/*}/h"\n')
    for command in ("git -C r status", "git -C r log -1", "git -C r diff"):
        assert decide(tmp_path, command, GUARDED) == "allow"
    for command in ("git -C r commit -m x", "git -C r merge main", "git -C r frobnicate"):
        assert decide(tmp_path, command, GUARDED) == "deny"


# A push to a repository of this machine runs that repository's receive hooks here (git's
# receive-pack runs in the other folder): `git push ../other` ran its pre-receive's rm.
PUSHES = {
    "path": "git -C r push -q ../o HEAD:refs/heads/x",
    "file_url": "git -C r push -q file://{root}/o HEAD:refs/heads/x",
    "named_remote": "git -C r push -q other HEAD:refs/heads/x",
    "default_remote": "git -C r push -q",
    "repo_option": "git -C r push -q --repo=other",
    "instead_of": "git -C r push -q gh:o HEAD:refs/heads/x",  # (url.<root>/.insteadOf gh:)
}


@pytest.mark.parametrize("name", list(PUSHES))
def test_a_push_to_a_local_repository_reads_its_receive_hooks(tmp_path: Path,
                                                               name: str) -> None:
    env = _tree(tmp_path, f"[url \"{tmp_path}/\"]\n\tinsteadOf = gh:\n"
                "[remote \"other\"]\n\turl = ../o\n"
                "[branch \"main\"]\n\tremote = other\n\tmerge = refs/heads/x\n"
                "[push]\n\tdefault = upstream\n")
    git(tmp_path / "r", "commit", "-q", "--allow-empty", "-m", "x")
    git(tmp_path / "r", "branch", "-M", "main")
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "o")], check=True,
                   env=env, capture_output=True)
    hook = tmp_path / "o/hooks/pre-receive"
    hook.write_text(f"#!/bin/sh\n{tmp_path / 'r/fs.sh'}\n")
    hook.chmod(0o755)
    command = PUSHES[name].format(root=tmp_path)
    assert decide(tmp_path, command, GUARDED) == "deny"
    assert decide(tmp_path, command, OPEN) == "allow"
    hook.unlink()
    assert decide(tmp_path, command, GUARDED) == "allow"  # (no hook: nothing more runs)
    hook.write_text(f"#!/bin/sh\n{tmp_path / 'r/fs.sh'}\n")
    hook.chmod(0o755)
    subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                   check=False, stdin=subprocess.DEVNULL, timeout=60)
    assert (tmp_path / "ran").exists()  # (git ran the other repository's hook: a real case)


@pytest.mark.parametrize("url,command,want", [
    ("git@github.com:o/r.git", "git -C r push -q other main", "allow"),
    ("https://example.com/o/r.git", "git -C r push -q", "allow"),
    ("ssh://h/o/r", "git -C r push other main", "allow"),
    ("../nowhere", "git -C r push other main", "allow"),  # (no repository there: it fails)
    ("../o", "git -C r push --receive-pack=./fs.sh other main", "deny"),
])
def test_a_push_elsewhere_reads_no_hooks_of_this_machine(tmp_path: Path, url: str,
                                                         command: str, want: str) -> None:
    _tree(tmp_path, f"[remote \"other\"]\n\turl = {url}\n")
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "o")], check=True,
                   env=ENV, capture_output=True)
    assert decide(tmp_path, command, GUARDED) == want


def test_the_system_config_is_read_where_this_process_could_have_written_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """/etc/gitconfig is the administrator's; running as root (a container), an earlier call
    could have put ``core.fsmonitor = ./fs.sh`` there, and git runs it for every repository."""
    from toolhost.permissions.git import config_runs

    env = _tree(tmp_path, "")
    system = tmp_path / "etc" / "gitconfig"
    system.parent.mkdir()
    system.write_text("[core]\n\tfsmonitor = ./fs.sh\n")
    monkeypatch.setattr(config_runs, "SYSTEM_CONFIG", str(system))
    assert decide(tmp_path, "git -C r status", GUARDED) == "deny"
    subprocess.run(["git", "-C", "r", "status"], cwd=tmp_path, capture_output=True,
                   env={**{k: v for k, v in env.items() if k != "GIT_CONFIG_NOSYSTEM"},
                        "GIT_CONFIG_SYSTEM": str(system)}, check=False,
                   stdin=subprocess.DEVNULL, timeout=60)
    assert (tmp_path / "ran").exists()  # (git ran it: a real case)
    monkeypatch.setattr(config_runs.os, "access", lambda *args, **kwargs: False)
    assert decide(tmp_path, "git -C r status", GUARDED) == "allow"  # (not ours to write)
