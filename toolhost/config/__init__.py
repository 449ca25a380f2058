"""Config files (YAML and TOML, one grammar) to a frozen ``HostConfig``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from toolhost.config.model import (
    BackendSpec,
    HostConfig,
    Origin,
    PermissionsConfig,
    PluginRequirement,
    RuleConfig,
    RunConfig,
    ServeConfig,
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
    "ServeConfig",
    "ServerConfig",
    "ServerDefaults",
    "ToolConfig",
    "load_config",
]


if TYPE_CHECKING:
    from toolhost.backends.base import BackendKind


def load_config(path: str | os.PathLike[str], *, kinds: Mapping[str, BackendKind] | None = None,
                environ: Mapping[str, str] | None = None, layers: bool = True) -> HostConfig:
    """Load a config file with its extends and layers; see ``toolhost.config.loader``.

    Raises ``ConfigError`` listing every problem found (file, line, column, key path).
    """
    from toolhost.config.loader import load_config as load

    return load(path, kinds=kinds, environ=environ, layers=layers)
