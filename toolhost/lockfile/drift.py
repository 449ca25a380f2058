"""Saying what moved: the diffs a reviewer reads before accepting a change to the lock."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from toolhost.config.model import Origin
from toolhost.errors import ConfigError
from toolhost.excerpt import cut_lines as _cut_lines

__all__ = ["DIFF_LINES", "Drift", "Pulled", "cut_lines", "fetch_locked", "pin_drift", "repo_diff"]

_COMMIT = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64})")
# what git (and GitHub, GitLab, a git daemon) answers a fetch of a commit the repository
# does not have; a network error says something else
_ABSENT = re.compile(r"not our ref|unadvertised object|couldn't find remote ref"
                     r"|no such remote ref|not a valid object", re.IGNORECASE)
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
    ref: str = ""  # repos only: "tag", "branch" or "commit" (what rev named)


@dataclass(frozen=True)
class Drift:
    """Why a source's pin is not the lock's: the message, the hint, the diff (or a note)."""

    message: str
    hint: str
    detail: str = ""


def pin_drift(source: Pulled, locked: str, rel: str, lock_name: str) -> Drift:
    """What is true of a source whose commit (or version) is not ``locked``: a tag or branch
    moved (with the diff), a commit the repository does not have (a lock edited, merged or
    copied from another repository's entry, or history rewritten), a commit id the lock
    changed; never a guess the facts contradict."""
    accept = "review the diff; accept with `toolhost lock CONFIG`"
    if not source.key.startswith("repo:"):
        return Drift(f"version {locked} locked, {source.pin} installed", accept)
    edited = f"see `git log -p {lock_name}`"
    if source.ref == "commit":
        return Drift(
            f"rev {source.rev} is a commit id, which names commit {source.pin[:12]} and never "
            f"moves, but the lock has {locked[:12]} for it: the lock was edited (by hand or a "
            "merge)", f"{edited}; `toolhost lock CONFIG` writes the commit the rev names")
    kind = source.ref or "tag or branch"
    now = (f"rev {source.rev} now resolves to commit {source.pin[:12]}, the lock has "
           f"{locked[:12]}")
    failed = fetch_locked(source, locked)
    if failed is None:
        return Drift(f"{now} (the {kind} moved)", accept, _diff(source, locked, rel))
    if _ABSENT.search(failed):
        return Drift(
            f"{now}, which the repository does not have: the lock was edited, merged or "
            "copied from another repository's entry, or the repository's history was "
            "rewritten (a force-push)",
            f"{edited}; to trust the {kind}'s commit {source.pin[:12]}, review it, then "
            "`toolhost lock CONFIG`")
    return Drift(now, accept, f"(the locked commit {locked[:12]} cannot be fetched to "
                 f"compare: {failed})")


def fetch_locked(source: Pulled, locked: str) -> str | None:
    """None once the locked commit is in the cached checkout, else why git could not get it."""
    if not _COMMIT.fullmatch(locked):
        return "not a commit id"  # never a git argument (a lock's value is checked when
        # read: this is the second line of defence)
    from toolhost.config.gitclone import run_git
    from toolhost.config.gitrepos import checkout_locked

    try:  # another toolhost may be cloning, checking or fetching this checkout meanwhile
        with checkout_locked(source.root):
            run_git(["fetch", "-q", "--depth=1", "origin", locked], cwd=source.root,
                    remote=source.url)
    except ConfigError as exc:
        return exc.problems[0].message
    return None


def repo_diff(source: Pulled, locked: str, rel: str) -> str:
    """``git diff LOCKED HEAD -- rel`` in the cached checkout, fetching the locked commit if
    the server still has it; a note when it cannot be had."""
    if not source.key.startswith("repo:"):
        return ""
    failed = fetch_locked(source, locked)
    if failed is not None:
        return f"(the locked commit {locked[:12]} cannot be fetched to compare: {failed})"
    return _diff(source, locked, rel)


def _diff(source: Pulled, locked: str, rel: str) -> str:
    """The diff of ``rel`` from ``locked`` (fetched) to the source's commit."""
    if not _COMMIT.fullmatch(locked) or not _COMMIT.fullmatch(source.pin):
        return ""  # never a git argument that is not a commit id
    from toolhost.config.gitobjects import local_git

    text = local_git(source.root, ["diff", "--no-color", "--no-ext-diff", "--no-textconv",
                                   locked, source.pin, "--", rel])
    if text is None:
        return f"(no diff between {locked[:12]} and {source.pin[:12]})"
    return cut_lines(text) or f"({rel} itself is unchanged; other files of the commit moved)"


def cut_lines(text: str) -> str:
    """``text`` cut to ``DIFF_LINES`` lines of at most 200 characters."""
    return _cut_lines(text, DIFF_LINES)
