"""``lock --check`` asks each pinned repository where its tags and branches point now.

A load reads a cached checkout, which keeps exactly what was reviewed: a tag moved upstream
shows only on a machine with an empty cache (a new colleague, a fresh CI runner), as a
refused load. ``lock --check`` is the command a team runs to know whether the lock still
holds, so it also asks the repository (one ``git ls-remote`` per pinned repo and rev): a
tag or branch that now names another commit, or no longer exists, is reported with the diff
a fresh clone would be refused with. A repository it cannot reach is said, not failed on:
what the config uses is still exactly the locked commit, and the check works offline.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from toolhost.errors import ConfigError
from toolhost.lockfile.drift import Pulled, repo_diff

if TYPE_CHECKING:
    from toolhost.config.repotree import Checkout

__all__ = ["moved_revs", "realigned", "upstream_commit"]

ASK_TIMEOUT = 30.0  # seconds per repository: an unreachable one is a note, not a long wait
_COMMIT = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64})")


def moved_revs(sources: Iterable[Pulled]) -> tuple[list[str], list[str]]:
    """(differences, notes): one line per pinned tag or branch that names another commit
    upstream than the lock (with the diff under it, indented), and one note per repository
    that could not be asked."""
    from toolhost.config.gitrepos import checkout_of

    found: list[str] = []
    notes: list[str] = []
    for source in sources:
        if not source.key.startswith("repo:") or not source.url:
            continue
        try:
            kind = checkout_of(source.url, source.rev).ref  # cached: no network
            if kind == "commit":
                continue  # a commit id cannot move
            now = upstream_commit(source.url, source.rev)
        except ConfigError as exc:
            notes.append(f"{source.key}: not checked upstream ({exc.problems[0].message})")
            continue
        if now is None:
            found.append(f"{source.key}: the {kind} {source.rev} no longer exists upstream "
                         f"(the lock has {source.pin[:12]}; a fresh clone would fail)")
        elif now != source.pin:
            found.append(f"{source.key}: rev {source.rev} now resolves upstream to commit "
                         f"{now[:12]}, the lock has {source.pin[:12]} (the {kind} moved; a "
                         "fresh clone would be refused)" + _diff(source, now))
    return found, notes


def upstream_commit(url: str, rev: str) -> str | None:
    """The commit the tag or branch ``rev`` of ``url`` names upstream now (one ``git
    ls-remote``, at most ``ASK_TIMEOUT`` s), None when it names none; a ``ConfigError`` when
    the repository cannot be asked, or answers something that is no commit id."""
    from toolhost.config.gitclone import error, run_git
    from toolhost.config.model import UNKNOWN
    from toolhost.config.url_secrets import shown_url

    out = run_git(["ls-remote", "--", shown_url(url), f"refs/tags/{rev}",
                   f"refs/tags/{rev}^{{}}", f"refs/heads/{rev}"], remote=url,
                  timeout=ASK_TIMEOUT)
    refs: dict[str, str] = {}
    for line in out.splitlines():
        sha, tab, name = line.partition("\t")
        if tab:
            refs[name] = sha
    now = (refs.get(f"refs/tags/{rev}^{{}}") or refs.get(f"refs/tags/{rev}")
           or refs.get(f"refs/heads/{rev}"))
    if now is not None and not _COMMIT.fullmatch(now):
        raise error(UNKNOWN, "an answer that is no commit id")
    return now


def realigned(checkout: Checkout, locked: str) -> Checkout:
    """``checkout`` (a tag or branch pin whose cached commit is not ``locked``, the lock's),
    cloned again when its rev names another commit upstream now: a tag moved and moved
    back upstream, seen by this cache while it was moved, loads again as the reviewed
    commit (and `toolhost lock` never accepts what upstream no longer has). Unchanged when
    the repository cannot be asked (offline) or still names the cached commit."""
    from toolhost.config.gitrepos import refetch_repo

    if checkout.ref == "commit" or checkout.sha == locked:
        return checkout
    try:
        now = upstream_commit(checkout.remote or checkout.url, checkout.rev)
        if now is None or now == checkout.sha:
            return checkout
        return refetch_repo(checkout.remote or checkout.url, checkout.rev)
    except ConfigError:
        return checkout


def _diff(source: Pulled, now: str) -> str:
    """The diff of the locked commit to ``now``, fetched into the cached checkout (indented
    under the line); "" when it cannot be had."""
    from toolhost.config.gitclone import run_git

    try:
        run_git(["fetch", "-q", "--depth=1", "origin", now], cwd=source.root, remote=source.url,
                timeout=ASK_TIMEOUT)
    except ConfigError:
        return ""
    text = repo_diff(dataclasses.replace(source, pin=now), source.pin, ".")
    return "".join(f"\n    {line}" for line in text.splitlines())
