"""Finding a python tool's top-level module without asking every config directory's finder.

Each config directory that declares a python tool, and each of its ``path:`` entries, is
appended to ``sys.path``, and ``import x`` asks every entry's finder in turn (a stat of the
directory and a few lookups apiece). A config whose tools each sit in a directory of their
own (``path: tools/<name>``) made each tool's import walk every directory appended before
it, twice (the origin check, then the import): quadratic, 2,000 such tools took 104 s to
compile. Here each config directory is listed once, and the lookup asks the ``sys.path``
entries that are no config directory (the interpreter's own, a few) and only the config
directories whose listing names the module: the same answer, found in time independent of
how many config directories there are.

A listing is kept for the process: a module file created in another config directory after
it was listed is not seen by this lookup (``import`` itself still sees it: a module this
lookup does not find is imported the ordinary way).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from importlib.machinery import ModuleSpec, PathFinder

__all__ = ["find_top", "load_top", "on_path"]

class _PathView:
    """What ``sys.path`` was when last read, with what the lookup needs, kept up to date
    with what is appended to it (a config directory each) in time of what was appended."""

    def __init__(self) -> None:
        self.seen: list[object] = []  # sys.path as last read
        self.first: dict[str, int] = {}  # entry -> its first position
        # the entries always asked: no config directory, or none this lookup can list (a
        # zip file); in sys.path's order
        self.asked: list[tuple[int, str]] = []
        self.holders: dict[str, list[str]] = {}  # a name -> the config directories naming it

    def read(self) -> None:
        path, known = sys.path, len(self.seen)
        if len(path) >= known and path[:known] == self.seen:  # appended to: the tail only
            tail = path[known:]
        else:  # changed otherwise: read it all again
            self.__init__()  # type: ignore[misc]
            tail = list(path)
        from toolhost.backends.module_origin import ADDED

        for entry in tail:
            at = len(self.seen)
            self.seen.append(entry)
            if not isinstance(entry, str) or entry in self.first:
                continue
            self.first[entry] = at
            names = _names(entry) if entry in ADDED else None
            if names is None:
                self.asked.append((at, entry))
                continue
            for name in names:
                self.holders.setdefault(name, []).append(entry)


def _names(entry: str) -> frozenset[str] | None:
    """The names a config directory's entries start with (before the first '.'); None for
    one that cannot be listed but may hold modules (a zip file). One that is not there
    holds none: the import system remembers that it is no directory, and never looks."""
    try:
        return frozenset(name.partition(".")[0] for name in os.listdir(entry))
    except FileNotFoundError:
        return frozenset()
    except OSError:
        return None


_VIEW = _PathView()


def on_path(entry: str) -> bool:
    """Whether ``entry`` is on ``sys.path``, in time of what was appended since the last
    question (``entry in sys.path`` reads it all: once per config directory, quadratic)."""
    _VIEW.read()
    return entry in _VIEW.first


def _candidates(top: str) -> list[str]:
    """``sys.path`` without the config directories that cannot hold ``top``."""
    _VIEW.read()
    picked = list(_VIEW.asked)
    picked += [(_VIEW.first[d], d) for d in _VIEW.holders.get(top, ())]
    picked.sort()
    return [entry for _, entry in picked]


def find_top(top: str) -> ModuleSpec | None:
    """The spec ``import top`` would take (``top`` has no dot), asking the meta path's
    finders in their order, the path finder with ``sys.path`` narrowed as above."""
    if "." in top:
        raise ValueError(f"'{top}' is not a top-level module name")
    path: list[str] | None = None
    for finder in sys.meta_path:
        if finder is PathFinder:
            path = path if path is not None else _candidates(top)
            spec = PathFinder.find_spec(top, path)
        else:
            find = getattr(finder, "find_spec", None)
            spec = find(top, None) if callable(find) else None
        if spec is not None:
            return spec
    return None


def load_top(top: str) -> None:
    """Import the top-level module ``top`` as ``import top`` would, unless it is imported
    already. A module this lookup does not find, or one without a loader of its own (a
    namespace package), is left to ``import``."""
    if top in sys.modules:
        return
    spec = find_top(top)
    if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules[top] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(top, None)  # as import does: a module that raised is not kept
        raise
