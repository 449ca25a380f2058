"""The names a program is known by past its own: a link's target, a script's interpreter.

A perl program that is not named ``perl`` (``exiftool``, any ``#!/usr/bin/perl`` tool the
argv names, a link ``myperl -> /usr/bin/perl``) reads its operands the way ``perl`` does
when it uses ``<>`` or two-argument ``open``: ``"cmd|"`` runs a command; a link to ffmpeg
opens URLs like ffmpeg. :func:`program_names` resolves the program as the spawn would (a
path with a '/' from the tool's cwd, else on its PATH), names the program a symbolic link
ends at, and reads the first line (at most 256 bytes) for the interpreter (``perl``,
``python3`` ...), looking through ``env`` and ``env -S``. Results are cached by path, size
and modification time, in a bounded table.
"""

from __future__ import annotations

import os
import threading

__all__ = ["program_names", "program_path"]

_LIMIT = 256  # bytes of the first line read (Linux takes 256 for a #! line)
_CACHE_SIZE = 512
_cache: dict[tuple[str, int, int], tuple[str, ...]] = {}


def program_names(program: str, cwd: str | None = None, search: str | None = None
                  ) -> tuple[str, ...]:
    """The other names (last path part, lowercased) the program ``program`` runs is known
    by: the program a symbolic link ends at (``myperl -> /usr/bin/perl``), and the
    interpreter of a ``#!`` script. Empty when neither, or it cannot be found or read.
    ``cwd``: the directory a relative ``dir/prog`` is found from; ``search``: the PATH a
    bare name is found on."""
    path = program_path(program, cwd, search if search is not None
                        else os.environ.get("PATH", os.defpath))
    if path is None:
        return ()
    try:
        info = os.stat(path)
    except (OSError, ValueError):  # missing, a NUL in the name, a name too long
        return ()
    key = (os.path.abspath(path), info.st_size, info.st_mtime_ns)
    if key in _cache:
        return _cache[key]
    found = tuple(n for n in (_linked(path), _read(path)) if n)
    if len(_cache) >= _CACHE_SIZE:
        _cache.clear()  # bounded: programs are few; a full table starts over
    _cache[key] = found
    return found


class one_look:
    """Within it (one call's checks: the link look, then the render's ``#!`` and name
    looks), each program is searched for once: ``program_path`` answers from a memo that
    lives only as long as the block, so a link made between two calls is still seen."""

    def __enter__(self) -> None:
        self.outer = getattr(_local, "memo", None)
        _local.memo = self.outer if self.outer is not None else {}

    def __exit__(self, *exc: object) -> None:
        _local.memo = self.outer


_local = threading.local()


def program_path(program: str, cwd: str | None, search: str | None) -> str | None:
    """Where the spawn finds ``program``: a path with a '/' from ``cwd``, else the first
    executable file of that name on ``search`` (a PATH; None: the system default), as execvp
    looks (not ``shutil.which``: it imports bz2 and lzma, which loading a config does
    without). None when there is none. Inside ``one_look``, each is searched for once."""
    memo: dict[tuple[str, str | None, str | None], str | None] | None = \
        getattr(_local, "memo", None)
    if memo is None:
        return _search(program, cwd, search)
    key = (program, cwd, search)
    if key not in memo:
        memo[key] = _search(program, cwd, search)
    return memo[key]


def _search(program: str, cwd: str | None, search: str | None) -> str | None:
    if "/" in program:
        return os.path.join(cwd, program) if cwd else program
    for folder in (search if search is not None else os.defpath).split(os.pathsep):
        path = os.path.join(folder or ".", program)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def _linked(path: str) -> str | None:
    """The name of the program a symbolic link (chain) ends at, or None for no link."""
    if not os.path.islink(path):
        return None
    return os.path.basename(os.path.realpath(path)).lower() or None


def _read(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            head = handle.read(_LIMIT)
    except (OSError, ValueError):
        return None
    if not head.startswith(b"#!"):
        return None
    line = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace")
    words = line.split()
    if not words:
        return None
    name = words[0].rsplit("/", 1)[-1].lower()
    if name == "env":  # #!/usr/bin/env perl, #!/usr/bin/env -S perl -w
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        name = rest[0].rsplit("/", 1)[-1].lower() if rest else "env"
    return name
