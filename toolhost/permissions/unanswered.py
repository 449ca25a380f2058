"""The start-up note for a policy whose "ask" nobody can answer.

With the default ``ask`` and no one to ask (``serve`` to a client that cannot elicit; ``run``
without a terminal; ``ask_mode: deny``), every call no allow rule covers is denied. That is
the safe answer, but a silent one: this module says once, at start, which declared tools
will always be denied and how to allow them.
"""

from __future__ import annotations

from toolhost.config.model import HostConfig
from toolhost.errors import Problem

__all__ = ["always_denied", "unanswered_note"]

_SHOWN = 8


def always_denied(config: HostConfig) -> list[str]:
    """Declared tools no allow rule can match, or that an unconditional ask rule catches,
    when asks are denied (deny rules aside: those are denied on purpose)."""
    from toolhost.permissions.names import parse_name_pattern

    allows, asks = [], []
    for rule in config.permissions.rules:
        try:
            pattern = parse_name_pattern(rule.tool.strip().split("(", 1)[0])
        except ValueError:
            continue
        if rule.effect == "allow":
            allows.append(pattern)
        elif rule.effect == "ask" and "(" not in rule.tool and not rule.when and not rule.expr:
            asks.append(pattern)
    # each rule looked up in an index of the tools, not tried on every one: tools x rules
    # held a 10,000-tool start for minutes
    from toolhost.permissions.targets import NameIndex

    names = NameIndex([t.wire_name for s in config.servers.values() for t in s.tools.values()])
    allowed = {n for p in allows for n in names.matching(p)}
    caught = {n for p in asks for n in names.matching(p)}
    return [n for n in names.names if n in caught or n not in allowed]


def unanswered_note(config: HostConfig, where: str, *, nobody: bool = False) -> Problem | None:
    """The note for ``where`` (``validate``, ``serve``, ``run``), or None when asks can be
    answered or the default is not ``ask``. ``nobody``: the caller knows no one can be asked
    (serve, no terminal); otherwise only ``ask_mode: deny`` or (for ``validate``) the
    possibility of serve counts."""
    perms = config.permissions
    if perms.default != "ask" or perms.ask_mode == "allow":
        return None
    denied = always_denied(config)
    if not denied:
        return None
    if perms.ask_mode == "deny":
        when = "ask_mode is deny"
    elif nobody and where == "serve":
        when = ("under serve only an MCP client that supports elicitation can answer an ask "
                "(its person is asked)")
    elif nobody:
        when = (f"nobody can answer an ask under {where}" if where
                else "nobody here can answer an ask")
    elif where == "validate":
        when = ("under `serve` to an MCP client that does not support elicitation, or `run` "
                "without a terminal, nobody can answer an ask")
    else:
        return None
    shown = ", ".join(denied[:_SHOWN]) + (f" (+{len(denied) - _SHOWN:,} more)"
                                          if len(denied) > _SHOWN else "")
    # where the default was written; left unset, the config's own file (not the first
    # file that had a `permissions:` block, which may be a team repository's fragment)
    origin = config.origins.get("permissions.default")
    file = origin.file if origin else (config.files[0] if config.files else "<config>")
    line = origin.line if origin else 0
    from toolhost.config.repolinks import name_checkouts  # a repository's file: say which

    [note] = name_checkouts([Problem(
        f"note: the default is ask and {when}, so these tools are always denied"
        f"{' for other clients' if where == 'serve' and nobody else ''}: {shown}",
        file, line, 0, "permissions.default" if origin else "",
        "allow them with permissions.allow rules (e.g. 'mcp__<server>'), or set "
        "permissions.default: allow or ask_mode: allow")])
    return note
