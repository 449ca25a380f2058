"""Shared by every test directory: HostConfig objects built directly (the loader is tested in
tests/config)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from toolhost.config.model import BackendSpec, HostConfig, Origin, ServerConfig, ToolConfig


def make_config(tools: dict[str, dict[str, Any]], *, server: str = "demo",
                **server_kw: Any) -> HostConfig:
    """``tools``: name -> {"kind": ..., "options": {...}, plus ToolConfig fields}."""
    built = {}
    for line, (name, spec) in enumerate(tools.items(), start=3):
        spec = dict(spec)
        kind, options = spec.pop("kind"), spec.pop("options")
        origin = Origin("test.yaml", line, 5, f"servers.{server}.tools.{name}")
        backend = BackendSpec(kind, options, Origin("test.yaml", line + 1, 7,
                                                    f"{origin.key_path}.{kind}"))
        built[name] = ToolConfig(name=name, server=server, backend=backend, origin=origin, **spec)
    return HostConfig(version=1, servers={server: ServerConfig(name=server, tools=built,
                                                               **server_kw)})


@pytest.fixture
def config() -> Callable[..., HostConfig]:
    """``config(tools, server=..., **ServerConfig fields)`` -> HostConfig (see make_config)."""
    return make_config
