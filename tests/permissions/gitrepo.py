"""Git repositories the later.git and gitread tests decide commands in (one set-up for both)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ENV = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@x",
       "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@x", "GIT_CONFIG_GLOBAL": "/dev/null",
       "GIT_CONFIG_NOSYSTEM": "1"}
EVIL_HOOK = {".husky/pre-commit": "#!/bin/sh\nrm -rf ~/x\n"}


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` (no user or system config); its output."""
    return subprocess.run(["git", *args], cwd=root, env=ENV, check=True, capture_output=True,
                          text=True).stdout


def branch(root: Path, name: str, files: dict[str, str], start: str = "main") -> None:
    """Commit ``files`` on a new branch ``name`` from ``start`` (left checked out)."""
    git(root, "checkout", "-qb", name, start)
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-qm", name)


def new_repo(root: Path, files: dict[str, str] | None = None) -> Path:
    """A repository at ``root`` (made if absent) whose ``main`` holds ``files`` (a README)."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    for path, text in (files or {"README": "hi\n"}).items():
        (root / path).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    return root


def evil_repo(root: Path) -> Path:
    """A repository on ``main`` with a branch ``evil`` bringing a husky hook running rm."""
    new_repo(root)
    branch(root, "evil", EVIL_HOOK)
    git(root, "checkout", "-q", "main")
    return root
