"""A cached team repository is used only as its commit, and only from inside itself.

A repository contributes more than the fragments the lock hashes: Python modules imported from
the checkout, scripts a ``command:`` tool runs there, data and resource files. So before any of
a checkout is used, its work tree is compared with the pinned commit without trusting its
``.git`` (``toolhost.config.worktree``, ``clean_or_refetch``): files added to it are removed;
a modified, deleted or re-typed file, or a ``.git`` holding what a clone never writes there,
has it cloned again (the old copy is replaced only once the fresh one is complete), and
refused if the fresh copy is dirty too or cannot be fetched. A symlink of the commit that
leads out of the checkout refuses it. Python's bytecode caches (``__pycache__``) are derived,
never trusted: they are deleted.

And a path a file inside a checkout names relative to itself (a nested ``extends``, a
python tool's ``path:``, a ``cwd``, a document) must stay inside that checkout once symlinks
are resolved (``escapes``): what lies outside is neither pinned nor reviewed.

This module is imported by every load that resolves a relative path, so it stays light: git
and the cache helpers load when a checkout is actually checked.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping

    from toolhost.config.model import Origin
    from toolhost.config.worktree import Survey
    from toolhost.errors import ConfigError

__all__ = ["Checkout", "cache_root", "checkout_root", "clean_or_refetch", "dirt", "escapes",
           "fetch_cache_root", "leaves_checkout", "loading_with", "remembered"]

log = logging.getLogger("toolhost.config")

META = ".toolhost-checkout.json"  # toolhost's own, written beside the work tree's files
_SHOWN = 5  # paths named in a message


@dataclass(frozen=True)
class Checkout:
    """A repository at one revision, in the cache."""

    url: str  # without its userinfo: what messages, the lock and the cache show
    rev: str
    path: Path  # the work tree
    sha: str  # the commit rev resolved to when it was cloned
    ref: Literal["tag", "branch", "commit"]
    remote: str = field(default="", repr=False, compare=False)  # as written, password and all


def cache_root(environ: Mapping[str, str] | None = None) -> Path:
    """``$TOOLHOST_CACHE`` or ``~/.cache/toolhost`` (``$XDG_CACHE_HOME`` is honoured), read
    from ``environ`` (default: the process's)."""
    source = os.environ if environ is None else environ
    env = source.get("TOOLHOST_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = source.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "toolhost"


# The environment of the load under way (``load_config(environ=...)``), for what a build
# fetches into the cache (an OpenAPI ``url:`` document); None: outside a load.
_LOADING: contextvars.ContextVar[Mapping[str, str] | None] = \
    contextvars.ContextVar("toolhost_load_environ", default=None)


@contextlib.contextmanager
def loading_with(environ: Mapping[str, str]) -> Iterator[None]:
    """Within the block, ``fetch_cache_root`` reads ``environ``."""
    token = _LOADING.set(environ)
    try:
        yield
    finally:
        _LOADING.reset(token)


def fetch_cache_root() -> Path:
    """``cache_root`` as the load under way sees it (its ``environ``), for documents fetched
    while building; the process's environment outside a load."""
    return cache_root(_LOADING.get())


# Answers of checkout_root inside one ``remembered()`` block (None: outside one, none kept).
_MEMO: contextvars.ContextVar[dict[tuple[str, tuple[object, ...]], Path | None] | None] = \
    contextvars.ContextVar("toolhost_checkout_roots", default=None)


@contextlib.contextmanager
def remembered() -> Iterator[None]:
    """Within the block, ``checkout_root`` answers each file once: a compile asks it for
    the same declaring file once per tool (two ``realpath`` calls each, ~50 us). Nothing is
    kept past the block, so a later load sees the file system as it is then."""
    token = _MEMO.set({}) if _MEMO.get() is None else None
    try:
        yield
    finally:
        if token is not None:
            _MEMO.reset(token)


def checkout_root(file: str | os.PathLike[str]) -> Path | None:
    """The (real) directory of the cached checkout ``file`` lies in, after resolving
    symlinks; None for a file outside the repository cache."""
    memo = _MEMO.get()
    if memo is None:
        return _checkout_root(file)
    # the file as an absolute path (as written when it is one: the same answer), and what
    # cache_root() reads of the environment: a change of either is a new question
    path = file if isinstance(file, str) and file[:1] == os.sep else os.path.abspath(file)
    key = (path, _cache_env())
    if key not in memo:
        memo[key] = _checkout_root(file)
    return memo[key]


_CACHE_VARS = ("TOOLHOST_CACHE", "XDG_CACHE_HOME", "HOME")  # what cache_root() reads
_CACHE_KEYS = tuple(os.environ.encodekey(name) for name in _CACHE_VARS)


def _cache_env() -> tuple[object, ...]:
    """The variables ``cache_root`` reads, as a key. From ``os.environ``'s own dict when it
    has one (three C lookups; ``os.environ.get`` is five Python frames a variable, and a
    1,000-tool compile asks ~3,000 times), else through the mapping."""
    data = getattr(os.environ, "_data", None)
    if isinstance(data, dict):
        return tuple(map(data.get, _CACHE_KEYS))
    return tuple(map(os.environ.get, _CACHE_VARS))


def _checkout_root(file: str | os.PathLike[str]) -> Path | None:
    repos = os.path.realpath(cache_root() / "repos")
    real = os.path.realpath(file)
    if not real.startswith(repos + os.sep):
        return None
    first = real[len(repos) + 1:].split(os.sep, 1)[0]
    return Path(repos, first) if first else None


def escapes(declaring_file: str, target: str | os.PathLike[str]) -> Path | None:
    """The checkout ``declaring_file`` lies in when ``target`` (a path it names) resolves to
    outside of it, or into what is no file of its commit (its ``.git``, toolhost's record);
    None when the target stays inside, or the file is in no checkout."""
    root = checkout_root(declaring_file)
    if root is None:
        return None
    real = os.path.realpath(target)
    top = str(root)
    if real != top and not real.startswith(top + os.sep):
        return root
    first = real[len(top) + 1:].split(os.sep, 1)[0].casefold()  # .GIT on macOS, Windows
    return root if first in (".git", META) else None  # the cache's, neither pinned nor reviewed


def leaves_checkout(declaring: str, resolved: str, value: str) -> tuple[str, str] | None:
    """(message, hint) when ``value``, written in ``declaring`` and resolved relative to it,
    leads out of the shared repository checkout ``declaring`` is in (symlinks resolved)."""
    root = escapes(declaring, resolved)
    if root is None:
        return None
    return (f"{value!r} leads out of the repository checked out in {root} (it resolves to "
            f"{os.path.realpath(resolved)})", "a path in a shared repository's file stays "
            "inside that repository's files (not its .git): nothing else is pinned or "
            "reviewed")


def dirt(checkout: Checkout) -> list[str]:
    """How the work tree differs from its commit (empty: it is exactly the commit), checked
    by ``toolhost.config.worktree`` without trusting the checkout's ``.git``.

    Untracked ``__pycache__`` contents are deleted on the way (bytecode is derived from the
    sources, and a planted ``.pyc`` would run instead of them)."""
    found = _survey(checkout)
    return [*(f"?? {path}" for path in found.added), *found.changed]


def _survey(checkout: Checkout) -> Survey:
    from toolhost.config.worktree import survey

    found = survey(checkout.path, checkout.sha, checkout.url, meta=META)
    for path in found.bytecode:
        _remove(checkout.path / path)
    return found


def clean_or_refetch(checkout: Checkout, where: Origin, *,
                     refetch: Callable[[], Checkout]) -> Checkout:
    """``checkout`` when its work tree is its commit. Files added to it are removed (a
    warning is logged); any other change has it cloned again (a warning is logged) and the
    fresh copy returned. Raises ``ConfigError`` naming ``where`` when the fresh copy is not
    clean either, when it cannot be fetched (the old checkout is kept, unused), or when a
    symlink of the commit leads out of the repository. ``refetch`` clones it again (passed
    in: the cloning modules import this one)."""
    import shutil

    from toolhost.errors import ConfigError

    if shutil.which("git") is None:  # the check reads the commit with git: not "modified"
        raise _error(where, f"cannot check the cached checkout of {checkout.url} at "
                     f"{checkout.rev} against commit {checkout.sha[:12]}: git is not "
                     "installed", hint="install git (or put it on PATH) to use `repo:` in "
                     "extends: a cached file is used only once git shows it is the commit's")
    found = _survey(checkout)
    if found.added and not found.changed:
        log.warning("%s: the cached checkout of %s at %s (%s) was modified on disk: files "
                    "were added, which are removed: %s (a tool whose cwd is inside a shared "
                    "repository writes there: give it a cwd outside)", where, checkout.url,
                    checkout.rev, checkout.path, _summary(found.added))
        for path in found.added:
            _remove(checkout.path / path.rstrip("/"))
        found = _survey(checkout)
    if found.added or found.changed:
        dirty = [*(f"?? {path}" for path in found.added), *found.changed]
        from toolhost.logformat import MULTILINE

        log.warning("%s: the cached checkout of %s at %s (%s) was modified on disk; fetching "
                    "it again\n%s", where, checkout.url, checkout.rev, checkout.path,
                    _describe(checkout, dirty), extra={MULTILINE: True})
        try:
            checkout = refetch()
        except ConfigError as exc:
            raise _error(where, f"the cached checkout of {checkout.url} at {checkout.rev} "
                         f"({checkout.path}) was modified on disk ({_summary(dirty)}) and "
                         f"cannot be fetched again: {exc.problems[0].message}",
                         hint=f"delete {checkout.path} and load again once the repository "
                         "can be reached (nothing of the modified copy is used)") from None
        found = _survey(checkout)
        if found.added or found.changed:
            raise _error(where, f"the cached checkout of {checkout.url} at {checkout.rev} "
                         f"does not match commit {checkout.sha[:12]}: "
                         f"{_summary([*found.added, *found.changed])}",
                         hint=f"delete {checkout.path} and load again, or run `toolhost "
                         "update`")
    if found.escapes:
        path, target = found.escapes[0]
        raise _error(where, f"{checkout.url} at {checkout.rev}: the symlink {path!r} leads "
                     f"out of the repository (it resolves to {target})", hint="what lies outside a "
                     "repository is neither pinned nor reviewed: commit the file itself, not "
                     "a link to it")
    return checkout


def _error(where: Origin, message: str, hint: str = "") -> ConfigError:
    from toolhost.errors import ConfigError, Problem

    return ConfigError([Problem(message, file=where.file, line=where.line,
                                column=where.column, key_path=where.key_path, hint=hint)])


def _describe(checkout: Checkout, found: list[str]) -> str:
    from toolhost.config.gitobjects import local_git
    from toolhost.excerpt import cut_lines

    diff = None
    if not any(item.startswith((".git", "HEAD ", "commit ")) for item in found):
        # only a .git toolhost wrote is asked for a diff: its config defines no filter,
        # external diff or textconv command, and its replace refs and attributes are none
        diff = local_git(checkout.path, ["diff", "--no-color", "--no-ext-diff", "--no-textconv",
                                         checkout.sha, "--"])
    return cut_lines("\n".join([_summary(found), diff or ""]).strip())


def _summary(found: list[str]) -> str:
    more = f" and {len(found) - _SHOWN} more" if len(found) > _SHOWN else ""
    return ", ".join(repr(f) for f in found[:_SHOWN]) + more


def _remove(path: Path) -> None:
    from toolhost.config.removetree import remove_tree  # only when there is something to delete

    if path.is_dir() and not path.is_symlink():
        remove_tree(path)
    else:
        with contextlib.suppress(OSError):
            path.unlink()
