"""Resource reads, resource lists and prompts/get of a server a rule names whole: "deny the
server" is read as "nothing from it"."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from toolhost.permissions.decision import Decision
from toolhost.permissions.rules import CompiledRule

__all__ = ["SERVER_READS", "server_read", "server_wide"]

# built-in tools that reach a server's resources and prompts: a rule naming the whole server
# holds them back too
# (ReadMcpResourceDirTool lists a directory resource's children: the CLI's 2.1.330)
SERVER_READS = frozenset({"ReadMcpResourceTool", "ListMcpResourcesTool", "GetMcpPromptTool",
                          "ReadMcpResourceDirTool"})
_WIRE_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def server_wide(rules: Iterable[CompiledRule],
                tool_input: Mapping[str, Any]) -> CompiledRule | None:
    """The first deny or ask rule naming a whole server (``mcp__kb``, ``mcp__kb__*``,
    ``mcp__k*``) that a resource read, resource list or prompts/get of that server meets
    (``rules`` in evaluation order: denies, asks, allows). A call naming no server (or not as
    a string) meets every rule naming a server, and every glob naming every server. Only a
    rule with no content, ``when`` or ``expr`` (those test a tool's arguments); one with
    ``callers`` when the caller is one it names."""
    server = tool_input.get("server")
    wire = _WIRE_UNSAFE.sub("_", server) if isinstance(server, str) else None
    for rule in rules:
        if rule.effect == "allow":
            return None
        if rule.content is not None or rule.conditions or rule.expr is not None or (
                rule.callers is not None  # (a caller rule: when the caller is its own)
                and not rule.callers.admits_current(strict=False)):
            continue
        if rule.names.server is not None:
            if wire is None or rule.names.server == wire:
                return rule
        elif rule.names.glob is not None and all(  # every tool of it: any name, any length
                rule.names.glob.fullmatch(f"mcp__{wire or chr(0)}__{tool}")
                for tool in ("\x01", "\x01\x02\x03")):
            return rule
    return None


def server_read(wide: CompiledRule, stricter: CompiledRule | None) -> Decision:
    """A read of a server a server-wide rule names: denied by a deny, asked by an ask
    (unless ``stricter``, the tool's own first matching deny or ask rule, denies it)."""
    if wide.effect == "ask":
        if stricter is None or stricter.effect != "deny":
            return Decision("ask", wide.message or "", rule=wide.text, origin=wide.origin)
        wide = stricter
    return Decision("deny", wide.message or f"Denied by permission rule {wide.text!r} "
                    f"({wide.origin}), which names the whole server: its resources and "
                    "prompts too.", rule=wide.text, origin=wide.origin)
