"""Wire names (``mcp__<server>__<tool>``) must name exactly one tool.

The CLI, the permission rules and ``toolhost call`` all read a wire name by splitting it at the
first ``__`` after ``mcp__``. A server named ``git_`` with a tool ``log`` is ``mcp__git___log``,
which reads as server ``git``, tool ``_log``: a deny on ``mcp__git_`` would miss it and an allow
on ``mcp__git`` would grant it. So a server name may not contain ``__`` or end with ``_``, a tool
name may not contain ``__`` or start with ``_``, and no two tools (the config's own, or an
external server's once its tools are listed) may share a wire name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from toolhost.config.model import Origin, ServerConfig
from toolhost.errors import Problem

__all__ = ["MAX_WIRE_NAME", "case_notes", "name_problem", "wire_name_collisions",
           "wire_name_problems"]

MAX_WIRE_NAME = 64  # ``mcp__<server>__<tool>`` in all: the Messages API's limit on a tool name


def _readings(wire: str) -> list[tuple[str, str]]:
    rest = wire[5:]
    return [(rest[:k], rest[k + 2:]) for k in range(1, len(rest) - 2) if rest[k:k + 2] == "__"]


def name_problem(name: str, *, server: str | None = None) -> tuple[str, str] | None:
    """(message, hint) when ``name`` (a server name, or with ``server`` the name of one of its
    tools) would make a wire name ambiguous; None when it is fine."""
    what = "server" if server is None else "tool"
    edge = name.endswith("_") if server is None else name.startswith("_")
    if "__" not in name and not edge:
        return None
    wire = f"mcp__{name}__tool" if server is None else f"mcp__{server}__{name}"
    meant = (name, "tool") if server is None else (server, name)
    others = [r for r in _readings(wire) if r != meant][:2]
    where = ("ends with '_'" if server is None else "starts with '_'") if edge \
        else "contains '__'"
    also = " or ".join(f"server {s!r}, tool {t!r}" for s, t in others)
    fixed = "_".join(p for p in name.split("_") if p) or "x"
    return (f"{what} name {name!r} {where}: the wire name {wire!r} also reads as {also}, so "
            "rules, the CLI and `toolhost call` could take it for another server's tool",
            f"rename the {what}, e.g. to {fixed!r} if that name is free (a {what} name may "
            f"not contain '__' or {'end' if server is None else 'start'} with '_')")


def wire_name_collisions(tools: Iterable[tuple[str, Origin, str]]) -> list[Problem]:
    """Problems for every wire name that more than one tool has; ``tools`` gives
    (wire name, origin, description such as "tool 'log' of server 'git_'")."""
    seen: dict[str, tuple[Origin, str]] = {}
    problems: list[Problem] = []
    for wire, origin, what in tools:
        first = seen.setdefault(wire, (origin, what))
        if first[0] is not origin or first[1] != what:
            o = first[0]
            at = f"{o.file}:{o.line}" if o.file else "an external server's list"
            problems.append(origin.problem(
                f"{what} has the wire name {wire!r}, as {first[1]} ({at}) has: a call or a "
                "permission rule could not tell them apart",
                hint="rename one of the two servers or tools"))
    return problems


def wire_name_problems(servers: Mapping[str, ServerConfig], *,
                       names: bool = True) -> list[Problem]:
    """Every server and tool name that makes a wire name ambiguous (unless ``names`` is
    false: the loader reports those itself), and every wire name two tools share."""
    problems: list[Problem] = []
    tools: list[tuple[str, Origin, str]] = []
    for sname, server in servers.items():
        found = name_problem(sname) if names else None
        if found is not None:
            problems.append(server.origin.problem(found[0], hint=found[1]))
        for tname, tool in (server.tools or {}).items():
            found = name_problem(tname, server=sname) if names else None
            if found is not None:
                problems.append(tool.origin.problem(found[0], hint=found[1]))
            what = f"tool {tname!r} of server {sname!r}"
            wire = f"mcp__{sname}__{tname}"
            tools.append((wire, tool.origin, what))
    return problems + wire_name_collisions(tools)


def case_notes(servers: Mapping[str, ServerConfig]) -> list[Problem]:
    """A note for each server or tool name that differs from another only in case (``Tool``
    and ``tool``): they are two tools, and a permission rule names exactly one of them."""
    notes: list[Problem] = []

    def compare(names: Iterable[tuple[str, Origin]], what: str, wire: str) -> None:
        first: dict[str, tuple[str, Origin]] = {}
        for name, origin in names:
            other = first.setdefault(name.casefold(), (name, origin))
            if other[0] != name:
                at = f" ({other[1].file}:{other[1].line})" if other[1].file else ""
                notes.append(origin.problem(
                    f"note: {what} {name!r} differs from {what} {other[0]!r}{at} only in "
                    f"case: they are two {what}s, and a permission rule naming "
                    f"{wire.format(other[0])!r} does not match {wire.format(name)!r}",
                    hint=f"rename one of them if they are not meant to be two {what}s"))

    compare(((s, server.origin) for s, server in servers.items()), "server", "mcp__{}")
    for sname, server in servers.items():
        compare(((t, tool.origin) for t, tool in (server.tools or {}).items()), "tool",
                f"mcp__{sname}__{{}}")
    return notes
