"""The built-in backend kinds: one dict, so adding a kind touches one line.

Plugins add kinds through the ``toolhost`` entry point (see ``toolhost.plugins``); the built-ins
are registered through the same hook (``toolhost.backends.builtins``) from this dict.

Every built-in kind is registered as a ``LazyKind``: the loader only needs a kind's name,
shorthand and options schema (kept in small ``*_options`` modules), so their implementations
(jinja2, httpx: about a tenth of a second of imports; the python backend's signatures and
call machinery) load when a tool of theirs is bound.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from toolhost.backends.base import BackendKind, BindContext, Binding
from toolhost.backends.command_options import OPTIONS_SCHEMA as COMMAND_OPTIONS
from toolhost.backends.http_options import OPTIONS_SCHEMA as HTTP_OPTIONS
from toolhost.backends.python_options import OPTIONS_SCHEMA as PYTHON_OPTIONS
from toolhost.config.model import ToolConfig

__all__ = ["BUILTIN_KINDS", "LazyKind", "builtin_kinds"]


class LazyKind:
    """A backend kind whose implementation is imported on its first ``bind``.

    ``target`` is ``"module:Class"``; the class is built once, without arguments, and must
    have the same ``name``, ``shorthand`` and ``options_schema`` as given here.
    """

    def __init__(self, name: str, shorthand: str | None, options_schema: Mapping[str, Any],
                 target: str) -> None:
        self.name = name
        self.shorthand = shorthand
        self.options_schema = options_schema
        self.target = target
        self._kind: BackendKind | None = None

    def load(self) -> BackendKind:
        """The real kind (imported and built on first use)."""
        if self._kind is None:
            module, _, attr = self.target.partition(":")
            kind: BackendKind = getattr(importlib.import_module(module), attr)()
            self._kind = kind
        return self._kind

    def bind(self, tool: ToolConfig, ctx: BindContext) -> Binding:
        return self.load().bind(tool, ctx)

    def __repr__(self) -> str:
        return f"LazyKind({self.name!r}, {self.target!r})"


BUILTIN_KINDS: dict[str, BackendKind] = {
    "python": LazyKind("python", "function", PYTHON_OPTIONS,
                       "toolhost.backends.python:PythonKind"),
    "command": LazyKind("command", "argv", COMMAND_OPTIONS,
                        "toolhost.backends.command:CommandKind"),
    "http": LazyKind("http", None, HTTP_OPTIONS, "toolhost.backends.http:HttpKind"),
}


def builtin_kinds() -> dict[str, BackendKind]:
    """A fresh copy of the built-in kinds, by name."""
    return dict(BUILTIN_KINDS)
