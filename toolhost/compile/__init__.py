"""Config model -> compiled tools: backends bound, schemas generated and checked, validators built.

``compile_tools(config)`` is the entry point; ``CompiledTool`` is what the MCP core lists and
calls.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolhost.compile.build import CompiledTools, compile_tool, compile_tools
    from toolhost.compile.tool import DEFAULT_MAX_OUTPUT_CHARS, CompiledTool

# Loaded on first use, so that ``import toolhost.compile.signature`` (an isolated tool's worker
# process needs it) does not pull in jsonschema and the whole compile step.
_LAZY = {"CompiledTools": "build", "compile_tool": "build", "compile_tools": "build",
         "DEFAULT_MAX_OUTPUT_CHARS": "tool", "CompiledTool": "tool"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"toolhost.compile.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'toolhost.compile' has no attribute '{name}'")


__all__ = ["DEFAULT_MAX_OUTPUT_CHARS", "CompiledTool", "CompiledTools", "compile_tool",
           "compile_tools"]
