"""``validate``'s warning for a python tool bound to another module than its own.

A tool's config directories are appended to ``sys.path``, after the interpreter's own
entries: an installed module of the same name comes first (documented: an installed module
wins). When it lacks the named function the compile error says so (``python_import``'s
shadow hint); when it has one, the tool is bound to *that* function, and nothing said so.
``shadowed_module_warnings`` does, naming both files. It asks only each tool's own
directories (one ``PathFinder`` lookup over at most ``path:``'s 100 entries and the config's
directory), so its cost is linear in the tools; the module imported is read from
``sys.modules`` (the tools were compiled first).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from importlib.machinery import PathFinder
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolhost.config.model import HostConfig, ToolConfig
    from toolhost.errors import Problem

__all__ = ["shadowed_module_warnings"]


def shadowed_module_warnings(config: HostConfig) -> list[Problem]:
    """A warning for each python tool whose top-level module its own directories hold, but
    whose ``import`` gave another file (call after compiling the tools)."""
    warnings: list[Problem] = []
    for server in config.servers.values():
        for tool in server.tools.values():
            if tool.backend.kind == "python":
                found = _shadowed(tool)
                if found is not None:
                    top, mine, theirs = found
                    warnings.append(tool.backend.origin.problem(
                        f"python tool '{tool.name}': its module '{top}' is {mine}, but "
                        f"`import {top}` gives {theirs}, which comes first on sys.path: the "
                        "tool runs that module's function, not yours",
                        hint=f"rename {os.path.basename(mine)} (and the tool's function "
                             "reference), or remove the other module from this environment"))
    return warnings


def _shadowed(tool: ToolConfig) -> tuple[str, str, str] | None:
    """(module, the tool's own file, the file imported instead), or None. Not for a tool
    whose compile failed (the other module lacks the function, two config directories
    clash): its error says it."""
    from toolhost.backends.module_origin import _places, _shown, check_origin

    options: Any = tool.backend.options
    ref = options.get("function") if isinstance(options, Mapping) else None
    if not isinstance(ref, str) or ":" not in ref:
        return None
    module, _, attrs = ref.partition(":")
    top = module.split(".")[0]
    loaded = sys.modules.get(top)
    dirs = _directories(tool.backend.origin.file, options.get("path"))
    if loaded is None or not top or not dirs or not _has(sys.modules.get(module), attrs):
        return None  # not bound (its compile error says why), or no directory of its own
    try:
        own = PathFinder.find_spec(top, dirs)
        if own is None or check_origin(module, dirs):
            return None
    except (ImportError, ValueError):
        return None
    mine, theirs = _places(own), _places(loaded)
    if not mine or not theirs or mine & theirs:
        return None
    return top, _shown(own), _shown(loaded)


def _has(module: Any, attrs: str) -> bool:
    """Whether ``module`` has the dotted attribute path ``attrs`` (what the tool bound)."""
    obj = module
    for part in attrs.split("."):
        if obj is None or not part:
            return False
        try:
            obj = getattr(obj, part)
        except Exception:  # a module's __getattr__ that raises: not bound either
            return False
    return obj is not None


def _directories(config_file: str, extra: Any) -> list[str]:
    """The directories ``python_import.extend_import_path`` put on ``sys.path`` for a tool:
    its config's directory, then its ``path:`` entries."""
    if not os.path.isfile(config_file):
        return []
    base = os.path.dirname(os.path.abspath(config_file))
    entries = [extra] if isinstance(extra, str) else \
        [e for e in extra if isinstance(e, str)] if isinstance(extra, list) else []
    return [base, *(os.path.normpath(os.path.join(base, e)) for e in entries)]
