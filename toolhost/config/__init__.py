"""Config files (YAML and TOML, one grammar) to a frozen ``HostConfig``."""

from toolhost.config.model import (
    BackendSpec,
    HostConfig,
    Origin,
    PermissionsConfig,
    PluginRequirement,
    RuleConfig,
    RunConfig,
    ServerConfig,
    ServerDefaults,
    ToolConfig,
)

__all__ = [
    "BackendSpec",
    "HostConfig",
    "Origin",
    "PermissionsConfig",
    "PluginRequirement",
    "RuleConfig",
    "RunConfig",
    "ServerConfig",
    "ServerDefaults",
    "ToolConfig",
]
