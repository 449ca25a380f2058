"""toolhost: MCP servers and tools declared in YAML or TOML, hosted for Claude agents.

The public API. The heavier names load on first use, so ``import toolhost`` stays cheap::

    import toolhost

    config = toolhost.load_config("tools.yaml")      # HostConfig, or ConfigError with every problem
    host = toolhost.load_host("tools.yaml")          # compiled servers + permission policy
    sdk = toolhost.load("tools.yaml")                # for claude_agent_sdk.ClaudeAgentOptions
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolhost.compile import compile_tools
    from toolhost.config import HostConfig, load_config
    from toolhost.errors import (
        CLINotFoundError,
        CompileError,
        ConfigError,
        PluginError,
        Problem,
        ProtocolError,
        RunnerError,
        ToolhostError,
    )
    from toolhost.host import Host, load_host
    from toolhost.plugins import tool
    from toolhost.results import ToolResult
    from toolhost.sdk import load

__version__ = "0.1.0"

# Python 3.11.0-3.11.4 misread possessive repeats (``X*+``), which toolhost's patterns use:
# before any of them is compiled, on those releases only (toolhost/re_possessive.py)
from toolhost.re_possessive import install as _install_possessive

_install_possessive()

# public name -> module that defines it
_LAZY = {
    # the errors and ToolResult too: ``toolhost --help`` (and a usage error) needs neither
    **dict.fromkeys(("CLINotFoundError", "CompileError", "ConfigError", "PluginError",
                     "Problem", "ProtocolError", "RunnerError", "ToolhostError"),
                    "toolhost.errors"),
    "ToolResult": "toolhost.results",
    "HostConfig": "toolhost.config",
    "load_config": "toolhost.config",
    "compile_tools": "toolhost.compile",
    "Host": "toolhost.host",
    "load_host": "toolhost.host",
    "load": "toolhost.sdk",
    "tool": "toolhost.plugins",
}

__all__ = [
    "CLINotFoundError",
    "CompileError",
    "ConfigError",
    "Host",
    "HostConfig",
    "PluginError",
    "Problem",
    "ProtocolError",
    "RunnerError",
    "ToolResult",
    "ToolhostError",
    "__version__",
    "compile_tools",
    "load",
    "load_config",
    "load_host",
    "tool",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'toolhost' has no attribute {name!r}")
