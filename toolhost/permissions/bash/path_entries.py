"""Relative entries of ``PATH``: a program the line names, found in the folder it runs in.

A ``PATH`` holding ``.``, an empty entry (``::``, a leading or trailing ``:``) or another
relative folder makes the shell look for a command name there, relative to where the command
runs: with ``PATH=.:/usr/bin``, ``git status`` runs a ``./git`` an earlier call wrote
(checked with sh and bash). The CLI's Bash tool inherits the environment toolhost runs in, so
it is read when a call is decided. Where a deny or ask Bash rule exists and ``PATH`` holds
such an entry, a line is not provable when that folder holds a file named as one of its
programs, when the line moves first (``cd``: the folder is then not known), or when it may
write a file before the program runs. An absolute entry is the machine's, as before.
"""

from __future__ import annotations

import functools
import os

from toolhost.permissions.bash.fresh_files import may_write
from toolhost.permissions.later.where import MOVES
from toolhost.permissions.shell.parse import ParsedCommand

__all__ = ["relative_path_reason"]

# bash runs these itself, whatever PATH holds
_BUILTINS = frozenset({
    ".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command",
    "compgen", "complete", "compopt", "continue", "declare", "dirs", "disown", "echo",
    "enable", "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash", "help",
    "history", "jobs", "kill", "let", "local", "logout", "mapfile", "popd", "printf", "pushd",
    "pwd", "read", "readarray", "readonly", "return", "set", "shift", "shopt", "source",
    "suspend", "test", "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias",
    "unset", "wait"})


@functools.lru_cache(maxsize=8)
def _entries(path: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Every entry of ``path`` in order (an empty one as ``.``), and the ones the shell
    reads relative to the current folder."""
    every = tuple(os.path.expanduser(e) if e.startswith("~") else (e or ".")
                  for e in path.split(os.pathsep))
    return every, tuple(dict.fromkeys(e for e in every if not e.startswith("/")))


def _found_first(name: str, every: tuple[str, ...], cwd: str) -> str | None:
    """The relative entry the shell would find ``name`` in before any absolute one (None:
    an absolute entry has it first, or none does)."""
    for entry in every:
        folder = entry if entry.startswith("/") else os.path.join(cwd, entry)
        there = os.path.join(folder, name)
        if entry.startswith("/"):
            if os.path.isfile(there) and os.access(there, os.X_OK):
                return None  # (the machine's program, found first)
        elif os.path.lexists(there):
            return entry  # (fail closed: any file there, whatever its mode now)
    return None


def relative_path_reason(forms: list[tuple[str, ...]], cwd: str,
                         parsed: ParsedCommand | None = None,
                         path: str | None = None) -> str | None:
    """Why a program among ``forms`` may be found in a relative ``PATH`` folder (None: it
    may not, or ``PATH`` has no such entry). Call only where a deny or ask Bash rule exists."""
    every, entries = _entries(os.environ.get("PATH", "") if path is None else path)
    if not entries:
        return None  # (the usual case: nothing looked at)
    names = [f[0] for f in forms if f and "/" not in f[0] and f[0] not in _BUILTINS]
    if not names:
        return None
    shown = ":".join(entries)
    if any(f and f[0] in MOVES for f in forms):
        return (f"PATH holds a relative folder ({shown!r}), and after a cd on the line which "
                "folder it names is not known")
    for name in dict.fromkeys(names):
        if parsed is not None and (may_write(parsed, name) or _named_before(parsed, name)):
            return (f"PATH holds a relative folder ({shown!r}), and the line may write a "
                    f"file there before {name} is looked up")
        entry = _found_first(name, every, cwd)
        if entry is not None:
            return (f"PATH holds the relative folder {entry!r}, and its {name!r} (an "
                    "earlier call may have written it) runs in place of the program")
    return None


def _named_before(parsed: ParsedCommand, name: str) -> bool:
    """Whether a segment before the one running ``name`` names a file of that name (``cp x
    tool && tool``: ``may_write`` counts from the first segment naming it, the ``cp``)."""
    segments = parsed.words
    runs = next((i for i, ws in enumerate(segments) if ws and ws[0].value == name), None)
    if runs is None:
        return False
    return any(w.value == name or w.value.endswith("/" + name)
               for ws in segments[:runs] for w in ws[1:])
