"""``toolhost install CLIENT CONFIG``: merge a ``toolhost serve`` entry into a client's file."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolhost.errors import Problem

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
atomically (a symlink is written through: its target changes, the link stays). A file that
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
    parser.add_argument("--uninstall", action="store_true",
                        help="remove the entry instead (named by --name, else as install "
                        "names it), keeping the rest of the file")
    parser.add_argument("--absolute", action="store_true",
                        help="claude-code project scope: write this machine's paths (the "
                        "toolhost script, the config) instead of `toolhost` from PATH and "
                        "the config relative to the project")


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


_UNCHANGED = "nothing was changed"
_BY_HAND = "fix it by hand: toolhost rewrites a file only if it keeps every other value exactly"


def read_client_file(path: Path) -> dict[str, Any]:
    """The file's JSON object ({} if there is no file); ConfigError if it is not one."""
    return read_client_text(path)[1]


def read_client_text(path: Path) -> tuple[str, dict[str, Any]]:
    """The file's text and JSON object (``("", {})`` if there is no file); ConfigError, located,
    if it cannot be read or rewritten exactly.

    It is read as the loader reads configs (a regular file, at most ``MAX_CLIENT_FILE``
    bytes, strict UTF-8: a FIFO or a device is refused without reading it) and parsed
    strictly: what ``json.dumps`` would write back differently (NaN, ``1e400`` as Infinity, a
    key given twice, an integer of 4,000+ digits) is refused rather than changed."""
    from toolhost.errors import ConfigError, Problem
    from toolhost.jsontext import read_json_file

    try:
        path.stat()
    except FileNotFoundError:  # no file yet (or a link to none): it is created
        return "", {}
    except (OSError, ValueError):
        pass  # a symlink loop, a name too long: read_json_file says which
    problems: list[Problem] = []
    read = read_json_file(str(path), problems, what="client config file",
                          limit=MAX_CLIENT_FILE)
    if read is None:
        raise ConfigError([_refusal(p) for p in problems])
    text, data = read
    if not text.strip():
        return text, {}
    if not isinstance(data, dict):
        raise ConfigError([Problem(f"expected a JSON object; {_UNCHANGED}", str(path))])
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise ConfigError([Problem(f"'mcpServers' is not an object; {_UNCHANGED}",
                                   str(path), key_path="mcpServers")])
    return text, data


def _refusal(problem: Problem) -> Problem:
    from dataclasses import replace

    parsed = problem.message.startswith("not valid JSON")  # read, but not as it must be
    return replace(problem, message=f"{problem.message}; {_UNCHANGED}",
                   hint=problem.hint or (_BY_HAND if parsed else ""))


def dump_client_file(data: dict[str, Any]) -> str:
    """``data`` as the client file's new text; ValueError if it would not read back as
    ``data`` (checked by parsing it again, strictly)."""
    from toolhost.jsontext import JsonTextError, parse_json

    text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate ("\ud800" in the file): keep it escaped
        text = json.dumps(data, indent=2, allow_nan=False) + "\n"
    try:
        same = parse_json(text) == data
    except JsonTextError:
        same = False
    if not same:
        raise ValueError("the rewritten file would not hold the same values")
    return text


def main(args: argparse.Namespace) -> int:
    from toolhost.commands._install_checks import check_path, check_top
    from toolhost.commands.mcp_config import checked_entry

    path = Path(args.file) if args.file else client_file(args.client, args.scope)
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
    else:
        print(f"Restart {'Claude Desktop' if args.client == 'claude-desktop' else 'Claude Code'}"
              " to pick it up.")
    return 0


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


def save_servers(path: Path, old_text: str, data: dict[str, Any], servers: dict[str, Any],
                 change: str, done: str, *, dry_run: bool) -> bool:
    """Write ``data`` with ``servers`` as its ``mcpServers`` over ``old_text`` at ``path``
    (backup, atomic, every other value kept) and say ``done`` ("added 'KEY'") and where the
    backup is; on a ``dry_run``, show the diff (``change`` names it: "with KEY") and return
    False instead."""
    from toolhost.errors import ToolhostError

    try:
        new_text = dump_client_file({**data, "mcpServers": servers})
    except ValueError as exc:
        raise ToolhostError(f"{path}: {exc}; {_UNCHANGED} ({_BY_HAND})") from None
    if dry_run:
        import difflib  # here: `toolhost --help` imports every command module

        from toolhost.errors import shown

        # a line of the file (or a name the config gave) shown, never obeyed: an escape
        # sequence or a bidi override in it is written out (\x1b, \u202e)
        sys.stdout.writelines(shown(line.rstrip("\n").replace("\t", "    ")) + "\n"
                              for line in difflib.unified_diff(
            old_text.splitlines(keepends=True), new_text.splitlines(keepends=True),
            str(path), f"{path} ({change})"))
        print(f"(dry run: {path} not written)")
        return False
    try:
        backup = _write(path, old_text, new_text)
    except OSError as exc:
        raise ToolhostError(f"{path}: cannot write: {exc.strerror or exc}; the file is as it "
                            "was") from None
    print(f"{path}: {done}" + (f" (backup: {backup})" if backup else ""))
    return True


def _write(path: Path, old_text: str, new_text: str) -> Path | None:
    """Back up (if there was a file) and replace atomically, keeping the file's mode. A
    symlink (a dotfiles checkout) is written through: its target is replaced, the link
    stays."""
    backup = None
    mode = 0o644
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    if target.exists():
        mode = target.stat().st_mode & 0o7777
        backup = path.with_name(f"{path.name}.bak-{time.strftime('%Y%m%d-%H%M%S')}")
        backup.write_text(old_text, encoding="utf-8")
        os.chmod(backup, mode)
    target.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # here: `toolhost --help` imports every command module

    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".toolhost-install.")  # short
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(new_text)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise
    return backup
