"""The built-in backend kinds: one dict, so adding a kind touches one line.

Plugins add kinds through the ``toolhost`` entry point (see ``toolhost.plugins``); the built-ins
are registered through the same hook (``toolhost.backends.builtins``) from this dict.
"""

from __future__ import annotations

from toolhost.backends.base import BackendKind
from toolhost.backends.command import CommandKind
from toolhost.backends.http import HttpKind
from toolhost.backends.python import PythonKind

__all__ = ["BUILTIN_KINDS", "builtin_kinds"]

BUILTIN_KINDS: dict[str, BackendKind] = {
    "python": PythonKind(),
    "command": CommandKind(),
    "http": HttpKind(),
}


def builtin_kinds() -> dict[str, BackendKind]:
    """A fresh copy of the built-in kinds, by name."""
    return dict(BUILTIN_KINDS)
