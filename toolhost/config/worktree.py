"""Is a cached checkout exactly its pinned commit? Checked without trusting its ``.git``.

``survey`` hashes every file of the work tree itself (a blob's id is the hash of
``"blob <size>\\0"`` and its bytes; a symlink's blob is its target; the executable bit gives
the mode) and compares with the commit's tree as ``toolhost.config.gitobjects`` read and
verified it. Nothing git would consult (index, stat cache, ``status``, attributes, filters,
ignore files) takes part, so an edit cannot be hidden from the check by editing ``.git`` too.

What it finds, in three kinds, since each calls for something else:

- ``added``: paths the commit does not have (a new module, a log a tool wrote, an ignored
  file). Removing them makes the tree the commit again, without the network.
- ``changed``: a tracked file modified, deleted, re-typed or re-moded, an object missing from
  the store, or a ``.git`` that holds what toolhost never writes there (replace refs, grafts,
  alternates, attributes, hooks, config keys beyond a clone's, a moved ``HEAD``): git commands
  toolhost runs later on the checkout would honour those, so the checkout is cloned again.
- ``escapes``: symlinks *of the commit* that resolve to outside the checkout (or into its
  ``.git``): what they point at is neither pinned nor reviewed, and cloning again cannot help.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from toolhost.config.gitobjects import LOCAL_GIT_ARGS, TreeEntry, local_git_env, pinned_tree

__all__ = ["Survey", "survey"]

_PYCACHE = "__pycache__"
_PARALLEL_FROM = 256  # files; fewer are hashed in the calling thread
_File = tuple[str, "os.DirEntry[str]", TreeEntry]
_CHUNK = 1 << 20
# what a clone writes into .git/config (git init, remote add, and what git adds by platform)
_CONFIG_KEYS = frozenset({
    "core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates",
    "core.symlinks", "core.ignorecase", "core.precomposeunicode", "remote.origin.fetch",
    "extensions.objectformat"})
_GIT_TOP = frozenset({"HEAD", "config", "description", "hooks", "index", "info", "logs",
                      "objects", "refs", "shallow", "FETCH_HEAD", "packed-refs", "branches",
                      "ORIG_HEAD"})


@dataclass
class Survey:
    """How a work tree differs from its commit (all empty: it is exactly the commit)."""

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    escapes: list[tuple[str, str]] = field(default_factory=list)  # (path, resolved)
    bytecode: list[str] = field(default_factory=list)  # __pycache__ paths, never trusted


def survey(root: Path, sha: str, url: str, *, meta: str) -> Survey:
    """Compare the work tree at ``root`` with commit ``sha`` (its store in ``root/.git``);
    ``meta`` is toolhost's own file beside the work tree's, ``url`` the one it was cloned
    from."""
    found = Survey()
    found.changed.extend(_git_dir_dirt(root, sha))
    config = _start_config(root)
    try:
        try:
            tree = pinned_tree(root, sha)
        except OSError as exc:  # no git at all
            found.changed.append(f"commit {sha[:12]} cannot be read: {exc.strerror or exc}")
            return found
        _compare(root, sha, tree, found, meta)
    finally:
        found.changed[:0] = _config_dirt(config, url)
    return found


def _compare(root: Path, sha: str, tree: dict[str, TreeEntry] | None, found: Survey,
             meta: str) -> None:
    if tree is None:
        found.changed.append(f"commit {sha[:12]} is missing or altered in .git")
        return
    algo = "sha1" if len(sha) == 40 else "sha256"
    seen: set[str] = set()
    files: list[_File] = []
    _walk(root, tree, files, seen, found, meta)
    found.changed.extend(_hash_all(files, algo))
    found.changed.extend(f"D {path}" for path, entry in sorted(tree.items())
                         if path not in seen and entry.mode != "160000")
    if not found.changed and not found.added:
        inside = os.path.realpath(root)
        git_dir = os.path.join(inside, ".git")
        for path, entry in sorted(tree.items()):
            if entry.mode == "120000":
                real = os.path.realpath(root / path)
                if (not (real == inside or real.startswith(inside + os.sep))
                        or real == git_dir or real.startswith(git_dir + os.sep)):
                    found.escapes.append((path, real))


def _walk(root: Path, tree: dict[str, TreeEntry], files: list[_File], seen: set[str],
          found: Survey, meta: str) -> None:
    """Sort the work tree's paths into ``found`` (added, re-typed, bytecode) and ``files``
    (to hash), descending into the commit's directories only. A loop with a stack, not
    recursion: a repository may nest directories thousands deep (RecursionError)."""
    stack = [_listing(root, "", found)]
    while stack:
        item = next(stack[-1], None)
        if item is None:
            stack.pop()
            continue
        prefix, entry_dir = item
        path = prefix + entry_dir.name
        if not prefix and entry_dir.name in (".git", meta):
            continue
        entry = tree.get(path)
        is_dir = entry_dir.is_dir(follow_symlinks=False)
        if entry is None:
            if _PYCACHE in path.split("/"):
                found.bytecode.append(path)
            else:
                found.added.append(path + ("/" if is_dir else ""))
            continue
        seen.add(path)
        if entry.mode == "40000" and is_dir:
            stack.append(_listing(root, path + "/", found))
        elif entry.mode == "160000" and is_dir:  # a submodule: never cloned, stays empty
            with os.scandir(entry_dir.path) as inside:
                if any(inside):
                    found.added.append(path + "/")
        elif entry.mode == "40000" or entry.mode == "160000" or is_dir:
            found.changed.append(f"T {path}")
        else:
            files.append((path, entry_dir, entry))


def _listing(root: Path, prefix: str, found: Survey
             ) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """The entries of directory ``prefix`` of the work tree, by name."""
    try:
        with os.scandir(root / prefix if prefix else root) as entries:  # closed on an error
            listing = sorted(entries, key=lambda e: e.name)
    except OSError as exc:
        found.changed.append(f"{prefix or '.'}: unreadable ({exc.strerror})")
        listing = []
    return iter([(prefix, item) for item in listing])


def _hash_all(files: list[_File], algo: str) -> list[str]:
    """``M path`` for each file whose mode or blob id is not the commit's. A big tree is
    hashed by a few threads (reading and hashing release the GIL)."""
    def check(part: list[_File], out: list[str]) -> None:
        out.extend(f"M {path}" for path, item, entry in part
                   if _blob(item, algo) != (entry.mode, entry.oid))

    if len(files) < _PARALLEL_FROM:
        changed: list[str] = []
        check(files, changed)
        return changed
    import threading

    count = min(4, os.cpu_count() or 1)
    outs: list[list[str]] = [[] for _ in range(count)]
    threads = [threading.Thread(target=check, args=(files[i::count], outs[i]), daemon=True)
               for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(path for out in outs for path in out)


def _blob(item: os.DirEntry[str], algo: str) -> tuple[str, str]:
    """(git mode, blob id) of the file or symlink ``item``, hashed here."""
    try:
        if item.is_symlink():
            return "120000", _hash(os.fsencode(os.readlink(item.path)), algo)
        fd = os.open(item.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return "", ""
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return "other", ""
        digest = hashlib.new(algo, b"blob %d\0" % st.st_size)
        size = 0
        want = min(st.st_size + 1, _CHUNK)  # a small file: one read sees it end
        while chunk := os.read(fd, want):
            size += len(chunk)
            digest.update(chunk)
            if len(chunk) < want:
                break
        if size != st.st_size:
            return "", ""
        return ("100755" if st.st_mode & stat.S_IXUSR else "100644"), digest.hexdigest()
    except OSError:
        return "", ""
    finally:
        os.close(fd)


def _hash(data: bytes, algo: str) -> str:
    digest = hashlib.new(algo, b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def _git_dir_dirt(root: Path, sha: str) -> list[str]:
    """What in ``root/.git`` a clone never writes, and git would honour."""
    git_dir = root / ".git"
    if git_dir.is_symlink() or not git_dir.is_dir():
        return [".git is not the clone's own directory"]
    found: list[str] = []
    try:
        head = git_dir.joinpath("HEAD").read_text(encoding="utf-8").strip()
        names = sorted(os.listdir(git_dir))
    except (OSError, ValueError) as exc:
        return [f".git unreadable ({type(exc).__name__})"]
    if head != sha:
        found.append(f"HEAD is {head[:40]!r}, not the commit {sha[:12]}")
    found.extend(f".git/{name} added" for name in names if name not in _GIT_TOP)
    for rel in ("info/attributes", "info/grafts", "objects/info/alternates",
                "objects/info/http-alternates", "commondir", "refs/replace"):
        if os.path.lexists(git_dir / rel):
            found.append(f".git/{rel} added")
    hooks = git_dir / "hooks"
    if hooks.is_dir():
        found.extend(f".git/hooks/{name} added" for name in sorted(os.listdir(hooks))
                     if not name.endswith(".sample"))
    try:
        packed = git_dir.joinpath("packed-refs").read_bytes()
    except OSError:
        packed = b""
    if b"refs/replace/" in packed:
        found.append(".git/packed-refs holds replace refs")
    return found


def _start_config(root: Path) -> subprocess.Popen[bytes] | None:
    """``git config --list`` of the checkout's own config file alone (no includes), started
    now and read by ``_config_dirt`` once the tree is compared (a start pays for it once)."""
    try:
        return subprocess.Popen(
            ["git", *LOCAL_GIT_ARGS, "config", "--file", str(root / ".git" / "config"),
             "--no-includes", "--list", "-z"], cwd=root, env=local_git_env(root / ".git"),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError:
        return None


def _config_dirt(proc: subprocess.Popen[bytes] | None, url: str) -> list[str]:
    if proc is None:
        return [".git/config unreadable"]
    try:
        out = proc.communicate(timeout=30)[0]
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return [".git/config unreadable"]
    if proc.returncode != 0:
        return [".git/config unreadable"]
    found = []
    for item in out.decode("utf-8", "surrogateescape").split("\0"):
        key, _, value = item.partition("\n")
        if not key:
            continue
        if key == "remote.origin.url":
            if value != url:
                found.append(f".git/config: remote.origin.url is {value!r}")
        elif key.lower() not in _CONFIG_KEYS:
            found.append(f".git/config: {key} added")
    return found
