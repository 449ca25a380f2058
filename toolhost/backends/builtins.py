"""toolhost's own backend kinds, registered through the same entry point hook as a plugin.

toolhost's pyproject declares ``[project.entry-points.toolhost] builtins =
"toolhost.backends.builtins"``; ``toolhost.plugins.activate`` always calls this hook, and
calls a plugin's only when a config enables it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolhost.plugins.registry import Registry


def register(registry: Registry) -> None:
    """Add python, command, http (and any other built-in kind) to ``registry``."""
    try:
        from toolhost.backends.registry import (  # type: ignore[import-not-found,unused-ignore]
            builtin_kinds,
        )
    except ModuleNotFoundError as exc:  # TODO(integration): remove once registry.py lands
        if exc.name != "toolhost.backends.registry":
            raise
        return
    for kind in builtin_kinds().values():
        registry.add_kind(kind)
