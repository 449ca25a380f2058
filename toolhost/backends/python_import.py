"""Finding a python tool's function: ``"package.module:attr.path"`` and where modules come from.

Shared by the host (at compile time) and by an isolated tool's worker process, so both import
the same function the same way.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["NOT_INSTALLED", "REF_PATTERN", "extend_import_path", "resolve_function"]

_DOTTED = r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*"
REF_PATTERN = f"^{_DOTTED}:{_DOTTED}$"


class _NotFound(LookupError):
    """A ``LookupError`` that knows what to suggest (``hint``)."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


NOT_INSTALLED = "is the package installed in this environment?"


def _missing_module_hint(module_name: str, exc: ModuleNotFoundError) -> str:
    missing = exc.name or ""
    if missing and not (module_name == missing or module_name.startswith(missing + ".")):
        # the module exists but imports one that is not installed
        return f"'{module_name}' imports '{missing}': install it in this environment"
    return NOT_INSTALLED


def _attribute_hint(obj: Any, part: str) -> str:
    from toolhost.typos import close_matches

    names = [n for n in dir(obj) if not n.startswith("_") and callable(getattr(obj, n, None))]
    close = close_matches(part, names, n=1)
    if close:
        return f"did you mean '{close[0]}'?"
    return f"it has: {', '.join(sorted(names)[:10])}" if names else ""


def _shadowed_hint(module_name: str, search: list[str]) -> str:
    """When the tool's own directories hold the module but ``import`` gave another (an
    installed one wins: a json.py beside the config is not the json imported), say so."""
    from importlib.machinery import PathFinder

    top = module_name.split(".")[0]
    own = PathFinder.find_spec(top, search) if search else None
    imported = getattr(sys.modules.get(top), "__file__", None)
    mine = own.origin if own is not None and own.has_location else None
    if not mine or not imported or os.path.realpath(mine) == os.path.realpath(imported):
        return ""
    return (f"{mine} is not the module imported: `import {top}` gives {imported}, which "
            "comes first on sys.path; rename yours")


def resolve_function(ref: str, search: list[str] | None = None) -> Callable[..., Any]:
    """Import ``"package.module:attr.path"``. Raises ``LookupError`` with a readable message
    (and, when there is one, a suggestion in its ``hint`` attribute).

    ``search``: the directories of the config that declares the tool (``extend_import_path``);
    a top-level module they hold must be the one imported (``module_origin.check_origin``).
    Modules of cached checkouts are compiled from source, never from bytecode."""
    from toolhost.backends.module_origin import check_origin, source_only_checkouts

    module_name, sep, attr_path = ref.partition(":")
    if not sep or not module_name or not attr_path:
        raise _NotFound(f"'{ref}' is not of the form 'module.sub:function'")
    source_only_checkouts()
    clash = check_origin(module_name, search or []) if search else ""
    if clash:
        raise _NotFound(clash, "two config directories (or a shared repository and an "
                        "installed package) hold a top-level module of that name, and one "
                        "process imports only one: rename one of them")
    from toolhost.backends.import_dirs import load_top

    try:
        load_top(module_name.split(".")[0])  # the top-level module: see import_dirs
        obj: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise _NotFound(f"cannot import module '{module_name}': {exc}",
                        _missing_module_hint(module_name, exc)) from exc
    except Exception as exc:  # the module raised while importing
        raise _NotFound(f"importing '{module_name}' raised {type(exc).__name__}: {exc}",
                        f"run python -c 'import {module_name}' to see the traceback") from exc
    for i, part in enumerate(attr_path.split(".")):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            owner = ".".join([module_name, *attr_path.split(".")[:i]])
            raise _NotFound(f"'{owner}' has no attribute '{part}'",
                            _shadowed_hint(module_name, search or [])
                            or _attribute_hint(obj, part)) from None
    if not callable(obj):
        raise LookupError(f"'{ref}' is a {type(obj).__name__}, not a function")
    return obj  # type: ignore[no-any-return]


def extend_import_path(config_file: str, extra: str | list[str] | None) -> list[str]:
    """Append the declaring file's directory and ``path:`` entries to ``sys.path``; return
    them (for error hints). ``LookupError`` (with a ``hint``) when they would take the
    directories on ``sys.path`` past ``TOOLHOST_MAX_IMPORT_DIRS``."""
    if not os.path.isfile(config_file):
        return []
    base = os.path.dirname(os.path.abspath(config_file))
    entries = [extra] if isinstance(extra, str) else list(extra or [])
    added = [base, *(os.path.normpath(os.path.join(base, e)) for e in entries)]
    from toolhost.backends.import_dirs import on_path
    from toolhost.backends.module_origin import ADDED, note_added
    from toolhost.config.limits import LIMITS

    new = len({e for e in added if e not in ADDED})
    if new and len(ADDED) + new > LIMITS.import_dirs:
        raise _NotFound(f"python tools would put more than {LIMITS.import_dirs:,} directories "
                        "on sys.path (the config directories and their path: entries)",
                        "every import of a module not yet loaded looks in each: share "
                        "directories, or raise TOOLHOST_MAX_IMPORT_DIRS if this is meant")

    for entry in added:
        if not on_path(entry):
            note_added([entry])  # before it is on sys.path: import_dirs lists it as one
            sys.path.append(entry)
    note_added(added)
    return added
