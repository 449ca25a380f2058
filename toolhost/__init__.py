"""toolhost: MCP servers and tools declared in YAML or TOML, hosted for Claude agents."""

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
from toolhost.results import ToolResult

__version__ = "0.1.0"

__all__ = [
    "CLINotFoundError",
    "CompileError",
    "ConfigError",
    "PluginError",
    "Problem",
    "ProtocolError",
    "RunnerError",
    "ToolResult",
    "ToolhostError",
    "__version__",
]
