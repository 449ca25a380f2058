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
import shutil
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from toolhost.config.gitcreds import (
    credentials_env,
    forget_legacy,
    remember_credentials,
    without_credentials,
)
from toolhost.config.model import UNKNOWN, Origin
from toolhost.config.repotree import META as _META
from toolhost.config.repotree import cache_root, clean_or_refetch
from toolhost.config.url_secrets import shown_url
from toolhost.config.urlcheck import url_problem
from toolhost.errors import ConfigError, Problem
from toolhost.excerpt import cut

__all__ = [
    "Checkout",
    "cache_root",
    "checkout_dir",
    "checkout_of",
    "fetch_repo",
    "list_tags",
    "normalize_repo",
    "refetch_repo",
    "remember_credentials",
    "repo_file",
    "resolve_git_entry",
    "run_git",
]

log = logging.getLogger("toolhost.config")

_SHA = re.compile(r"^[0-9a-f]{7,40}$")
_FULL_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")  # sha1, or sha256 repositories
GIT_TIMEOUT = 120.0


@dataclass(frozen=True)
class Checkout:
    """A repository at one revision, in the cache."""

    url: str  # without its userinfo: what messages, the lock and the cache show
    rev: str
    path: Path  # the work tree
    sha: str  # the commit rev resolved to when it was cloned
    ref: Literal["tag", "branch", "commit"]
    remote: str = field(default="", repr=False, compare=False)  # as written, password and all


def repo_file(url: str, rev: str, path: str, *, where: Origin = UNKNOWN,
              cache: Path | None = None) -> Path:
    """The local path of ``path`` inside ``url`` at ``rev``, cloning on first use.

    Raises ``ConfigError`` naming ``where`` when git fails, ``rev`` does not exist, or
    ``path`` is missing or points outside the repository. Warns (log) when ``rev`` is a branch.
    A checkout whose work tree is not exactly its commit (edited in the cache) is cloned
    again first, or refused (``toolhost.config.repotree``).
    """
    checkout = fetch_repo(url, rev, where=where, cache=cache)
    checkout = clean_or_refetch(checkout, where, cache=cache)
    if checkout.ref == "branch":
        log.warning("%s: rev %r of %s is a branch, which moves; pin a tag or a commit "
                    "(cached at %s; `toolhost update` pins the newest tag)",
                    _where(where), rev, checkout.url, checkout.sha[:12])
    rel = Path(path)
    try:
        target = (checkout.path / rel).resolve()
        if rel.is_absolute() or not target.is_relative_to(checkout.path.resolve()):
            raise _error(where, f"path {cut(path, 100)!r} must be relative and inside the "
                         "repository")
        found = target.is_file()
    except (OSError, RuntimeError) as exc:  # a symlink loop (RuntimeError before 3.13), a
        # name too long for the file system: the repository is as hostile as any config
        raise _error(where, f"{checkout.url} at {rev}: cannot read {cut(path, 100)!r}: "
                     f"{_reason(exc)}") from None
    if not found:
        raise _error(where, f"{checkout.url} at {rev} has no file {cut(path, 100)!r}",
                     hint=f"files are read from the repository root; cached in {checkout.path}")
    return target


def resolve_git_entry(entry: Any, *, base_dir: Path, origin: Origin) -> Path:
    """``extends`` resolver for ``{repo: URL, rev: TAG_OR_SHA, path: FILE}``.

    ``repo`` is any URL git understands; a local path (no scheme) is taken relative to the
    file that names it. ``path`` defaults to ``toolhost.yaml`` at the repository root.
    """
    if not isinstance(entry, Mapping):
        raise _error(origin, "a git extends entry is a mapping {repo, rev, path}")
    unknown = sorted(set(entry) - {"repo", "rev", "path"})
    if unknown:
        raise _error(origin, f"unknown key(s) {', '.join(map(repr, unknown))} in a git "
                     "extends entry", hint="known: repo, rev, path")
    repo, rev, path = entry.get("repo"), entry.get("rev"), entry.get("path", "toolhost.yaml")
    if not isinstance(repo, str) or not isinstance(rev, str) or not isinstance(path, str):
        raise _error(origin, "`repo`, `rev` and `path` must be strings",
                     hint="e.g. {repo: https://git.example/team/config, rev: v1.2.0, "
                     "path: base.yaml}")
    if not rev:
        raise _error(origin, "`rev` is required: pin a tag or a commit")
    remember_credentials(repo)
    return repo_file(normalize_repo(repo, base_dir), rev, path, where=origin)


def normalize_repo(repo: str, base_dir: Path) -> str:
    """A URL for git: ``repo`` itself, or a local path made absolute (``file://``)."""
    if "://" in repo or re.match(r"^[\w.-]+@[\w.-]+:", repo):
        return repo
    return (base_dir / Path(repo).expanduser()).resolve().as_uri()


def fetch_repo(url: str, rev: str, *, where: Origin = UNKNOWN,
               cache: Path | None = None) -> Checkout:
    """Clone ``url`` at ``rev`` into the cache unless it is there already; return it."""
    if not url or not rev or rev.startswith("-") or url.startswith("-"):
        raise _error(where, "`repo` and `rev` must be non-empty and not start with '-'")
    # git (curl, ssh) must reach the host the URL shows, and no other (a local path is a
    # file:// URL with no host)
    wrong = None if url[:7].lower() == "file://" else url_problem(url)
    if wrong:
        raise _error(where, f"`repo`: {wrong}")
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
                return _clone(url, rev, dest, where)
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
    hint = (f"{shown_url(url)} at {rev} is not in the cache ({cache}) yet: it is fetched "
            "once, then every load reads it offline; check the URL, the network and git's "
            "credentials")
    return ConfigError([dataclasses.replace(first, hint=hint), *exc.problems[1:]])


def checkout_of(url: str, rev: str, *, cache: Path | None = None) -> Checkout:
    """The cached checkout of ``url`` at ``rev`` (cloning it if it is not cached)."""
    return fetch_repo(url, rev, cache=cache)


def refetch_repo(url: str, rev: str, *, where: Origin = UNKNOWN,
                 cache: Path | None = None) -> Checkout:
    """Clone ``url`` at ``rev`` again and put the fresh copy in place of the cached one.

    The old checkout is thrown away only once the fresh copy is complete: when the clone
    fails (offline, the server gone), the ``ConfigError`` leaves the cache as it was."""
    dest = checkout_dir(url, rev, cache=cache)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        with _locked(dest.with_name(dest.name + ".lock")):
            return _clone(url, rev, dest, where)
    except OSError as exc:
        raise _error(where, f"cannot use the cache directory {dest.parent}: {_reason(exc)}",
                     hint="set TOOLHOST_CACHE to a writable directory") from None


def checkout_dir(url: str, rev: str, *, cache: Path | None = None) -> Path:
    """Where ``url`` at ``rev`` is (or will be) cached; its lock file is ``<dir>.lock``. The
    place is named after the URL without its userinfo (a hash of a password would be one
    more copy of it, and a guessable one)."""
    key = hashlib.sha256(f"{shown_url(url)}\0{rev}".encode()).hexdigest()[:24]
    return (cache or cache_root()) / "repos" / key


def list_tags(url: str, *, where: Origin = UNKNOWN) -> list[str]:
    """Every tag of the remote repository ``url`` (network, no cache)."""
    wrong = None if url[:7].lower() == "file://" else url_problem(url)
    if wrong:
        raise _error(where, f"`repo`: {wrong}")
    out = run_git(["ls-remote", "--tags", "--refs", shown_url(url)], where=where, remote=url)
    return [line.split("refs/tags/", 1)[1] for line in out.splitlines() if "refs/tags/" in line]


def run_git(args: Sequence[str], *, cwd: Path | None = None, where: Origin = UNKNOWN,
            remote: str = "") -> str:
    """Run ``git args`` (no shell, no prompts); stdout, or ConfigError with git's message.

    ``remote`` is the repository URL as written, when ``args`` name it without its userinfo
    (or as ``origin``): git is told the credentials in its environment (a ``url.insteadOf``
    rule), never on its command line or in a file, and they are cut out of its messages."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "LC_ALL": "C",
           **credentials_env(remote)}
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=GIT_TIMEOUT, check=False)
    except FileNotFoundError:
        raise _error(where, "git is not installed", hint="install git to use `repo:` in "
                     "extends") from None
    except subprocess.TimeoutExpired:
        raise _error(where, f"git {args[0]} took longer than {GIT_TIMEOUT:g}s") from None
    if proc.returncode != 0:
        said = git_message(without_credentials(proc.stderr, remote))
        raise _error(where, f"git {args[0]} failed: {said}")
    return proc.stdout


def git_message(stderr: str) -> str:
    """git's whole error message on one line (its lines joined with " / "), cut sensibly.

    git often ends with an advice line ("and the repository exists."): the cause is earlier.
    """
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return cut(" / ".join(lines), 600) if lines else "(no output)"


def _clone(url: str, rev: str, dest: Path, where: Origin) -> Checkout:
    plain = shown_url(url)  # what .git/config, the metadata and messages hold
    _say_cloning(plain, rev)
    tmp = dest.with_name(f"{dest.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:  # no template: hooks and info files of the user's git templates have no place here
        run_git(["init", "-q", "--template="], cwd=tmp, where=where)
        run_git(["remote", "add", "origin", plain], cwd=tmp, where=where)
        ref = _ref_kind(url, rev, where)
        try:  # a shallow fetch of just that revision, as pre-commit does
            run_git(["fetch", "-q", "--depth=1", "origin", rev], cwd=tmp, where=where,
                    remote=url)
        except ConfigError:  # some servers refuse to send a commit by id: fetch everything
            run_git(["fetch", "-q", "--tags", "origin"], cwd=tmp, where=where, remote=url)
            run_git(["fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*"],
                    cwd=tmp, where=where, remote=url)
            try:
                run_git(["rev-parse", "-q", "--verify", f"{rev}^{{commit}}"], cwd=tmp,
                        where=where)
            except ConfigError:
                raise _error(where, f"{plain} has no tag, branch or commit {rev!r}",
                             hint="check `rev`; `git ls-remote URL` lists tags") from None
            run_git(["update-ref", "FETCH_HEAD", f"{rev}^{{commit}}"], cwd=tmp, where=where)
        _check_out(tmp, where)
        if os.path.lexists(tmp / _META):  # toolhost's record would overwrite the file, and
            # the work tree would never be the commit (refused, fetched again on every load)
            raise _error(where, f"{plain} at {rev} commits a file named {_META}, the name "
                         "toolhost keeps for its own record of a cached checkout",
                         hint=f"rename or remove {_META} in the repository")
        sha = run_git(["rev-parse", "HEAD"], cwd=tmp, where=where).strip()
        meta = {"url": plain, "rev": rev, "sha": sha, "ref": ref}
        tmp.joinpath(_META).write_text(json.dumps(meta))
        _put_in_place(tmp, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    log.info("cloned %s at %s (%s) into %s", plain, rev, sha[:12], dest)
    return Checkout(url=plain, rev=rev, path=dest, sha=sha, ref=ref, remote=url)


# while the commit is checked out: every file is written as its blob's bytes. A repository's
# own .gitattributes (`* text eol=crlf`, `ident`, a `filter=lfs`, a working-tree-encoding)
# would have git write other bytes, which are not the commit: the check of the work tree
# (toolhost.config.worktree) would call every such checkout modified on disk, and refuse it.
# $GIT_DIR/info/attributes outranks every .gitattributes; it is removed once checked out.
_AS_STORED = "* -text -filter -ident -working-tree-encoding\n"


def _check_out(tmp: Path, where: Origin) -> None:
    """Check out FETCH_HEAD into ``tmp`` exactly as stored: no attribute of the repository,
    no filter, eol or autocrlf setting of the user's or the system's git config, no hook."""
    from toolhost.config.gitobjects import LOCAL_GIT_ARGS, local_git_env

    info = tmp / ".git" / "info"
    info.mkdir(exist_ok=True)
    info.joinpath("attributes").write_text(_AS_STORED)
    try:
        proc = subprocess.run(
            ["git", *LOCAL_GIT_ARGS, "-c", "advice.detachedHead=false", f"--work-tree={tmp}",
             "checkout", "-q", "FETCH_HEAD"], cwd=tmp, env=local_git_env(tmp / ".git"),
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=GIT_TIMEOUT,
            check=False)
    except subprocess.TimeoutExpired:
        raise _error(where, f"git checkout took longer than {GIT_TIMEOUT:g}s") from None
    finally:
        info.joinpath("attributes").unlink()
    if proc.returncode != 0:
        raise _error(where, f"git checkout failed: {git_message(proc.stderr)}")


def _say_cloning(plain: str, rev: str) -> None:
    """A line on a terminal before a clone, which can take a while: a person waiting sees
    what for (git's own progress is quiet, ``-q``). Nothing when stderr is a pipe or a file:
    a script's or a client's stderr gets only the problems."""
    import sys

    from toolhost.errors import shown

    stream = sys.stderr
    try:
        if stream is None or not stream.isatty():
            return
        stream.write(f"toolhost: fetching {shown(plain)} at {shown(rev)} into the cache (once "
                     "per pin; later loads read it offline)...\n")
        stream.flush()
    except (OSError, ValueError):  # a closed or broken stderr: the clone goes on
        return


def _put_in_place(fresh: Path, dest: Path) -> None:
    """``fresh`` renamed to ``dest``; what was there (an incomplete or modified checkout) is
    moved aside first and deleted after."""
    old = dest.with_name(f"{dest.name}.old{os.getpid()}")
    shutil.rmtree(old, ignore_errors=True)
    if os.path.lexists(dest):
        dest.rename(old)
    fresh.rename(dest)
    shutil.rmtree(old, ignore_errors=True)


def _ref_kind(url: str, rev: str, where: Origin) -> Literal["tag", "branch", "commit"]:
    out = run_git(["ls-remote", shown_url(url), f"refs/tags/{rev}", f"refs/heads/{rev}"],
                  where=where, remote=url)
    refs = {line.split("\t", 1)[1] for line in out.splitlines() if "\t" in line}
    if f"refs/tags/{rev}" in refs:
        return "tag"
    if f"refs/heads/{rev}" in refs:
        return "branch"
    if _SHA.match(rev):
        return "commit"
    raise _error(where, f"{shown_url(url)} has no tag or branch {rev!r}",
                 hint="pin a tag or a full commit id")


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


def _reason(exc: BaseException) -> str:
    if isinstance(exc, RuntimeError):  # Path.resolve's symlink loop before Python 3.13
        return "Too many levels of symbolic links"
    return (exc.strerror if isinstance(exc, OSError) and exc.strerror
            else cut(str(exc), 200) or type(exc).__name__)


def _where(where: Origin) -> str:
    return str(where) + (f": {where.key_path}" if where.key_path else "")


def _error(where: Origin, message: str, hint: str = "") -> ConfigError:
    return ConfigError([Problem(message, file=where.file, line=where.line,
                                column=where.column, key_path=where.key_path, hint=hint)])
