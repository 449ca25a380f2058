"""``toolhost run``: find and start the Claude CLI, serve it, drive turns, show the session.

The names below load on first use: ``toolhost serve`` and ``toolhost call`` import a few of
the runner's modules (``runner.inert_fds``, ``runner.owned_signals``) without paying for the
whole runner at their start."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolhost.runner.command import CliCommand, RunOptions, build_command, mcp_config
    from toolhost.runner.discovery import bundled_cli, find_cli
    from toolhost.runner.process import CliSession, open_cli
    from toolhost.runner.render import JsonRenderer, Renderer, TextRenderer, make_renderer
    from toolhost.runner.run import RunReport, run_host

_WHERE = {
    "CliCommand": "command", "RunOptions": "command", "build_command": "command",
    "mcp_config": "command", "bundled_cli": "discovery", "find_cli": "discovery",
    "CliSession": "process", "open_cli": "process", "JsonRenderer": "render",
    "Renderer": "render", "TextRenderer": "render", "make_renderer": "render",
    "RunReport": "run", "run_host": "run",
}

__all__ = [
    "CliCommand",
    "CliSession",
    "JsonRenderer",
    "Renderer",
    "RunOptions",
    "RunReport",
    "TextRenderer",
    "build_command",
    "bundled_cli",
    "find_cli",
    "make_renderer",
    "mcp_config",
    "open_cli",
    "run_host",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'toolhost.runner' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"toolhost.runner.{where}"), name)
    globals()[name] = value  # once: the next look-up is a plain global
    return value
