"""A copy into a directory that lands on a file a later command runs.

``later.files`` reads each word of ``cp``, ``mv``, ``rsync`` ... as the path it names, so the
file a copy *makes* was missed: ``cp -r hooks .git/`` makes ``.git/hooks``, ``cp -r evil/.git
.`` replaces the repository's hooks and config, ``cp -r dotfiles/. ~``, ``rsync -a dot/ ~/``
and ``tar xf x.tar -C ~`` put whatever they hold in the home directory. Here the file a copy
makes (the target directory joined with each source's name) is read as ``later.files`` reads a
word, and a copy of a directory's *contents* (``src/.``, rsync's ``src/``, ``cp -T``, an
archive unpacked with ``tar -C``/``unzip -d``) into a directory holding such files (the
home directory, ``.git``, ``.git/hooks``, ``~/.config``, ``~/.ssh``, ``/etc`` ...) is not
provable: what it holds is not on the line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

__all__ = ["lands_on_one"]

_COPIERS = frozenset({"cp", "gcp", "mv", "gmv", "install", "ginstall", "ln", "gln", "scp",
                      "rsync"})
_HOME = r"(?:~|\$HOME|\$\{HOME\}|/root|/home/[^/]+|/Users/[^/]+)"
_HOLDING = re.compile(
    rf"(?i)^(?:{_HOME}(?:/\.config(?:/(?:git|gh|fish|toolhost))?|/\.ssh|/\.cargo)?"
    r"|(?:.*/)?\.git(?:/hooks)?|(?:.*/)?\.(?:husky|githooks|cargo)"
    r"|/etc(?:/cron\.d|/profile\.d)?)/*$")
# options of the copiers that take a value (the target directory among them)
_VALUED = frozenset({"-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o",
                     "--owner", "-g", "--group", "-e", "--rsh", "-P", "-i", "-l", "-F",
                     "--exclude", "--include", "--filter", "-f", "--rsync-path", "-B",
                     "--backup-dir", "--chmod", "--chown", "-c"})


def holding(path: str) -> bool:
    """Whether ``path`` names a directory holding files a later command runs."""
    path = path.rstrip("/") or "/"
    home = os.path.expanduser("~").rstrip("/")
    return bool(_HOLDING.match(path)) or path == home or (path.startswith(home + "/") and bool(
        _HOLDING.match("~" + path[len(home):])))


def lands_on_one(values: list[str], plain: Callable[[str], bool]) -> str | None:
    """The file or directory a copy among ``values`` (a simple command's words) makes that
    a later command runs, or the directory it fills with unseen contents; else None.
    ``plain`` tells whether a path names such a file (``later.files``)."""
    name = values[0].rsplit("/", 1)[-1].lower()
    if name in ("tar", "gtar", "bsdtar", "unzip"):
        return _unpacked(name, values[1:])
    if name not in _COPIERS:
        return None
    operands, target, merge = [], None, False
    k = 1
    while k < len(values):
        v = values[k]
        if v == "--":
            operands += values[k + 1:]
            break
        if v in ("-T", "--no-target-directory") or (
                v.startswith("-") and not v.startswith("--") and "T" in v[1:]):
            merge = True
        if v.startswith("--target-directory="):
            target = v.partition("=")[2]
        elif v in _VALUED and k + 1 < len(values):
            if v in ("-t", "--target-directory"):
                target = values[k + 1]
            k += 1
        elif not v.startswith("-") or v == "-":
            operands.append(v)
        k += 1
    if target is None and len(operands) >= 2:
        target, operands = operands[-1], operands[:-1]
    if target is None:
        return None
    for source in operands:
        base = source.rstrip("/").rsplit("/", 1)[-1]
        contents = merge or base in (".", "..", "") or (name == "rsync" and source.endswith("/"))
        if contents and holding(target):
            return target
        made = target.rstrip("/") + "/" + base
        if not contents and (plain(made) or holding(made)):
            return made
    return None


def _unpacked(name: str, values: list[str]) -> str | None:
    """``tar -xf x.tar -C DIR``, ``unzip x.zip -d DIR``: DIR when it holds such files."""
    for k, v in enumerate(values):
        if (name == "unzip" and v == "-d") or (name != "unzip" and v in ("-C", "--directory")):
            into = values[k + 1] if k + 1 < len(values) else ""
        elif name != "unzip" and v.startswith(("--directory=", "-C")) and len(v) > 2:
            into = v.partition("=")[2] if v.startswith("--") else v[2:]
        else:
            continue
        if holding(into):
            return into
    return None
