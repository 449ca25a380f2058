"""What a pinned commit contains, read so that nothing in the checkout's ``.git`` can lie.

A cached checkout's ``.git`` is as editable as its work tree: a replace ref, an alternate
object store, a graft, a clean filter or an ``fsmonitor`` hook in its ``config`` would make
git itself report an edited tree as the commit (or run a command). So the commit is read
object by object (``git cat-file --batch``, git's plain object reader: no filters, no
attributes, no hooks) and every object's id is recomputed here from its bytes: content
addressing makes the answer self-proving, whatever git was told. The commit whose hash is
the pinned sha names a tree; each tree whose hash is its id names the next. What comes out is
exactly the commit's tree, or ``None`` (some object is missing or is not what its id says).

Every git command toolhost runs on a checkout's own files goes through ``local_git_env`` /
``LOCAL_GIT_ARGS``: no system or user config, no ``GIT_*`` variable of the caller, no replace
objects, no hooks, no attribute files.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LOCAL_GIT_ARGS", "TreeEntry", "local_git", "local_git_env", "object_id",
           "pinned_tree"]

LOCAL_GIT_ARGS = ("--no-replace-objects", "-c", "core.hooksPath=/dev/null", "-c",
                  "core.fsmonitor=false", "-c", "core.attributesFile=/dev/null", "-c",
                  "core.untrackedCache=false", "-c", "core.symlinks=true", "-c",
                  "core.ignoreCase=false", "-c", "core.fileMode=true")
_MAX_OBJECT = 64 << 20  # a commit or tree larger than this is not read (bounded memory)
_TIMEOUT = 120.0


@dataclass(frozen=True)
class TreeEntry:
    """One path of the commit: its git mode (``100644``, ``100755``, ``120000``, ``40000``,
    ``160000``) and object id."""

    mode: str
    oid: str


def local_git_env(git_dir: Path) -> dict[str, str]:
    """The environment for a git command on a checkout: the caller's ``GIT_*`` variables and
    the system and user configs are left out, replace objects are ignored."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_DIR=str(git_dir), GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
               GIT_NO_REPLACE_OBJECTS="1", GIT_ATTR_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0",
               GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    return env


def local_git(root: Path, args: list[str]) -> str | None:
    """The output of a read-only git command on the checkout at ``root`` (``local_git_env``,
    ``LOCAL_GIT_ARGS``); None when it fails or takes longer than two minutes."""
    try:
        proc = subprocess.run(["git", *LOCAL_GIT_ARGS, f"--work-tree={root}", *args], cwd=root,
                              env=local_git_env(root / ".git"), stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.decode("utf-8", "replace") if proc.returncode == 0 else None


def object_id(kind: str, data: bytes, algo: str) -> str:
    """git's id of an object: the hash of ``"<kind> <size>\\0"`` and its bytes."""
    digest = hashlib.new(algo, f"{kind} {len(data)}\0".encode())
    digest.update(data)
    return digest.hexdigest()


def pinned_tree(root: Path, sha: str) -> dict[str, TreeEntry] | None:
    """Every path (``/``-separated, sub-trees included) of commit ``sha`` as stored in
    ``root/.git``, each object's id checked against its bytes; None when an object is missing,
    unreadable or not what its id says."""
    algo = "sha1" if len(sha) == 40 else "sha256"
    with _Reader(root) as reader:
        commit = reader.get(sha, "commit", algo)
        if commit is None or not commit.startswith(b"tree "):
            return None
        tree = commit[5:commit.find(b"\n")].decode("ascii", "replace")
        found: dict[str, TreeEntry] = {}
        pending = [("", tree)]
        while pending:
            prefix, oid = pending.pop()
            data = reader.get(oid, "tree", algo)
            entries = None if data is None else _entries(data, len(sha) // 2)
            if entries is None:
                return None
            for mode, name, child in entries:
                path = prefix + name
                found[path] = TreeEntry(mode, child)
                if mode == "40000":
                    pending.append((path + "/", child))
    return found


def _entries(data: bytes, raw: int) -> list[tuple[str, str, str]] | None:
    out: list[tuple[str, str, str]] = []
    i = 0
    while i < len(data):
        space = data.find(b" ", i)
        nul = data.find(b"\0", space + 1)
        if space < 0 or nul < 0 or nul + 1 + raw > len(data):
            return None
        mode = data[i:space].decode("ascii", "replace")
        name = os.fsdecode(data[space + 1:nul])
        if name in ("", ".", "..") or "/" in name or name.lower() == ".git":
            return None  # git refuses to check such a tree out: it is not a real checkout
        out.append(("100644" if mode == "100664" else mode, name,
                    data[nul + 1:nul + 1 + raw].hex()))
        i = nul + 1 + raw
    return out


class _Reader:
    """One ``git cat-file --batch`` process: an object per request, killed after a timeout."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen(
            ["git", *LOCAL_GIT_ARGS, "cat-file", "--batch"], cwd=root,
            env=local_git_env(root / ".git"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL)
        self.timer = threading.Timer(_TIMEOUT, self.proc.kill)
        self.timer.daemon = True
        self.timer.start()

    def __enter__(self) -> _Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.timer.cancel()
        self.proc.kill()
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()

    def get(self, oid: str, kind: str, algo: str) -> bytes | None:
        """The bytes of object ``oid`` when it is a ``kind`` whose hash is ``oid``."""
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(oid.encode("ascii") + b"\n")
            stdin.flush()
            header = stdout.readline().split()
            if len(header) != 3 or header[1] != kind.encode() or not header[2].isdigit():
                return None
            size = int(header[2])
            if size > _MAX_OBJECT:
                return None
            data = stdout.read(size + 1)[:-1]
        except (OSError, ValueError):
            return None
        return data if len(data) == size and object_id(kind, data, algo) == oid else None
