"""``toolhost install CLIENT CONFIG --uninstall``: remove the entry install wrote."""

from __future__ import annotations

import argparse
from pathlib import Path

from toolhost.commands._client_file import read_client_text, save_servers


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
    save_servers(path, old_text, data, servers, f"without {key}", f"removed {key!r}",
                 dry_run=args.dry_run)
    return 0
