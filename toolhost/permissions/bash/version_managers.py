"""Version managers whose project files choose the program a name runs: asdf's
``.tool-versions`` may name a version ``path:/DIR``, and its shim for ``node`` then runs
``/DIR/bin/node``; mise (rtx) reads ``mise.toml``/``.mise.toml``/``.tool-versions`` whose
``[env]`` ``_.source`` runs a script and whose ``[hooks]`` run commands, for ``mise exec``
and its shims alike. So where a deny or ask Bash rule exists: ``asdf exec``/``env`` and a
program reached through an asdf shim (a ``shims`` folder on ``PATH``) are not provable where
a ``.tool-versions`` of the folder or one above names a ``path:`` version; ``mise``/``rtx``
commands (not ``--version``/``help``) and a mise shim, where a mise file is found there or
in ``~/.config/mise`` (a ``.tool-versions`` only with a ``path:`` version).
(Neither program is installed here to judge: written from their documentation, fail
closed.)"""

from __future__ import annotations

import os
import re

from toolhost.permissions.bash.fresh_files import may_write
from toolhost.permissions.bash.interpreters import base
from toolhost.permissions.later.makefile import read_text
from toolhost.permissions.shell.parse import ParsedCommand

__all__ = ["version_manager_reason"]

_MISE_FILES = ("mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".rtx.toml",
               ".config/mise.toml", ".config/mise/config.toml",
               ".mise/config.toml")
_PATH_VERSION = re.compile(r"(?m)^[ \t]*\S+[ \t]+(?:\S+[ \t]+)*(?:path|ref):")
_SHIMS = re.compile(r"(asdf|mise|rtx)[^/]*/(?:.*/)?shims/?$")
_QUIET = frozenset({"--version", "-V", "version", "help", "--help", "-h"})
# subcommands that write the files (or install the plugins) later runs are chosen by
_WRITES = frozenset({"use", "u", "trust", "link", "alias", "plugin", "plugins", "install", "i",
                     "settings", "config", "generate", "global"})
_ABOVE = 64  # folders climbed at most (fail closed past them)


def _folders(cwd: str) -> list[str] | None:
    out, here = [], os.path.abspath(cwd)
    for _ in range(_ABOVE):
        out.append(here)
        up = os.path.dirname(here)
        if up == here:
            return out
        here = up
    return None


def _found(cwd: str, names: tuple[str, ...], pattern: re.Pattern[str] | None) -> str | None:
    """The first file of ``names`` in ``cwd``, a folder above or the home folder that is there
    and matches ``pattern`` (any text: None) or cannot be read; ``cwd`` itself if too deep."""
    folders = _folders(cwd)
    if folders is None:
        return cwd
    home = os.path.expanduser("~")
    for folder in dict.fromkeys((*folders, home, os.path.join(home, ".config", "mise"))):
        for name in names:
            text, there = read_text(os.path.join(folder, name))
            if there and (text is None or pattern is None or pattern.search(text)):
                return os.path.join(folder, name)
    return None


def _shim(name: str) -> str | None:
    """``asdf`` or ``mise`` when ``name`` runs through a shim of theirs on PATH (only their
    shims folders are looked in, one ``stat`` each, wherever they are on PATH: fail closed;
    pyenv's ``.python-version`` refuses a path)."""
    path = os.environ.get("PATH", "")
    if "shims" not in path or "/" in name:
        return None  # (the common case: no look-up)
    for folder in path.split(os.pathsep):
        manager = _SHIMS.search(folder)
        if manager is not None and os.path.isfile(os.path.join(folder, name)):
            return "asdf" if manager.group(1) == "asdf" else "mise"
    return None


def version_manager_reason(forms: list[tuple[str, ...]], cwd: str,
                           parsed: ParsedCommand | None = None) -> str | None:
    """Why a form among ``forms`` runs a program a version manager's project file chooses
    (None: none does). Call only where a deny or ask Bash rule exists."""
    for form in forms:
        if not form or "=" in form[0]:
            continue
        name = base(form[0])
        manager = name if name in ("asdf", "mise", "rtx") else _shim(name)
        if manager is None or (manager == name and (len(form) < 2 or form[1] in _QUIET)):
            continue
        if name == manager and (form[1] in _WRITES or any(
                w.startswith(("path:", "ref:")) or "@path:" in w for w in form[2:])):
            return (f"{name} {form[1]} writes or installs what {name} runs for a tool later, "
                    "which the rules cannot see")
        if parsed is not None and may_write(parsed, name):
            return (f"the line may write a file before {manager} reads what it runs for "
                    f"{name!r} (the files are looked at before the line runs)")
        if manager == "asdf":
            if name == "asdf" and form[1] not in ("exec", "env", "shell", "local", "set"):
                continue
            path = _found(cwd, (".tool-versions",), _PATH_VERSION)
        else:
            path = _found(cwd, _MISE_FILES, None) or _found(cwd, (".tool-versions",),
                                                             _PATH_VERSION)
        if path is not None:
            return (f"{path!r} chooses what {manager} runs for {name!r} (a path version, "
                    "an env script or a hook), which the rules cannot see")
    return None
