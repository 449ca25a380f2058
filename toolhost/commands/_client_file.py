"""The MCP client config files `install` edits: where each client keeps its servers, read
strictly (a file rewritten only if every other value is kept exactly), written with a backup
and atomically. `install` and `install --uninstall` share them."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolhost.errors import Problem

MAX_CLIENT_FILE = 64 * 1024 * 1024  # ~/.claude.json grows with history; far below this


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
    from toolhost.jsontext import key_position, read_json_file

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
        raise ConfigError([_refusal(p, _at_error(path, p)) for p in problems])
    text, data = read
    if not text.strip():
        return text, {}
    if not isinstance(data, dict):
        raise ConfigError([Problem(f"expected a JSON object; {_UNCHANGED}", str(path),
                                   *key_position(text))])
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise ConfigError([Problem(f"'mcpServers' is not an object; {_UNCHANGED}",
                                   str(path), *key_position(text, "mcpServers"),
                                   key_path="mcpServers")])
    return text, data


def _refusal(problem: Problem, there: str = "") -> Problem:
    from dataclasses import replace

    parsed = problem.message.startswith("not valid JSON")  # read, but not as it must be
    hint = _BY_HAND if parsed else ""
    if parsed and there.lstrip()[:2] in ("//", "/*"):  # a JSONC habit: say what to remove
        hint = ("JSON has no comments: remove the comment there (toolhost rewrites a file "
                "only if it keeps every other value exactly, and a comment cannot be kept)")
    elif parsed and there.lstrip()[:1] in ("}", "]"):
        hint = "JSON allows no comma before a closing bracket: remove the last comma"
    return replace(problem, message=f"{problem.message}; {_UNCHANGED}",
                   hint=problem.hint or hint)


def _at_error(path: Path, problem: Problem) -> str:
    """The text of ``path`` from where ``problem`` points (line, column: 1-based), up to the
    end of that line; "" when it cannot be read again."""
    from toolhost.fileopen import open_regular

    if not problem.message.startswith("not valid JSON") or problem.line < 1:
        return ""
    try:  # (read once already, within the size limit, as a regular file)
        with os.fdopen(open_regular(str(path)), "rb") as handle:
            text = handle.read(MAX_CLIENT_FILE + 1).decode("utf-8", "replace")
    except (OSError, ValueError):
        return ""
    lines = text.split("\n")  # as the parser counts lines (not U+2028)
    if problem.line > len(lines):
        return ""
    return lines[problem.line - 1][max(problem.column - 1, 0):]


def dump_client_file(data: dict[str, Any], like: str = "") -> str:
    """``data`` as the client file's new text, indented as ``like`` (the file's old text)
    is, so a committed .mcp.json's diff shows the entry, not every line re-indented;
    ValueError if it would not read back as ``data`` (checked by parsing it again,
    strictly)."""
    from toolhost.jsontext import JsonTextError, parse_json

    indent, ascii_only = _style(like)
    text = json.dumps(data, indent=indent, ensure_ascii=ascii_only, allow_nan=False) + "\n"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate ("\ud800" in the file): keep it escaped
        text = json.dumps(data, indent=indent, allow_nan=False) + "\n"
    if "\r\n" in like:
        text = text.replace("\n", "\r\n")
    try:
        same = parse_json(text) == data
    except JsonTextError:
        same = False
    if not same:
        raise ValueError("the rewritten file would not hold the same values")
    return text


def _style(text: str) -> tuple[str | int, bool]:
    """The indent (2, 4, a tab, ...) and whether non-ASCII is escaped in ``text`` (a file
    toolhost rewrites keeps them); 2 spaces and raw UTF-8 for a new or flat file."""
    import re

    found = re.search(r"^\{\r?\n([ \t]+)\S", text)
    indent: str | int = 2
    if found is not None and len(found.group(1)) <= 8:
        indent = found.group(1) if "\t" in found.group(1) else len(found.group(1))
    return indent, text.isascii() and "\\u" in text


def save_servers(path: Path, old_text: str, data: dict[str, Any], servers: dict[str, Any],
                 change: str, done: str, *, dry_run: bool) -> bool:
    """Write ``data`` with ``servers`` as its ``mcpServers`` over ``old_text`` at ``path``
    (backup, atomic, every other value kept) and say ``done`` ("added 'KEY'") and where the
    backup is; on a ``dry_run``, show the diff (``change`` names it: "with KEY") and return
    False instead."""
    from toolhost.errors import ToolhostError

    try:
        new_text = dump_client_file({**data, "mcpServers": servers}, old_text)
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
