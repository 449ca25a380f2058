"""``toolhost run``: find and start the Claude CLI, serve it, drive turns, show the session."""

from toolhost.runner.command import CliCommand, RunOptions, build_command, mcp_config
from toolhost.runner.discovery import bundled_cli, find_cli
from toolhost.runner.process import CliSession, open_cli
from toolhost.runner.render import JsonRenderer, Renderer, TextRenderer, make_renderer
from toolhost.runner.run import RunReport, run_host

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
