"""A python tool runs the module its own config directory holds, and a checkout's from source.

Every config directory that declares a python tool is appended to one ``sys.path``, and a
top-level module name has one entry in ``sys.modules``. So a team repository's
``teamtools.py`` could be shadowed by a ``teamtools.py`` beside the user's file (appended
earlier) or already imported from another repository, silently. ``check_origin`` finds where
the declaring directories themselves would import the tool's top-level module from and
refuses, naming both files, when ``import`` would take another config directory's module
instead (or, for a tool of a shared repository, any module but the checkout's own).

Modules of a cached checkout are compiled from their source, never from bytecode: a ``.pyc``
under ``PYTHONPYCACHEPREFIX`` (``sys.pycache_prefix``) is as unpinned as one planted in
``__pycache__`` (``source_only_checkouts``).
"""

from __future__ import annotations

import os
import sys
from importlib.machinery import (
    EXTENSION_SUFFIXES,
    SOURCE_SUFFIXES,
    ExtensionFileLoader,
    FileFinder,
    ModuleSpec,
    PathFinder,
    SourceFileLoader,
)
from types import CodeType, ModuleType

__all__ = ["ADDED", "check_origin", "note_added", "source_only_checkouts"]

ADDED: set[str] = set()  # directories extend_import_path appended (config directories)
_HOOKED: list[bool] = []


class _SourceOnlyLoader(SourceFileLoader):
    """Compiles the source every time; reads and writes no bytecode anywhere."""

    def get_code(self, fullname: str) -> CodeType:
        path = self.get_filename(fullname)
        return self.source_to_code(self.get_data(path), path)


def _checkout_finder(path: str) -> FileFinder:
    from toolhost.config.repotree import checkout_root

    if not path or checkout_root(path) is None:
        raise ImportError("not a checkout")
    return FileFinder(path, (_SourceOnlyLoader, SOURCE_SUFFIXES),
                      (ExtensionFileLoader, EXTENSION_SUFFIXES))


def source_only_checkouts() -> None:
    """Import modules of cached checkouts from their sources only (once per process)."""
    if _HOOKED:
        return
    _HOOKED.append(True)
    sys.path_hooks.insert(0, _checkout_finder)
    from toolhost.config.repotree import checkout_root

    for entry in list(sys.path_importer_cache):
        if entry and checkout_root(entry) is not None:
            del sys.path_importer_cache[entry]


def check_origin(module_name: str, search: list[str]) -> str:
    """'' when ``import module_name`` takes its top-level module from where the tool's own
    directories (``search``) would; else why not, naming both files."""
    top = module_name.split(".")[0]
    own = PathFinder.find_spec(top, search)
    if own is None:
        return ""  # not in the tool's own directories: installed, or missing (said later)
    loaded = sys.modules.get(top)
    other: ModuleSpec | ModuleType | None
    if loaded is not None:
        other = loaded
    else:
        from toolhost.backends.import_dirs import find_top

        try:  # not importlib.util.find_spec: it asks every config directory (import_dirs)
            other = find_top(top)
        except (ImportError, ValueError):
            return ""
    if other is None or _places(other) & _places(own):
        return ""
    from toolhost.config.repotree import checkout_root

    theirs = _places(other)
    in_checkout = any(checkout_root(p) is not None for p in _places(own))
    if not in_checkout and not any(_under_added(p) for p in theirs):
        return ""  # an installed module of that name wins (docs/backends.md), as always
    return (f"module '{top}' of this tool is {_shown(own)}, but `import {top}` "
            f"{'gives' if loaded is not None else 'would give'} {_shown(other)}")


def _places(spec: ModuleSpec | ModuleType) -> set[str]:
    spec_ = spec.__spec__ if isinstance(spec, ModuleType) else spec
    if spec_ is None:
        return set()
    found = {os.path.realpath(spec_.origin)} if spec_.origin and spec_.has_location else set()
    if not found and spec_.submodule_search_locations is not None:  # a namespace package
        found = {os.path.realpath(p) for p in spec_.submodule_search_locations}
    return found


_REAL: set[str] = set()  # the config directories' real paths


def note_added(entries: list[str]) -> None:
    """Record config directories appended to ``sys.path`` (``ADDED``), each resolved once."""
    for entry in entries:
        if entry not in ADDED:
            ADDED.add(entry)
            _REAL.add(os.path.realpath(entry))


def _under_added(path: str) -> bool:
    """Whether ``path`` (a real path) is inside a config directory: its ancestors are looked
    up among the directories' real paths. Resolving every directory for every tool was
    quadratic (1,000 tools each in a directory of its own, their module named like an
    installed one: 65 s)."""
    parent = os.path.dirname(path)
    while parent != os.path.dirname(parent):  # up to the root, which holds everything
        if parent in _REAL:
            return True
        parent = os.path.dirname(parent)
    return False


def _shown(spec: ModuleSpec | ModuleType) -> str:
    return " and ".join(sorted(_places(spec))) or "built in"
