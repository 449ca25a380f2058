"""The entry point toolhost calls when a config enables ``toolhost-files``."""

from __future__ import annotations

from toolhost.plugins import Registry
from toolhost_files.tools import list_files, read, search

SECRET_REGEX = r"(.*/)?(\.env(\..*)?|.*\.pem|.*\.key|id_rsa.*|id_ed25519.*|\.netrc)"
OUTSIDE_REGEX = r"(/.*|~.*|(.*/)?\.\.(/.*)?)"

SETTINGS_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "root": {"type": "string", "description": "Directory the tools may read (relative "
                 "to the config file)"},
        "deny_globs": {"type": "array", "items": {"type": "string"},
                       "description": "More file names the tools refuse, e.g. '*.sqlite'"},
    },
}


def register(registry: Registry) -> None:
    """Add the ``files`` server (list, search, read) and rules that travel with it."""
    registry.set_settings_schema(SETTINGS_SCHEMA)
    registry.add_server("files", description="Search and read files under one root directory",
                        timeout=30)
    for func in (list_files, search, read):
        registry.add_tool(func, server="files")
    # The tools refuse these paths themselves; the rules make the refusal visible in
    # `toolhost permissions` and stop the call before it runs.
    registry.add_rules(
        deny=[
            {"tool": "mcp__files__read", "when": {"path": {"regex": SECRET_REGEX}},
             "message": "toolhost-files: that file may hold secrets"},
            {"tool": "mcp__files__read", "when": {"path": {"regex": OUTSIDE_REGEX}},
             "message": "toolhost-files: paths are relative to the files root, without '..'"},
        ],
        allow=["mcp__files__list", "mcp__files__search", "mcp__files__read"],
    )
    registry.add_fragment("presets/readonly.yaml", "ask before anything but toolhost-files")
