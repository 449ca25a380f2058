"""Saying what moved: the diffs a reviewer reads before accepting a change to the lock."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from toolhost.config.model import Origin
from toolhost.errors import ConfigError
from toolhost.excerpt import cut_lines as _cut_lines

__all__ = ["DIFF_LINES", "Pulled", "cut_lines", "pin_change", "repo_diff"]

_COMMIT = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64})")
DIFF_LINES = 80  # a longer diff is cut, with the command that shows all of it


@dataclass
class Pulled:
    """A source as this load found it (mutable while files are added)."""

    key: str
    pin: str
    root: Path
    origin: Origin
    url: str = ""  # repos only: as written (git needs its password, nothing shows it)
    rev: str = ""
    files: dict[str, str] = field(default_factory=dict)
    legacy: str = ""  # the key an older toolhost gave it (a local path's file:// URL)


def pin_change(source: Pulled, locked: str) -> str:
    if source.key.startswith("repo:"):
        return (f"rev {source.rev} now resolves to commit {source.pin[:12]}, "
                f"the lock has {locked[:12]} (the tag or branch moved)")
    return f"version {locked} locked, {source.pin} installed"


def repo_diff(source: Pulled, locked: str, rel: str) -> str:
    """``git diff LOCKED HEAD -- rel`` in the cached checkout, fetching the locked commit if
    the server still has it; a note when it cannot be had."""
    if not source.key.startswith("repo:"):
        return ""
    if not _COMMIT.fullmatch(locked) or not _COMMIT.fullmatch(source.pin):
        return ""  # never a git argument that is not a commit id (a lock's value is checked
        # when read: this is the second line of defence)
    from toolhost.config.gitclone import run_git
    from toolhost.config.gitobjects import local_git

    try:
        run_git(["fetch", "-q", "--depth=1", "origin", locked], cwd=source.root,
                remote=source.url)
    except ConfigError as exc:
        return (f"(the locked commit {locked[:12]} cannot be fetched to compare: "
                f"{exc.problems[0].message})")
    text = local_git(source.root, ["diff", "--no-color", "--no-ext-diff", "--no-textconv",
                                   locked, source.pin, "--", rel])
    if text is None:
        return f"(no diff between {locked[:12]} and {source.pin[:12]})"
    return cut_lines(text) or f"({rel} itself is unchanged; other files of the commit moved)"


def cut_lines(text: str) -> str:
    """``text`` cut to ``DIFF_LINES`` lines of at most 200 characters."""
    return _cut_lines(text, DIFF_LINES)
