"""Fetching one revision of a team repository into a fresh directory: the clone, the checkout
exactly as stored, and git run safely (no shell, no prompts, credentials kept out of argv and
messages). ``toolhost.config.gitrepos`` decides when; this module does it."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from toolhost.config.gitcreds import credentials_env, without_credentials
from toolhost.config.model import UNKNOWN, Origin
from toolhost.config.removetree import remove_tree
from toolhost.config.repotree import META as _META
from toolhost.config.repotree import Checkout
from toolhost.config.url_secrets import shown_url
from toolhost.errors import ConfigError, Problem
from toolhost.excerpt import cut
from toolhost.visible import visible

log = logging.getLogger("toolhost.config")

_SHA = re.compile(r"^[0-9a-f]{7,40}$")
GIT_TIMEOUT = 120.0
# what git may fetch over, whatever a user's `protocol.allow` or `url.insteadOf` says: never
# `ext` (runs a command), `fd`, or a remote helper found on PATH
ALLOWED_PROTOCOLS = "https:http:ssh:git:file"


def run_git(args: Sequence[str], *, cwd: Path | None = None, where: Origin = UNKNOWN,
            remote: str = "", timeout: float = GIT_TIMEOUT) -> str:
    """Run ``git args`` (no shell, no prompts); stdout, or ConfigError with git's message.

    ``remote`` is the repository URL as written, when ``args`` name it without its userinfo
    (or as ``origin``): git is told the credentials in its environment (a ``url.insteadOf``
    rule), never on its command line or in a file, and they are cut out of its messages."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "LC_ALL": "C",
           "GIT_ALLOW_PROTOCOL": ALLOWED_PROTOCOLS, **credentials_env(remote)}
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=timeout, check=False)
    except FileNotFoundError:
        raise error(where, "git is not installed", hint="install git to use `repo:` in "
                     "extends") from None
    except subprocess.TimeoutExpired:
        raise error(where, f"git {args[0]} took longer than {timeout:g}s") from None
    if proc.returncode != 0:
        said = git_message(without_credentials(proc.stderr, remote))
        raise error(where, f"git {args[0]} failed: {said}")
    return proc.stdout


def git_message(stderr: str) -> str:
    """git's whole error message on one line (its lines joined with " / "), cut sensibly.

    git often ends with an advice line ("and the repository exists."): the cause is earlier.
    """
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return cut(" / ".join(lines), 600) if lines else "(no output)"


def clone(url: str, rev: str, dest: Path, where: Origin) -> Checkout:
    plain = shown_url(url)  # what .git/config, the metadata and messages hold
    _say_cloning(plain, rev)
    tmp = dest.with_name(f"{dest.name}.tmp{os.getpid()}")
    remove_tree(tmp)
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
                raise _no_commit(tmp, plain, rev, where) from None
            run_git(["update-ref", "FETCH_HEAD", f"{rev}^{{commit}}"], cwd=tmp, where=where)
        try:  # a tag of a tree or a blob: git's "cannot switch branch" says nothing useful
            run_git(["rev-parse", "-q", "--verify", "FETCH_HEAD^{commit}"], cwd=tmp,
                    where=where)
        except ConfigError:
            raise error(where, f"{plain}: rev {rev!r} names no commit (a tag of a tree or a "
                         "blob)", hint="pin a tag of a commit, or a commit id") from None
        _check_out(tmp, where)
        if os.path.lexists(tmp / _META):  # toolhost's record would overwrite the file, and
            # the work tree would never be the commit (refused, fetched again on every load)
            raise error(where, f"{plain} at {rev} commits a file named {_META}, the name "
                         "toolhost keeps for its own record of a cached checkout",
                         hint=f"rename or remove {_META} in the repository")
        sha = run_git(["rev-parse", "HEAD"], cwd=tmp, where=where).strip()
        meta = {"url": plain, "rev": rev, "sha": sha, "ref": ref}
        tmp.joinpath(_META).write_text(json.dumps(meta))
        _put_in_place(tmp, dest)
    finally:
        remove_tree(tmp)
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
        raise error(where, f"git checkout took longer than {GIT_TIMEOUT:g}s") from None
    finally:
        info.joinpath("attributes").unlink()
    if proc.returncode != 0:
        raise error(where, f"git checkout failed: {git_message(proc.stderr)}")


def _no_commit(tmp: Path, plain: str, rev: str, where: Origin) -> ConfigError:
    """Why ``rev`` names no commit of the fetched repository: a short id that is the prefix
    of several commits is said to be that (git's "unknown revision" would read as a typo)."""
    commits: list[str] = []
    if _SHA.match(rev) and len(rev) < 40:
        try:
            found = run_git(["rev-parse", f"--disambiguate={rev}"], cwd=tmp, where=where)
        except ConfigError:
            found = ""
        for sha in sorted(found.split())[:20]:  # one object a line; trees, blobs are no pin
            try:
                kind = run_git(["cat-file", "-t", sha], cwd=tmp, where=where).strip()
            except ConfigError:
                continue
            if kind == "commit":
                commits.append(sha)
    if len(commits) > 1:
        return error(where, f"{plain}: rev {rev!r} is the prefix of {len(commits)} commits "
                     f"({', '.join(c[:12] for c in commits[:3])}"
                     f"{', ...' if len(commits) > 3 else ''})",
                     hint="pin the full 40-character id of the commit you reviewed")
    return error(where, f"{plain} has no tag, branch or commit {rev!r}",
                 hint="check `rev`; `git ls-remote URL` lists tags")


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
    remove_tree(old)
    if os.path.lexists(dest):
        dest.rename(old)
    fresh.rename(dest)
    remove_tree(old)


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
    raise error(where, f"{shown_url(url)} has no tag or branch {rev!r}",
                 hint=_near_refs(url, rev, where) + "pin a tag or a full commit id")


def _near_refs(url: str, rev: str, where: Origin) -> str:
    """What the remote has that ``rev`` may have meant (``v1.2`` for ``1.2``), or a few of
    its tags; "" when it cannot be asked. The names are the remote's: shown escaped, cut."""
    from toolhost.typos import close_matches

    try:
        out = run_git(["ls-remote", "--tags", "--heads", "--refs", shown_url(url)],
                      where=where, remote=url)
    except ConfigError:
        return ""
    names = [line.split("\t", 1)[1].split("/", 2)[2] for line in out.splitlines()[:5000]
             if line.count("/") >= 2 and "\t" in line]
    if not names:
        return "it has no tag or branch at all; "
    close = close_matches(rev, names, n=3, cutoff=0.6)
    shown = [repr(cut(visible(n), 60)) for n in (close or names[-5:])]
    return (f"did you mean {' or '.join(shown)}? " if close
            else f"its tags and branches include {', '.join(shown)}; ")


def error(where: Origin, message: str, hint: str = "") -> ConfigError:
    return ConfigError([Problem(message, file=where.file, line=where.line,
                                column=where.column, key_path=where.key_path, hint=hint)])
