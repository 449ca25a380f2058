"""``toolhost install CLIENT CONFIG``: merge a ``toolhost serve`` entry into a client's file."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

HELP = "add the server to Claude Code (.mcp.json or user scope) or Claude Desktop, merging"

DESCRIPTION = """\
Add an entry that starts `toolhost serve CONFIG` to an MCP client's config file, keeping
every other server and setting of that file as it was:

  claude-code     ./.mcp.json (--scope project, the default: commit it for your team)
                  or ~/.claude.json (--scope user: every project of yours)
  claude-desktop  claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/,
                  Windows: %APPDATA%\\Claude\\, Linux: ~/.config/Claude/)

The config is loaded and its tools compiled first (an entry for a broken config is never
written). An existing file is copied to FILE.bak-<time> before it changes, and written
atomically. An entry of the same name that differs is left alone unless --force.
--dry-run prints the diff and writes nothing. --file writes to another file.

Examples:
  toolhost install claude-code toolhost.yaml --dry-run
  toolhost install claude-code toolhost.yaml --server git
  toolhost install claude-code toolhost.yaml --scope user --name team-tools
  toolhost install claude-desktop toolhost.yaml --all --name toolhost
"""

CLIENTS = ("claude-code", "claude-desktop")
MAX_CLIENT_FILE = 64 * 1024 * 1024  # ~/.claude.json grows with history; far below this


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from toolhost.commands.mcp_config import add_arguments as entry_arguments

    parser.add_argument("client", choices=CLIENTS, help="which client's config to edit")
    entry_arguments(parser)
    parser.add_argument("--scope", choices=("project", "user"), default="project",
                        help="claude-code only: ./.mcp.json (project) or ~/.claude.json (user)")
    parser.add_argument("--file", metavar="PATH", help="edit this file instead")
    parser.add_argument("--dry-run", action="store_true", help="print the diff, write nothing")
    parser.add_argument("--force", action="store_true",
                        help="replace an existing entry of the same name that differs")


def client_file(client: str, scope: str, environ: os._Environ[str] | dict[str, str]
                = os.environ) -> Path:
    """Where ``client`` keeps its MCP servers on this platform."""
    home = Path(environ.get("HOME") or Path.home())
    if client == "claude-code":
        return home / ".claude.json" if scope == "user" else Path.cwd() / ".mcp.json"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    if sys.platform == "win32":
        appdata = environ.get("APPDATA") or str(home / "AppData" / "Roaming")
        return Path(appdata) / "Claude" / "claude_desktop_config.json"
    base = environ.get("XDG_CONFIG_HOME") or str(home / ".config")
    return Path(base) / "Claude" / "claude_desktop_config.json"


def read_client_file(path: Path) -> dict[str, Any]:
    """The file's JSON object ({} if there is no file); ToolhostError if it is not one."""
    from toolhost.errors import ConfigError, Problem

    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return {}
    if size > MAX_CLIENT_FILE:
        raise ConfigError([Problem(f"{size:,} bytes: too large to edit safely", str(path))])
    text = path.read_text(encoding="utf-8", errors="replace")
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError([Problem(f"not valid JSON: {exc.msg}; nothing was changed",
                                   str(path), exc.lineno, exc.colno)]) from None
    except RecursionError:
        raise ConfigError([Problem("not valid JSON: nested too deeply", str(path))]) from None
    if not isinstance(data, dict):
        raise ConfigError([Problem("expected a JSON object; nothing was changed", str(path))])
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise ConfigError([Problem("'mcpServers' is not an object; nothing was changed",
                                   str(path), key_path="mcpServers")])
    return data


def main(args: argparse.Namespace) -> int:
    from toolhost.commands.mcp_config import checked_entry

    key, entry = checked_entry(args)
    if args.client == "claude-desktop":
        entry = {k: v for k, v in entry.items() if k != "type"}  # Desktop: command + args
    path = Path(args.file) if args.file else client_file(args.client, args.scope)
    data = read_client_file(path)
    servers = dict(data.get("mcpServers", {}))
    if servers.get(key) == entry:
        print(f"{path}: {key!r} is already installed, unchanged")
        return 0
    if key in servers and not args.force:
        print(f"{path}: an entry {key!r} exists and differs:\n"
              f"  now:  {json.dumps(servers[key])}\n  ours: {json.dumps(entry)}\n"
              "Pass --force to replace it, or --name to add ours under another name.",
              file=sys.stderr)
        return 1
    servers[key] = entry
    new_text = json.dumps({**data, "mcpServers": servers}, indent=2, ensure_ascii=False) + "\n"
    old_text = path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""
    if args.dry_run:
        import difflib  # here: `toolhost --help` imports every command module

        sys.stdout.writelines(difflib.unified_diff(
            old_text.splitlines(keepends=True), new_text.splitlines(keepends=True),
            str(path), f"{path} (with {key})"))
        print(f"(dry run: {path} not written)")
        return 0
    backup = _write(path, old_text, new_text)
    print(f"{path}: {'replaced' if key in data.get('mcpServers', {}) else 'added'} {key!r}"
          + (f" (backup: {backup})" if backup else ""))
    if args.client == "claude-code" and args.scope == "project":
        print("Claude Code asks once before it starts a project server; `claude mcp list` "
              "shows it.")
    else:
        print(f"Restart {'Claude Desktop' if args.client == 'claude-desktop' else 'Claude Code'}"
              " to pick it up.")
    return 0


def _write(path: Path, old_text: str, new_text: str) -> Path | None:
    """Back up (if there was a file) and replace atomically, keeping the file's mode."""
    backup = None
    mode = 0o644
    if path.exists():
        mode = path.stat().st_mode & 0o7777
        backup = path.with_name(f"{path.name}.bak-{time.strftime('%Y%m%d-%H%M%S')}")
        backup.write_text(old_text, encoding="utf-8")
        os.chmod(backup, mode)
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # here: `toolhost --help` imports every command module

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(new_text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return backup
