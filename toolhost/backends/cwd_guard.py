"""An in-process python tool cannot move the host's working directory.

The permission rules judge a relative path argument of a python tool (and of a command tool
without a ``cwd:``) against the directory toolhost runs in (``toolhost.permissions.
reading_dirs``). The working directory is the whole process's: a tool's ``os.chdir`` moved
every concurrent call's relative reads past the rules they were judged by, and a thread the
tool started could move it after its call ended, for good. Putting it back when the calls end
(as for ``os.environ``) comes too late for the call reading meanwhile, so from a tool's code
(its pool thread, a thread or executor job it started, its async call and tasks: ``in_tool``)
``os.chdir``, ``os.fchdir`` and ``os.chroot`` (and their ``posix`` originals) raise
``HostMoveRefused`` instead. The host's own moves (an embedder's) go through; the policy then
judges such tools' relative paths as unprovable (``policy_elsewhere.Elsewhere``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from toolhost.backends.exit_guards import in_tool

__all__ = ["HostMoveRefused", "guard_moves"]

_MOVES = ("chdir", "fchdir", "chroot")


class HostMoveRefused(PermissionError):
    """``os.chdir`` (or ``fchdir``, ``chroot``) called by an in-process tool's code."""


def guard_moves() -> None:
    """Replace ``os.chdir``/``os.fchdir``/``os.chroot`` and the ``posix`` module's own
    (once per process) so that a tool's code cannot call them."""
    modules: list[Any] = [os]
    try:
        import posix
        modules.append(posix)
    except ImportError:  # (not on Windows)
        pass
    for module in modules:
        for name in _MOVES:
            move = module.__dict__.get(name)
            if move is not None and not getattr(move, "_toolhost_guarded", False):
                setattr(module, name, _refused_in_tools(move))


def _refused_in_tools(move: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if in_tool():
            where = args[0] if args else kwargs.get("path", kwargs.get("fd"))
            try:
                here = os.getcwd()
            except OSError:
                here = "(a removed directory)"
            raise HostMoveRefused(
                f"os.{move.__name__}({where!r}) by an in-process tool would move the working "
                f"directory of the whole host, {here!r}, where every other call's relative "
                "paths are read and judged by the permission rules; give the tool "
                "`isolation: process`, or pass the directory on (absolute paths, "
                "subprocess cwd=)")
        return move(*args, **kwargs)

    guarded.__doc__, guarded.__name__ = move.__doc__, move.__name__
    guarded._toolhost_guarded = True  # type: ignore[attr-defined]
    return guarded
