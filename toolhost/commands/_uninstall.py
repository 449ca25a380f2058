"""``toolhost install CLIENT CONFIG --uninstall``: remove the entry install wrote."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toolhost.commands.install import (
    _BY_HAND,
    _UNCHANGED,
    _write,
    dump_client_file,
    read_client_text,
)


def uninstall(args: argparse.Namespace, path: Path) -> int:
    """Remove the entry ``args`` names from ``path``, as install writes (backup, atomic,
    every other value kept); nothing to remove is said, exit 0 (it is not there)."""
    from toolhost.errors import ToolhostError

    key = args.name
    if key is None:
        from toolhost.commands.mcp_config import checked_entry

        args.no_check = True  # only the name is wanted: a broken config still has one
        try:
            key = checked_entry(args)[0]
        except ToolhostError as exc:
            raise ToolhostError(f"{exc} (the entry's name comes from the config; or name "
                                "it: --uninstall --name KEY)") from None
    old_text, data = read_client_text(path)
    servers = dict(data.get("mcpServers", {}))
    if key not in servers:
        print(f"{path}: no entry {key!r}; nothing was changed"
              + (f" (its entries: {', '.join(map(repr, sorted(servers)[:10]))})"
                 if servers else ""))
        return 0
    del servers[key]
    try:
        new_text = dump_client_file({**data, "mcpServers": servers})
    except ValueError as exc:
        raise ToolhostError(f"{path}: {exc}; {_UNCHANGED} ({_BY_HAND})") from None
    if args.dry_run:
        import difflib

        sys.stdout.writelines(difflib.unified_diff(
            old_text.splitlines(keepends=True), new_text.splitlines(keepends=True),
            str(path), f"{path} (without {key})"))
        print(f"(dry run: {path} not written)")
        return 0
    try:
        backup = _write(path, old_text, new_text)
    except OSError as exc:
        raise ToolhostError(f"{path}: cannot write: {exc.strerror or exc}; the file is as it "
                            "was") from None
    print(f"{path}: removed {key!r}" + (f" (backup: {backup})" if backup else ""))
    return 0
