"""``toolhost install CLIENT CONFIG``: merge a ``toolhost serve`` entry into a client's file."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

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
atomically (a symlink is written through: its target changes, the link stays), with its
indentation, line ends and \\u escapes as they were. A file that
cannot be rewritten with every other value kept exactly -- not a regular file, not UTF-8,
NaN, Infinity or 1e400, a key given twice -- is refused, one located line, and left as it
was. An entry of the same name that differs is left alone unless --force.
--dry-run prints the diff and writes nothing. --file writes to another file.
--uninstall removes the entry again the same way (backup, every other value kept).

A project's .mcp.json is committed, so the entry written there holds no path of this
machine: it starts `toolhost` from PATH with the config relative to the project
(`toolhost serve --project-relative toolhost.yaml`: read from the nearest directory up
that holds .mcp.json, since Claude Code starts a project's servers in the directory it
was started in, a subdirectory too). --absolute writes this machine's paths instead, as
the user scope and Claude Desktop always do.

Examples:
  toolhost install claude-code toolhost.yaml --dry-run
  toolhost install claude-code toolhost.yaml --server git
  toolhost install claude-code toolhost.yaml --scope user --name team-tools
  toolhost install claude-desktop toolhost.yaml --all --name toolhost
  toolhost install claude-code toolhost.yaml --uninstall
"""

CLIENTS = ("claude-code", "claude-desktop")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from toolhost.commands.mcp_config import add_arguments as entry_arguments

    parser.add_argument("client", choices=CLIENTS, help="which client's config to edit")
    entry_arguments(parser, printed=False)
    parser.add_argument("--scope", choices=("project", "user"), default=None,
                        help="claude-code only: ./.mcp.json (project) or ~/.claude.json (user)")
    parser.add_argument("--file", metavar="PATH", help="edit this file instead")
    parser.add_argument("--dry-run", action="store_true", help="print the diff, write nothing")
    parser.add_argument("--force", action="store_true",
                        help="replace an existing entry of the same name that differs")
    parser.add_argument("--uninstall", action="store_true",
                        help="remove the entry instead (named by --name, else as install "
                        "names it), keeping the rest of the file")
    parser.add_argument("--absolute", action="store_true",
                        help="claude-code project scope: write this machine's paths (the "
                        "toolhost script, the config) instead of `toolhost` from PATH and "
                        "the config relative to the project")


def main(args: argparse.Namespace) -> int:
    from toolhost.commands._client_file import client_file, read_client_text, save_servers
    from toolhost.commands._install_checks import check_path, check_top
    from toolhost.commands.mcp_config import checked_entry

    _refuse_unused(args)
    args.scope = args.scope or "project"
    path = Path(args.file) if args.file else client_file(args.client, args.scope)
    if args.file and not os.path.isdir(path.parent or "."):
        from toolhost.errors import ToolhostError

        # a client's directory exists once the client has run: a missing one is a typo
        # (~/.claude/ for ~/.claud/), which would be created and "added" to in silence
        what = "is not a directory" if os.path.lexists(path.parent) else "does not exist"
        raise ToolhostError(f"--file {args.file}: {path.parent} {what}; nothing was written "
                            "(check the path, or create the directory first)")
    if args.uninstall:
        from toolhost.commands._uninstall import uninstall

        return uninstall(args, path)
    project = _project_of(args, path)
    key, entry = checked_entry(args, project=project)
    if args.client == "claude-desktop":
        entry = {k: v for k, v in entry.items() if k != "type"}  # Desktop: command + args
    old_text, data = read_client_text(path)
    servers = dict(data.get("mcpServers", {}))
    if servers.get(key) == entry:
        print(f"{path}: {key!r} is already installed, unchanged")
        if project is not None:
            check_path()
        return 0
    if key in servers and not args.force:
        old_args = servers[key].get("args") if isinstance(servers[key], dict) else None
        why = ""
        if project is not None and isinstance(old_args, list) \
                and os.path.abspath(args.config) in old_args:  # an older toolhost's entry
            why = ("It holds this machine's paths, as toolhost wrote project entries before "
                   "(a colleague's checkout has others); ours does not. ")
        print(f"{path}: an entry {key!r} exists and differs:\n"
              f"  now:  {json.dumps(servers[key])}\n  ours: {json.dumps(entry)}\n"
              f"{why}Pass --force to replace it, or --name to add ours under another name.",
              file=sys.stderr)
        return 1
    servers[key] = entry
    done = "replaced" if key in data.get("mcpServers", {}) else "added"
    # no directory of Claude Desktop's: it is not installed for this user (or keeps its
    # file elsewhere); the file is written for when it is, and said so
    no_desktop = args.client == "claude-desktop" and not args.file \
        and not os.path.lexists(path.parent)
    if not save_servers(path, old_text, data, servers, f"with {key}", f"{done} {key!r}",
                        dry_run=args.dry_run):
        return 0
    if args.client == "claude-code" and args.scope == "project":
        print("Claude Code asks once before it starts a project server; `claude mcp list` "
              "shows it.")
        check_top(path, args.config)
        if project is not None:
            _say_portable(path)
        elif not args.absolute and path.name == ".mcp.json":
            print(f"The config is outside {path.parent}: the entry holds this machine's "
                  "absolute paths (a colleague's checkout has others).")
    elif no_desktop:
        print(f"{path.parent} did not exist (created): Claude Desktop is not installed for "
              "this user, or keeps its file elsewhere (pass --file PATH then). Claude "
              "Desktop reads this file once it is installed"
              + (" (it is published for macOS and Windows; on Linux only unofficial builds "
                 "read it)" if sys.platform.startswith("linux") else "") + ".")
    else:
        print(f"Restart {'Claude Desktop' if args.client == 'claude-desktop' else 'Claude Code'}"
              " to pick it up.")
    return 0


def _refuse_unused(args: argparse.Namespace) -> None:
    """A flag this install would take and then not use is a usage error (exit 2): the
    author believes it did something (``--scope user`` for Claude Desktop, which has one
    file; ``--uninstall --force``, which removes what is there anyway)."""
    unused = []
    if args.client == "claude-desktop" and args.scope is not None:
        unused.append(("--scope", "Claude Desktop has one config file (claude-code only)"))
    if args.uninstall:
        why = "--uninstall only removes the entry"
        unused += [(flag, why) for flag, given in (
            ("--watch", args.watch), ("--no-check", args.no_check), ("--force", args.force),
            ("--absolute", args.absolute)) if given]
    if unused:
        flags = ", ".join(flag for flag, _ in unused)
        print(f"toolhost install: "
              f"error: {flags}: not used here: {unused[0][1]}; leave "
              f"{'it' if len(unused) == 1 else 'them'} out", file=sys.stderr)
        raise SystemExit(2)


def _project_of(args: argparse.Namespace, path: Path) -> str | None:
    """The project directory a claude-code project-scope entry is written relative to: the
    directory of the .mcp.json, when the config lies inside it (a file the team commits
    holds no path of this machine). None: this machine's absolute paths."""
    if args.client != "claude-code" or args.scope != "project" or args.absolute \
            or path.name != ".mcp.json":
        return None
    project = os.path.abspath(path.parent)
    config = os.path.abspath(args.config)
    return project if os.path.commonpath([project, config]) == project else None


def _say_portable(path: Path) -> None:
    """What a colleague needs for the committed entry to start."""
    from toolhost.commands._install_checks import check_path

    print(f"The entry starts `toolhost` from PATH with the config relative to {path.parent} "
          "(no path of this machine): each colleague needs toolhost installed on PATH.")
    check_path()
