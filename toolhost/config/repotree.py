"""A cached team repository is used only as its commit, and only from inside itself.

A repository contributes more than the fragments the lock hashes: Python modules imported from
the checkout, scripts a ``command:`` tool runs there, data and resource files. So before any of
a checkout is used, its work tree is compared with the commit in git's own object store
(``clean_or_refetch``): a modified, deleted, added (even git-ignored) or re-typed file, a
staged change, a moved ``HEAD`` or an index entry git was told not to look at makes the
checkout dirty; it is thrown away and cloned again, and refused if the fresh copy is dirty too.
Python's bytecode caches (``__pycache__``) are derived, never trusted: they are deleted.

And a path a file inside a checkout names relative to itself (a nested ``extends``, a
python tool's ``path:``, a ``cwd``, a document) must stay inside that checkout once symlinks
are resolved (``escapes``): what lies outside is neither pinned nor reviewed.

This module is imported by every load that resolves a relative path, so it stays light: git
and the cache helpers load when a checkout is actually checked.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolhost.config.gitrepos import Checkout
    from toolhost.config.model import Origin

__all__ = ["cache_root", "checkout_root", "clean_or_refetch", "dirt", "escapes",
           "leaves_checkout"]

log = logging.getLogger("toolhost.config")

META = ".toolhost-checkout.json"  # toolhost's own, written beside the work tree's files
# an attacker's .git/config must not change what "clean" means (nor run an fsmonitor hook)
_GIT_SAFE = ("-c", "core.fsmonitor=false", "-c", "core.fileMode=true", "-c",
             "core.ignoreStat=false", "-c", "core.untrackedCache=false", "-c",
             "core.symlinks=true", "-c", "core.ignoreCase=false")
_SHOWN = 5  # paths named in a message


def cache_root() -> Path:
    """``$TOOLHOST_CACHE`` or ``~/.cache/toolhost`` (``$XDG_CACHE_HOME`` is honoured)."""
    env = os.environ.get("TOOLHOST_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "toolhost"


def checkout_root(file: str | os.PathLike[str]) -> Path | None:
    """The (real) directory of the cached checkout ``file`` lies in, after resolving
    symlinks; None for a file outside the repository cache."""
    repos = os.path.realpath(cache_root() / "repos")
    real = os.path.realpath(file)
    if not real.startswith(repos + os.sep):
        return None
    first = real[len(repos) + 1:].split(os.sep, 1)[0]
    return Path(repos, first) if first else None


def escapes(declaring_file: str, target: str | os.PathLike[str]) -> Path | None:
    """The checkout ``declaring_file`` lies in when ``target`` (a path it names) resolves to
    outside of it; None when the target stays inside, or the file is in no checkout."""
    root = checkout_root(declaring_file)
    if root is None:
        return None
    real = os.path.realpath(target)
    return None if real == str(root) or real.startswith(str(root) + os.sep) else root


def leaves_checkout(declaring: str, resolved: str, value: str) -> tuple[str, str] | None:
    """(message, hint) when ``value``, written in ``declaring`` and resolved relative to it,
    leads out of the shared repository checkout ``declaring`` is in (symlinks resolved)."""
    root = escapes(declaring, resolved)
    if root is None:
        return None
    return (f"{value!r} leads out of the repository checked out in {root} (it resolves to "
            f"{os.path.realpath(resolved)})", "a path in a shared repository's file stays "
            "inside that repository: nothing outside it is pinned or reviewed")


def dirt(checkout: Checkout) -> list[str]:
    """How the work tree differs from its commit (empty: it is exactly the commit).

    Untracked ``__pycache__`` contents are deleted on the way (bytecode is derived from the
    sources, and a planted ``.pyc`` would run instead of them)."""
    root = checkout.path
    try:
        head = root.joinpath(".git", "HEAD").read_text(encoding="utf-8").strip()
    except (OSError, ValueError) as exc:
        return [f".git/HEAD unreadable ({type(exc).__name__})"]
    if head != checkout.sha:
        return [f"HEAD is {head[:40]!r}, not the commit {checkout.sha[:12]}"]
    git = [f"--git-dir={root / '.git'}", f"--work-tree={root}", *_GIT_SAFE]
    status, flags = _git_pair(root, [*git, "status", "--porcelain=v1", "-z",
                                     "--untracked-files=all", "--ignored=matching",
                                     "--no-renames"], [*git, "ls-files", "-v", "-z"])
    found: list[str] = []
    for entry in status.split("\0"):
        if len(entry) < 4:
            continue
        code, path = entry[:2], entry[3:]
        if code in ("??", "!!") and path == META:
            continue
        if code in ("??", "!!") and "__pycache__" in Path(path).parts:
            _remove(root / path)
            continue
        found.append(f"{code.strip()} {path}")
    for entry in flags.split("\0"):  # assume-unchanged 'h', skip-worktree 'S': both hide
        # edits from git status
        if entry and entry[0] != "H":
            found.append(f"{entry[0]} {entry[2:]} (hidden from git status)")
    return found


def _git_pair(root: Path, first: list[str], second: list[str]) -> tuple[str, str]:
    """Two read-only git commands run at once (a start pays for one git process, not two)."""
    import subprocess

    from toolhost.config.gitrepos import GIT_TIMEOUT, run_git

    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"}
    try:
        procs = [subprocess.Popen(["git", *args], cwd=root, env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
                 for args in (first, second)]
    except OSError:  # no git: run_git says so, located
        return run_git(first, cwd=root), run_git(second, cwd=root)
    outs: list[str] = []
    for proc in procs:
        try:
            out = proc.communicate(timeout=GIT_TIMEOUT)[0]
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            out, proc.returncode = b"", 1
        if proc.returncode != 0:  # again, for git's own message
            return run_git(first, cwd=root), run_git(second, cwd=root)
        outs.append(out.decode("utf-8", "surrogateescape"))
    return outs[0], outs[1]


def clean_or_refetch(checkout: Checkout, where: Origin, *, cache: Path | None = None
                     ) -> Checkout:
    """``checkout`` when its work tree is its commit; else it is cloned again (a warning is
    logged) and the fresh copy returned. Raises ``ConfigError`` naming ``where`` when the
    fresh copy is not clean either."""
    from toolhost.config.gitrepos import _error, refetch_repo

    found = _dirt_or_broken(checkout)
    if not found:
        return checkout
    log.warning("%s: the cached checkout of %s at %s (%s) was modified on disk; fetching it "
                "again\n%s", where, checkout.url, checkout.rev, checkout.path,
                _describe(checkout, found))
    fresh = refetch_repo(checkout.url, checkout.rev, where=where, cache=cache)
    again = _dirt_or_broken(fresh)
    if again:
        raise _error(where, f"the cached checkout of {checkout.url} at {checkout.rev} does "
                     f"not match commit {fresh.sha[:12]}: {_summary(again)}",
                     hint=f"delete {fresh.path} and load again, or run `toolhost update`")
    return fresh


def _dirt_or_broken(checkout: Checkout) -> list[str]:
    from toolhost.errors import ConfigError

    try:
        return dirt(checkout)
    except ConfigError as exc:  # a broken .git: as untrustworthy as an edited file
        return [exc.problems[0].message]


def _describe(checkout: Checkout, found: list[str]) -> str:
    from toolhost.config.gitrepos import run_git
    from toolhost.errors import ConfigError
    from toolhost.lockfile.drift import cut_lines

    try:
        diff = run_git([f"--git-dir={checkout.path / '.git'}",
                        f"--work-tree={checkout.path}", *_GIT_SAFE, "diff", "--no-color",
                        "HEAD"], cwd=checkout.path)
    except ConfigError:
        diff = ""
    return cut_lines("\n".join([_summary(found), diff]).strip())


def _summary(found: list[str]) -> str:
    more = f" and {len(found) - _SHOWN} more" if len(found) > _SHOWN else ""
    return ", ".join(repr(f) for f in found[:_SHOWN]) + more


def _remove(path: Path) -> None:
    import shutil  # only when there is bytecode to delete

    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()
