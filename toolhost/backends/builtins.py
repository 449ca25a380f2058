"""toolhost's own backend kinds, registered through the same entry point hook as a plugin.

toolhost's pyproject declares ``[project.entry-points.toolhost] builtins =
"toolhost.backends.builtins"``; ``toolhost.plugins.activate`` always calls this hook, and
calls a plugin's only when a config enables it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolhost.backends.registry import builtin_kinds

if TYPE_CHECKING:
    from toolhost.plugins.registry import Registry


def register(registry: Registry) -> None:
    """Add python, command, http (every kind in ``BUILTIN_KINDS``) to ``registry``."""
    for kind in builtin_kinds().values():
        registry.add_kind(kind)
