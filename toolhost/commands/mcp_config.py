"""``toolhost mcp-config``: the JSON an MCP client needs to start ``toolhost serve``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from toolhost.commands._argtypes import server_key

HELP = "print the .mcp.json / --mcp-config entry that starts `toolhost serve` for a config"

DESCRIPTION = """\
Print the JSON that Claude Code's .mcp.json (or `claude --mcp-config`), Claude Desktop's
claude_desktop_config.json and other MCP clients need to start `toolhost serve` for this
config over stdio. The config path is made absolute; the command is the `toolhost` found on
PATH (the one installed beside this Python first), or this Python running `-m toolhost`.

The key of the entry (--name) is the name the model sees tools under: mcp__<name>__<tool>.

The config is loaded and its tools compiled first; a config with errors prints them and
no entry (exit 1). To add the entry to an existing .mcp.json or Claude Desktop config
without touching its other servers, use `toolhost install` instead of redirecting.

Examples:
  toolhost mcp-config team.yaml --server git
  toolhost mcp-config team.yaml --server git --name git --watch
  claude --mcp-config "$(toolhost mcp-config team.yaml --server git)" -p "..."
  claude mcp add-json git "$(toolhost mcp-config team.yaml --server git --entry-only)"
"""


def add_arguments(parser: argparse.ArgumentParser, *, printed: bool = True) -> None:
    """The entry's options; ``printed``: this command prints it (``install`` writes it, so
    ``--entry-only`` would be taken and do nothing there)."""
    parser.add_argument("config", help="the config file (YAML or TOML)")
    # --all with --server would serve every server, not the ones named
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--server", "-s", action="append", default=[], metavar="NAME",
                       help="server(s) to serve (repeatable; default: the only one)")
    which.add_argument("--all", action="store_true", dest="all_servers",
                       help="serve every toolhost server of the config")
    parser.add_argument("--name", metavar="KEY", type=server_key,
                        help="the entry's key (default: the server's name, or 'toolhost')")
    parser.add_argument("--watch", action="store_true",
                        help="make the server reload when the config changes")
    if printed:
        parser.add_argument("--entry-only", action="store_true",
                            help="print only the entry (for `claude mcp add-json NAME ...`)")
    parser.add_argument("--no-check", action="store_true",
                        help="do not load the config first (print even if it has errors)")


def command_prefix() -> list[str]:
    """How to start toolhost: the script beside this Python (same install), the one on PATH,
    or this Python with ``-m toolhost``."""
    beside = os.path.join(os.path.dirname(sys.executable), "toolhost")
    if os.access(beside, os.X_OK):
        return [beside]
    import shutil  # here: `toolhost --help` imports every command module

    found = shutil.which("toolhost")
    if found:
        return [os.path.abspath(found)]
    return [sys.executable, "-m", "toolhost"]


def server_entry(config: str, servers: list[str], *, every: bool = False,
                 watch: bool = False, project: str | None = None) -> dict[str, Any]:
    """The stdio server entry that starts ``toolhost serve`` for ``config``. With
    ``project`` (the directory of a project's .mcp.json, a file a team commits), the entry
    holds no path of this machine: ``toolhost`` from PATH, and the config relative to the
    project (``serve --project-relative``)."""
    if project is not None:
        from pathlib import Path

        where = Path(os.path.relpath(os.path.abspath(config), os.path.abspath(project)))
        prefix = ["toolhost"]
        args = ["serve", "--project-relative", where.as_posix()]
    else:
        prefix = command_prefix()
        args = [*prefix[1:], "serve", os.path.abspath(config)]
    for name in servers:
        args += ["--server", name]
    if every:
        args.append("--all")
    if watch:
        args.append("--watch")
    return {"type": "stdio", "command": prefix[0], "args": args}


def checked_entry(args: argparse.Namespace, *, project: str | None = None
                  ) -> tuple[str, dict[str, Any]]:
    """The entry's key and the entry for ``args`` (config, --server, --all, --name, --watch,
    --no-check). Unless --no-check, the config must load and every tool compile: an entry
    for a server that cannot start would only fail later, inside the client."""
    servers = list(args.server)
    key = args.name
    if not args.no_check or key is None:
        from toolhost.commands._configs import close, compile_config, redacted
        from toolhost.config import load_config
        from toolhost.errors import ConfigError
        from toolhost.serve.build import choose_servers

        config = load_config(args.config)
        chosen = choose_servers(config, servers, every=args.all_servers)
        if not args.no_check:
            try:
                close(compile_config(config))
            except ConfigError as exc:
                raise ConfigError(redacted(config, exc.problems)) from None
        if not args.all_servers and not servers:
            servers = list(chosen)  # pin the choice so a later second server changes nothing
        if key is None:
            key = chosen[0] if len(chosen) == 1 else "toolhost"
    return key, server_entry(args.config, servers, every=args.all_servers, watch=args.watch,
                             project=project)


def main(args: argparse.Namespace) -> int:
    key, entry = checked_entry(args)
    out = entry if args.entry_only else {"mcpServers": {key: entry}}
    print(json.dumps(out, indent=2))
    return 0
