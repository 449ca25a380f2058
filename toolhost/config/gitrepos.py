"""Team-shared config repos: ``extends: [{repo: URL, rev: TAG_OR_SHA, path: FILE}]``.

Like pre-commit's hook repos, a repository is cloned once per (URL, rev) into a cache
directory (``$TOOLHOST_CACHE/repos`` or ``~/.cache/toolhost/repos``) and read from there
afterwards, so a load works offline once cached. A file lock per (URL, rev) keeps two
processes from cloning into the same place at once. Pin ``rev`` to a tag or a commit: a
branch moves, and the cache would keep whatever it pointed at on the first clone, so a
branch is warned about. git runs as a subprocess with an argument list, never a shell.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from toolhost.config.gitclone import clone, run_git
from toolhost.config.gitclone import error as _error
from toolhost.config.gitcreds import forget_legacy, remember_credentials
from toolhost.config.model import UNKNOWN, Origin
from toolhost.config.repotree import META as _META
from toolhost.config.repotree import Checkout, cache_root, clean_or_refetch
from toolhost.config.url_secrets import shown_url
from toolhost.config.urlcheck import url_problem
from toolhost.errors import ConfigError
from toolhost.excerpt import cut

__all__ = [
    "Checkout",
    "cache_root",
    "checkout_dir",
    "checkout_of",
    "fetch_repo",
    "list_tags",
    "normalize_repo",
    "record_id",
    "refetch_repo",
    "remember_credentials",
    "repo_file",
    "resolve_git_entry",
    "run_git",
]

log = logging.getLogger("toolhost.config")

_FULL_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")  # sha1, or sha256 repositories


# the pins warned about in this process (a branch, a short id), by where, rev, URL and commit
_warned: set[tuple[str, str, str, str]] = set()


def repo_file(url: str, rev: str, path: str, *, where: Origin = UNKNOWN,
              cache: Path | None = None) -> Path:
    """The local path of ``path`` inside ``url`` at ``rev``, cloning on first use.

    Raises ``ConfigError`` naming ``where`` when git fails, ``rev`` does not exist, or
    ``path`` is missing or points outside the repository. Warns (log) when ``rev`` is a branch.
    A checkout whose work tree is not exactly its commit (edited in the cache) is cloned
    again first, or refused (``toolhost.config.repotree``).
    """
    checkout = fetch_repo(url, rev, where=where, cache=cache)
    seen = record_id(checkout.path)  # another process cloning it again meanwhile: used
    checkout = clean_or_refetch(checkout, where, refetch=lambda: refetch_repo(
        checkout.remote or checkout.url, checkout.rev, where=where, cache=cache, seen=seen))
    said = (_where(where), rev, checkout.url, checkout.sha)
    if checkout.ref in ("branch", "commit") and said in _warned:
        pass  # one command loads a config more than once (`lock --check`): said once
    elif checkout.ref == "branch":
        _warned.add(said)
        log.warning("%s: rev %r of %s is a branch, which moves; pin a tag or a commit "
                    "(cached at %s; `toolhost update` pins the newest tag)",
                    _where(where), rev, checkout.url, checkout.sha[:12])
    elif checkout.ref == "commit" and len(rev) < len(checkout.sha):
        _warned.add(said)
        log.warning("%s: rev %r of %s is a short commit id: pin the full id %s (a commit "
                    "pushed later with the same prefix makes it ambiguous, and a fresh clone "
                    "then fails; a short id is also fetched with every tag and branch)",
                    _where(where), rev, checkout.url, checkout.sha)
    rel = Path(path)
    try:
        target = (checkout.path / rel).resolve()
        inside = checkout.path.resolve()
        cache_own = target != inside and target.is_relative_to(inside) and target.relative_to(
            inside).parts[0].casefold() in (".git", _META)  # .GIT on macOS, Windows
        if rel.is_absolute() or not target.is_relative_to(inside) or cache_own:
            raise _error(where, f"path {cut(path, 100)!r} must be relative and inside the "
                         "repository", hint="a file of the commit: the checkout's .git and "
                         f"{_META} are the cache's")
        folder = False
        try:  # stat: Python 3.13's resolve() leaves a symlink loop as it is, and is_file()
            mode = os.stat(target).st_mode  # would call it missing
            found, folder = stat.S_ISREG(mode), stat.S_ISDIR(mode)
        except (FileNotFoundError, NotADirectoryError):
            found = False
    except (OSError, RuntimeError) as exc:  # a symlink loop (RuntimeError from resolve()
        # before 3.13, ELOOP from stat), a name too long for the file system: the
        # repository is as hostile as any config
        raise _error(where, f"{checkout.url} at {rev}: cannot read {cut(path, 100)!r}: "
                     f"{_reason(exc)}") from None
    if not found and folder:  # a folder named where a file is meant
        there = _in_folder(target, rel)
        raise _error(where, f"{checkout.url} at {rev}: {cut(path, 100)!r} is a directory, "
                     "not a file", hint=f"name one of its files as the path: {there}"
                     if there else "name a .yaml, .yml or .toml file of the repository")
    if not found:
        inner = _in_submodule(checkout, rel)
        if inner:
            raise _error(where, f"{checkout.url} at {rev} has no file {cut(path, 100)!r}: "
                         f"{inner[0]}", hint=inner[1])
        near = _near_files(checkout.path, rel.as_posix())
        raise _error(where, f"{checkout.url} at {rev} has no file {cut(path, 100)!r}"
                     + (f" (did you mean {near}?)" if near else ""),
                     hint=_local_only(checkout.url, rev, path)
                     or f"files are read from the repository root; cached in {checkout.path}")
    return target


MAX_WALKED = 5000  # entries of a checkout looked at for a did-you-mean: a hint, not a scan


def _near_files(root: Path, wanted: str) -> str:
    """The config files of the checkout nearest ``wanted`` (a typo, the same name in another
    folder), quoted, or ""."""
    from toolhost.config.model import SUFFIXES
    from toolhost.typos import close_matches

    found: list[str] = []
    seen = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d.casefold() not in (".git", _META))
        seen += len(dirs) + len(files)
        base = Path(folder).relative_to(root)
        found += [(base / name).as_posix() for name in sorted(files)
                  if Path(name).suffix.lower() in SUFFIXES]
        if seen > MAX_WALKED:
            break
    name = wanted.rpartition("/")[2]
    close = [f for f in found if f.rpartition("/")[2] == name]  # another folder's
    picked = close[:2] or close_matches(wanted, found, n=2, cutoff=0.6)
    return " or ".join(repr(cut(f, 100)) for f in picked)


def _in_folder(folder: Path, rel: Path) -> str:
    """A few config files of ``folder`` (``rel`` in the repository), as paths to write."""
    from toolhost.config.model import SUFFIXES

    names = sorted(n for n in os.listdir(folder) if Path(n).suffix.lower() in SUFFIXES)[:3]
    return " or ".join(repr(cut((rel / n).as_posix(), 100)) for n in names)


def _in_submodule(checkout: Checkout, rel: Path) -> tuple[str, str] | None:
    """Why a file under a git submodule of the commit is missing, and the fix (the clone
    has the submodule as an empty directory: its files are another repository's)."""
    from toolhost.config.gitobjects import pinned_tree
    from toolhost.visible import visible

    parents = [p.as_posix() for p in reversed(rel.parents) if p.as_posix() != "."]
    if not parents:
        return None
    try:
        tree = pinned_tree(checkout.path, checkout.sha)
    except OSError:
        return None
    for name in parents:
        entry = (tree or {}).get(name)
        if entry is not None and entry.mode == "160000":
            url = _submodule_url(checkout.path, name, checkout.url)
            inside = rel.relative_to(name).as_posix()
            return (f"{visible(cut(name, 100))!r} is a git submodule (commit "
                    f"{entry.oid[:12]} of another repository), whose files toolhost does not "
                    "fetch", "pin that repository itself: {repo: "
                    f"{visible(cut(url or 'ITS_URL', 200))}, rev: ITS_TAG, path: "
                    f"{visible(cut(inside, 100))}}}")
    return None


def _submodule_url(root: Path, name: str, base: str) -> str:
    """The URL ``.gitmodules`` of the checkout gives the submodule at ``name`` ("" if none),
    a relative one joined to ``base`` (the superproject's URL), as git does."""
    from toolhost.config.gitobjects import local_git

    listed = local_git(root, ["config", "-f", ".gitmodules", "--get-regexp",
                              r"^submodule\..*\.path$"]) or ""
    for line in listed.splitlines():
        key, _, value = line.partition(" ")
        if value == name:
            section = key[:-len(".path")]
            url = (local_git(root, ["config", "-f", ".gitmodules", "--get", section + ".url"])
                   or "").strip()
            if url.startswith(("./", "../")) and "://" in base:  # relative to the superproject
                from urllib.parse import urljoin

                url = urljoin(base.rstrip("/") + "/", url)
            return shown_url(url)
    return ""


def _local_only(url: str, rev: str, path: str) -> str:
    """The hint for a file missing at ``rev`` that a repository on this disk has in its work
    tree (written, not yet committed and tagged): "" otherwise."""
    if not url.startswith("file://"):
        return ""
    from urllib.parse import unquote, urlsplit

    local = Path(unquote(urlsplit(url).path))
    try:
        there = (local / path).is_file() and (local / ".git").exists()
    except (OSError, ValueError):
        return ""
    if not there:
        return ""
    return (f"{local / path} is in the working tree of {local}, but not in the commit {rev} "
            f"names: commit it, tag it and pin that tag (`toolhost update`)")


def resolve_git_entry(entry: Any, *, base_dir: Path, origin: Origin) -> Path:
    """``extends`` resolver for ``{repo: URL, rev: TAG_OR_SHA, path: FILE}``.

    ``repo`` is any URL git understands; a local path (no scheme) is taken relative to the
    file that names it. ``path`` defaults to ``toolhost.yaml`` at the repository root.
    """
    wrong = entry_problem(entry)
    if wrong is not None:
        raise _error(origin, wrong[1], hint=wrong[2])
    repo, rev, path = entry["repo"], entry["rev"], entry.get("path", "toolhost.yaml")
    assert isinstance(repo, str) and isinstance(rev, str) and isinstance(path, str)
    if not rev:
        raise _error(origin, "`rev` is required: pin a tag or a commit")
    remember_credentials(repo)
    return repo_file(normalize_repo(repo, base_dir, origin), rev, path, where=origin)


_EXAMPLE = "e.g. {repo: https://git.example/team/config, rev: v1.2.0, path: base.yaml}"


def entry_problem(entry: Any) -> tuple[str, str, str] | None:
    """What is wrong with the keys of a git ``extends`` entry, found before any git runs:
    (the key it is about, "" for the entry; the message; a hint), or None."""
    if not isinstance(entry, Mapping):
        return "", "a git extends entry is a mapping {repo, rev, path}", _EXAMPLE
    unknown = sorted(set(entry) - {"repo", "rev", "path"}, key=str)
    if unknown:
        named = ", ".join(cut(repr(k), 60) for k in unknown[:5])
        return str(unknown[0]), f"unknown key(s) {named} in a git extends entry", \
            "known: repo, rev, path"
    for key in ("repo", "rev", "path"):
        if key not in entry:
            if key == "path":
                continue
            return "", f"`{key}` is required" + (
                ": pin a tag or a commit" if key == "rev" else ": the repository's URL"), _EXAMPLE
        value = entry[key]
        if not isinstance(value, str):
            # rev: 1.10 is read as the number 1.1 (YAML): what was written is lost
            return key, f"`{key}` must be a string, not {_kind(value)}", (
                f"quote it as written: {key}: \"...\"" if isinstance(value, (int, float))
                else _EXAMPLE)
        if not value.strip():  # an empty repo is the config's own directory to git
            return key, f"`{key}` is empty" + (
                ": pin a tag or a commit" if key == "rev" else ""), _EXAMPLE
        if "\0" in value:
            return key, f"`{key}` holds a NUL character", ""
        if key in ("repo", "rev") and value.startswith("-"):  # git would read an option
            return key, f"`{key}` must not start with '-'", ""
    return None


def _kind(value: object) -> str:
    from toolhost.excerpt import cut

    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, (int, float)):
        return f"the number {cut(repr(value), 40)}"
    return "a list" if isinstance(value, list) else "a mapping" if isinstance(
        value, Mapping) else type(value).__name__


def normalize_repo(repo: str, base_dir: Path, where: Origin = UNKNOWN) -> str:
    """A URL for git: ``repo`` itself, or a local path made absolute (``file://``).

    A relative path written in a file of a cached checkout (``repo: ../other-config`` in a
    team repository's fragment) is relative to that repository's URL, as git resolves a
    submodule's relative URL: the checkout's directory in the cache means nothing."""
    if "://" in repo or re.match(r"^[\w.-]+@[\w.-]+:", repo):
        return repo
    if not repo.startswith(("/", "~")):
        from toolhost.config.repolinks import checkout_url, relative_to_url

        parent = checkout_url(base_dir)
        if parent is not None:
            return relative_to_url(parent, repo, where)
    return (base_dir / Path(repo).expanduser()).resolve().as_uri()


def fetch_repo(url: str, rev: str, *, where: Origin = UNKNOWN,
               cache: Path | None = None) -> Checkout:
    """Clone ``url`` at ``rev`` into the cache unless it is there already; return it."""
    if not url or not rev or rev.startswith("-") or url.startswith("-"):
        raise _error(where, "`repo` and `rev` must be non-empty and not start with '-'")
    _check_url(url, where)
    dest = checkout_dir(url, rev, cache=cache)
    forget_legacy(url, rev, dest.parent)
    cached = _read_meta(dest, url, rev)
    if cached is not None:
        return cached
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        with _locked(dest.with_name(dest.name + ".lock")):
            cached = _read_meta(dest, url, rev)  # another process may have cloned meanwhile
            if cached is not None:
                return cached
            try:
                return clone(url, rev, dest, where)
            except ConfigError as exc:
                raise _first_fetch(exc, url, rev, dest.parent) from None
    except OSError as exc:  # TOOLHOST_CACHE a file, unwritable, under /proc, ...
        raise _error(where, f"cannot use the cache directory {dest.parent}: {_reason(exc)}",
                     hint="set TOOLHOST_CACHE to a writable directory") from None


def _first_fetch(exc: ConfigError, url: str, rev: str, cache: Path) -> ConfigError:
    """``exc`` with a hint saying this pin was never cached (so it needs the repository
    once; pins already cached load offline), when git's failure has no hint of its own."""
    import dataclasses

    first = exc.problems[0]
    if first.hint:
        return exc
    if "No space left on device" in first.message:  # not the URL, network or credentials
        hint = (f"the file system of the cache ({cache}) is full: free space there, or set "
                "TOOLHOST_CACHE to a directory with room")
    else:
        hint = (f"{shown_url(url)} at {rev} is not in the cache ({cache}) yet: it is fetched "
                "once, then every load reads it offline; check the URL, the network and "
                "git's credentials")
    return ConfigError([dataclasses.replace(first, hint=hint), *exc.problems[1:]])


def checkout_of(url: str, rev: str, *, cache: Path | None = None) -> Checkout:
    """The cached checkout of ``url`` at ``rev`` (cloning it if it is not cached)."""
    return fetch_repo(url, rev, cache=cache)


def refetch_repo(url: str, rev: str, *, where: Origin = UNKNOWN,
                 cache: Path | None = None, seen: tuple[int, int] | None = None) -> Checkout:
    """Clone ``url`` at ``rev`` again and put the fresh copy in place of the cached one.

    The old checkout is thrown away only once the fresh copy is complete: when the clone
    fails (offline, the server gone), the ``ConfigError`` leaves the cache as it was.
    ``seen``: the ``record_id`` of the checkout the caller found modified; when another
    process has put a fresh copy in place since (several loads found the same edit at once),
    that copy is returned instead of cloning once more (the caller checks it again)."""
    dest = checkout_dir(url, rev, cache=cache)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        with _locked(dest.with_name(dest.name + ".lock")):
            now = record_id(dest)
            if seen is not None and now is not None and now != seen:
                cached = _read_meta(dest, url, rev)
                if cached is not None:
                    return cached
            return clone(url, rev, dest, where)
    except OSError as exc:
        raise _error(where, f"cannot use the cache directory {dest.parent}: {_reason(exc)}",
                     hint="set TOOLHOST_CACHE to a writable directory") from None


def record_id(checkout: Path) -> tuple[int, int] | None:
    """Which copy of a cached checkout ``checkout`` holds now (its record's inode and
    mtime: each clone writes a new one), None when it has none."""
    try:
        found = os.stat(checkout / _META)
    except OSError:
        return None
    return found.st_ino, found.st_mtime_ns


def checkout_dir(url: str, rev: str, *, cache: Path | None = None) -> Path:
    """Where ``url`` at ``rev`` is (or will be) cached; its lock file is ``<dir>.lock``. The
    place is named after the URL without its userinfo (a hash of a password would be one
    more copy of it, and a guessable one)."""
    key = hashlib.sha256(f"{shown_url(url)}\0{rev}".encode()).hexdigest()[:24]
    return (cache or cache_root()) / "repos" / key


def list_tags(url: str, *, where: Origin = UNKNOWN) -> list[str]:
    """Every tag of the remote repository ``url`` (network, no cache)."""
    if not url or url.startswith("-"):  # git would read it as an option (--upload-pack)
        raise _error(where, "`repo` must be non-empty and not start with '-'")
    _check_url(url, where)
    out = run_git(["ls-remote", "--tags", "--refs", shown_url(url)], where=where, remote=url)
    return [line.split("refs/tags/", 1)[1] for line in out.splitlines() if "refs/tags/" in line]


# the transports git fetches a repository over without running a program of the URL's
# choosing: `ext::CMD` and `ext://` run a command, `fd::` reads a descriptor, and any other
# scheme starts a remote helper `git-remote-SCHEME` found on PATH
_SCHEMES = frozenset({"https", "http", "ssh", "git", "file", "git+ssh", "ssh+git"})
_SCP = re.compile(r"^[\w.-]+@[\w.-]+:")  # user@host:path, git's ssh shorthand


def _check_url(url: str, where: Origin) -> None:
    """A ``ConfigError`` unless git would fetch ``url`` over a plain transport from the host
    it shows (a local path is a file:// URL with no host)."""
    scheme, sep, _ = url.partition("://")
    if not (scheme.lower() in _SCHEMES if sep else _SCP.match(url) and "::" not in url):
        raise _error(where, f"`repo`: {cut(shown_url(url), 100)!r} is not a git URL of a "
                     "transport toolhost fetches over (some run a program the URL names)",
                     hint="use https://, ssh://, git://, file://, user@host:path or a "
                     "local path")
    wrong = None if scheme.lower() == "file" else url_problem(url)
    if wrong:  # git (curl, ssh) must reach the host the URL shows, and no other
        raise _error(where, f"`repo`: {wrong}")


def _read_meta(dest: Path, url: str, rev: str) -> Checkout | None:
    """The checkout cached in ``dest``; None (clone it again) when its metadata is missing,
    unreadable or not exactly what toolhost writes for ``url`` at ``rev`` (the URL without
    its userinfo)."""
    try:
        meta = json.loads(dest.joinpath(_META).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(meta, dict):
        return None
    sha, ref = meta.get("sha"), meta.get("ref")
    if (meta.get("url") != shown_url(url) or meta.get("rev") != rev or not isinstance(sha, str)
            or not _FULL_SHA.match(sha) or ref not in ("tag", "branch", "commit")):
        log.info("%s: unexpected checkout metadata; cloning again", dest)
        return None
    return Checkout(url=shown_url(url), rev=rev, path=dest, sha=sha, ref=ref, remote=url)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file is closed
        yield


@contextlib.contextmanager
def checkout_locked(root: Path) -> Iterator[None]:
    """The cached checkout at ``root`` for this process alone (the lock its clone takes):
    a git command writing into it (the lock's review fetching a locked commit) while another
    toolhost clones, checks or fetches it failed on git's own ``shallow.lock``. A lock file
    that cannot be made (a read-only cache) leaves the command unguarded, as before."""
    try:
        handle = root.with_name(root.name + ".lock").open("a")
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _reason(exc: BaseException) -> str:
    if isinstance(exc, RuntimeError):  # Path.resolve's symlink loop before Python 3.13
        return "Too many levels of symbolic links"
    return (exc.strerror if isinstance(exc, OSError) and exc.strerror
            else cut(str(exc), 200) or type(exc).__name__)


def _where(where: Origin) -> str:
    return str(where) + (f": {where.key_path}" if where.key_path else "")


