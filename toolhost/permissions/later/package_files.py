"""The files besides ``package.json`` that decide what a package's scripts run (for
``later.package``): the rc files naming the shell they run in (``.npmrc``'s
``script-shell``, of the package, every folder above it, the home folder, npm's global and
built-in ones), and for an install, what runs besides the scripts (``binding.gyp``, the
workspaces' and local dependencies' own install scripts). Each read bounded, never
blocking (``later.makefile.read_text``); a parse remembered by the file's text.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import time
from functools import lru_cache

from toolhost.permissions.later.makefile import read_text

__all__ = ["SHELLISH", "install_reason", "rc_reason"]

_RC_NAMES = (".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmrc", "bunfig.toml")
# an rc setting (or an environment name) that names the shell, the scripts, a workspace,
# node's options or another rc file
SHELLISH = re.compile(r"(?i)shell|script|workspace|node.options|userconfig|globalconfig")


def rc_reason(root: str) -> str | None:
    """An rc file of the project or the user that may name the shell scripts run in, or
    send the runner to another package (``script-shell``, ``prefix``, ``node-options``).
    Every folder above the package is read too: npm takes a workspace root above it as the
    project, and that root's ``.npmrc`` names the shell (npm 11 ran a parent's
    ``script-shell`` for ``npm test`` in a workspace's folder)."""
    paths = [path for folder in dict.fromkeys((*_above(root), os.path.expanduser("~")))
             for path in _rc_files(folder)]
    for path in dict.fromkeys((*paths, *_global_rcs(os.environ.get("PATH", "")))):
        text, there = read_text(path)
        if text is None and there:
            return f"{path!r} cannot be read here"
        if text is not None and (SHELLISH.search(text) or _KEY_FROM_ENV.search(text)):
            return f"{path!r} names a setting that changes how scripts run"
    return None


def _rc_files(folder: str) -> list[str]:
    """The rc files' paths that may be in ``folder`` (one ``stat`` of the folder,
    not an open per name, once its names were looked at: a folder's modification time
    changes whenever a name in it is made, removed or renamed). Where the folder cannot be
    looked at, every name is tried (each read then says what it can)."""
    try:
        seen = os.stat(folder)
    except OSError:
        return [os.path.join(folder, name) for name in _RC_NAMES]
    key = (folder, seen.st_dev, seen.st_ino, seen.st_mtime_ns, seen.st_ctime_ns)
    known = _PRESENT.get(key)
    if known is not None:
        return known
    found = [path for path in (os.path.join(folder, name) for name in _RC_NAMES)
             if _may_be_there(path)]
    # (a name made within the file system's clock tick of the last change leaves the time
    # as it was: a listing is remembered only once the folder has been still a while)
    if time.time_ns() - max(seen.st_mtime_ns, seen.st_ctime_ns) > _SETTLED_NS:
        if len(_PRESENT) >= 512:
            _PRESENT.clear()
        _PRESENT[key] = found
    return found


def _may_be_there(path: str) -> bool:
    try:
        os.lstat(path)
    except OSError as exc:  # (anything but "not there": the read says what it is)
        return exc.errno not in (errno.ENOENT, errno.ENOTDIR)
    return True


_PRESENT: dict[tuple[str, int, int, int, int], list[str]] = {}
_SETTLED_NS = 2_000_000_000


# npm expands ${VAR} in an rc file's keys too (`${K}=/tmp/x` with K=script-shell names the
# shell: npm 11 ran it); in a value it is common (an auth token) and names no setting
_KEY_FROM_ENV = re.compile(r"(?m)^[^=\n]*\$\{")


@lru_cache(maxsize=8)
def _global_rcs(path_variable: str) -> tuple[str, ...]:
    """npm's global and built-in rc files (``PREFIX/etc/npmrc`` where PREFIX holds the bin
    folder of the node found on PATH; ``npmrc`` in npm's own folder), remembered by PATH."""
    found: list[str] = []
    for program in ("node", "npm"):
        where = shutil.which(program, path=path_variable)
        if where is None:
            continue
        real = os.path.realpath(where)
        if program == "node":
            found.append(os.path.join(os.path.dirname(os.path.dirname(real)), "etc", "npmrc"))
        else:  # (.../node_modules/npm/bin/npm-cli.js)
            found.append(os.path.join(os.path.dirname(os.path.dirname(real)), "npmrc"))
        found.append(os.path.join(os.path.dirname(os.path.dirname(where)), "etc", "npmrc"))
    return tuple(found)


def _above(root: str) -> list[str]:
    """``root`` and every folder above it, nearest first."""
    folders = [root]
    while (parent := os.path.dirname(folders[-1])) != folders[-1]:
        folders.append(parent)
    return folders


# a dependency spec naming a folder or tarball of this machine (file:, link:, a path): npm
# install runs that package's lifecycle scripts, and an earlier call may have written them
_LOCAL_SPEC = re.compile(r"\s*(?:file:|link:|portal:|workspace:|\.{0,2}/|~/|[A-Za-z]:\\)")
_DEPENDENCY_KEYS = ("dependencies", "devDependencies", "optionalDependencies",
                    "peerDependencies")  # (bundleDependencies names some of these)


def install_reason(text: str, root: str) -> str | None:
    """Why an install of the project runs lines the scripts do not show: npm's default
    ``node-gyp rebuild`` for a ``binding.gyp`` (gyp runs its ``<!(...)`` commands), the
    workspaces' and local dependencies' own install scripts."""
    if os.path.lexists(os.path.join(root, "binding.gyp")):  # (an install script's too)
        return "its binding.gyp is built by node-gyp (gyp runs the commands it names)"
    return _local_packages(text)


@lru_cache(maxsize=64)
def _local_packages(text: str) -> str | None:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return "its package.json cannot be read"
    if not isinstance(data, dict):
        return "its package.json cannot be read"
    if data.get("workspaces") is not None:
        return "it installs the workspaces, whose own install scripts run"
    for key in _DEPENDENCY_KEYS:
        specs = data.get(key)
        if specs is None:
            continue
        if not isinstance(specs, dict):
            return f"its package.json's {key!r} cannot be read"
        for spec in specs.values():
            if not isinstance(spec, str) or _LOCAL_SPEC.match(spec):
                return f"it installs a package of this machine ({str(spec)[:40]!r}), whose " \
                       "own install scripts run"
    return None
