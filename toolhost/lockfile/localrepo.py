"""A team repository on this disk with uncommitted edits: said at ``lock``, not at every run.

A config pins a repository's commit (``rev: v1.2.0``), so a person editing their local clone
of the team's repository (``repo: ../team-config``) sees none of it in the project, and
nothing said why: the lock pins the commit, and the working tree is not it. ``toolhost
lock`` (and ``lock --check``, ``update``, ``validate``) asks ``git status`` of each
repository that is a local directory and names the files the config uses that differ
from the commit, or how many other files do. One ``git status`` per local repository, only
on these commands.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote, urlsplit

from toolhost.config.model import UNKNOWN
from toolhost.lockfile.drift import Pulled

__all__ = ["local_changes", "local_changes_of_files"]

_TIMEOUT = 20.0
_SHOWN = 5  # file names listed in a note; the rest are counted


def local_changes(sources: Iterable[Pulled]) -> list[str]:
    """One note per pinned repository that is a directory on this disk whose work tree has
    uncommitted changes (tracked files only)."""
    notes: list[str] = []
    for source in sources:
        if not source.key.startswith("repo:") or not source.url.startswith("file://"):
            continue
        where = Path(unquote(urlsplit(source.url).path))
        changed = _changed(where)
        if not changed:
            continue
        used = sorted(rel for rel in source.files if rel in changed)
        others = len(changed) - len(used)
        what = (f"uncommitted changes to {_names(used)} (used by this config)" if used
                else "uncommitted changes")
        if others and used:
            what += f" and {others} other file(s)"
        elif others:
            what += f" to {others} file(s) this config does not use"
        notes.append(f"{source.key}: {where} has {what}: the config uses commit "
                     f"{source.pin[:12]} ({source.rev}), not the working tree (commit, tag "
                     "and `toolhost update` to use them)")
    return notes


def local_changes_of_files(files: Iterable[str]) -> list[str]:
    """``local_changes`` for the files a load read (``HostConfig.files``): those in a cached
    checkout count as that repository's (``toolhost validate`` has no lock guard at hand)."""
    import json

    from toolhost.config.repotree import META, checkout_root

    found: dict[Path, Pulled] = {}
    for name in files:
        root = checkout_root(name)
        if root is None:
            continue
        if root not in found:
            try:
                record = json.loads(root.joinpath(META).read_text(encoding="utf-8"))
                url, rev, sha = (str(record[k]) for k in ("url", "rev", "sha"))
            except (OSError, ValueError, KeyError, TypeError, RecursionError):
                continue
            found[root] = Pulled(f"repo:{url}@{rev}", sha, root, UNKNOWN, url, rev)
        rel = Path(os.path.realpath(name)).relative_to(root).as_posix()
        found[root].files[rel] = ""
    return local_changes(found.values())


def _names(rels: list[str]) -> str:
    shown = ", ".join(rels[:_SHOWN])
    return shown + (f" (+{len(rels) - _SHOWN:,} more)" if len(rels) > _SHOWN else "")


def _changed(root: Path) -> set[str]:
    """The tracked paths of the work tree at ``root`` that differ from its HEAD ("" and an
    empty set when it is no work tree, or git cannot tell)."""
    from toolhost.config.gitobjects import LOCAL_GIT_ARGS

    if not (root / ".git").exists():  # a bare repository: no work tree to differ
        return set()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0",
               LC_ALL="C")
    try:
        proc = subprocess.run(["git", *LOCAL_GIT_ARGS, "-C", str(root), "status",
                               "--porcelain=v1", "-z", "--untracked-files=no",
                               "--no-renames"], env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return set()
    if proc.returncode != 0:
        return set()
    found = set()
    for entry in proc.stdout.split(b"\0"):
        if len(entry) > 3:
            found.add(entry[3:].decode("utf-8", "replace"))
    return found
