"""What a source newly pinned brings into the config, as its first lock's reviewer reads it.

A first ``toolhost lock`` of a config that extends a team repository (or a package's
fragment) used to print ``+ repo:URL@REV SHA (N file(s))`` and nothing else: the reviewer
saw what the files hold only as a file diff on later moves. Under that line now: each rule
the source adds (``allow Bash(*)`` from ``wide.yaml:4``), each policy setting it decides
(``permissions.default``, ``permissions.ask_mode``, ...), each server it starts and each tool
it declares, with the program or endpoint behind it.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from toolhost.config.model import HostConfig, Origin

__all__ = ["MAX_BROUGHT", "brought_by", "item_lines"]

MAX_BROUGHT = 50  # lines under one source; a repository can declare thousands of tools
SETTINGS = ("permissions.default", "permissions.ask_mode", "permissions.audit_log")


def brought_by(loaded: HostConfig, root: Path) -> list[str]:
    """One line per rule, policy setting, server and tool of ``loaded`` written in a file
    under ``root`` (a source's checkout), in the order a reviewer weighs them: rules and
    settings first."""
    lines = item_lines(loaded, root, MAX_BROUGHT + 1)
    if len(lines) > MAX_BROUGHT:
        return [*lines[:MAX_BROUGHT], "... and more (the source's files hold the rest)"]
    return lines


def item_lines(loaded: HostConfig, root: Path, limit: int | None = None, *,
               detail: bool = False) -> list[str]:
    """``kind: item (file:line)`` for each item of ``loaded`` written under ``root`` (at most
    ``limit``); ``rulediff`` compares two commits' lines, with ``detail``: a rule's
    conditions and rewrite written out (one changed is a changed rule)."""
    try:
        base = root.resolve()
    except (OSError, RuntimeError):
        return []
    lines: list[str] = []
    files: dict[str, str | None] = {}  # a file's path under root, resolved once
    for kind, item, origin in _items(loaded, detail):
        if origin.file not in files:
            files[origin.file] = _under(origin.file, base)
        rel = files[origin.file]
        if rel is None:
            continue
        where = f"{rel}:{origin.line}" if origin.line else rel
        if len(lines) == limit:
            break
        lines.append(loaded.redact(f"{kind} {item} ({where})"))  # a ${TOKEN} in a rule
    return lines


def _items(loaded: HostConfig, detail: bool = False) -> Iterator[tuple[str, str, Origin]]:
    # each part hidden before it is cut: a secret cut in two is no longer the secret
    def cut(text: str) -> str:
        return _cut(loaded.redact(text))

    for rule in loaded.permissions.rules:
        conditions = " when ..." if rule.when or rule.expr or rule.callers else ""
        rewrite = " rewriting its input" if rule.rewrite else ""
        if detail:
            conditions = "".join(f" {word} {cut(_json(value))}" for word, value in (
                ("when", rule.when), ("if", rule.expr), ("callers", rule.callers)) if value)
            rewrite = f" rewriting {cut(_json(rule.rewrite))}" if rule.rewrite else ""
        yield "rule:", f"{rule.effect} {rule.tool}{conditions}{rewrite}", rule.origin
    for key in SETTINGS:
        origin = loaded.origins.get(key)
        if origin is not None:
            value = _setting(loaded, key)
            yield "setting:", f"{key} = {value}", origin
    for name, server in loaded.servers.items():
        if server.external is not None:  # the CLI starts it: its tools are never judged here
            yield "server:", f"{name} {_external(server.external, cut)}", server.origin
        elif server.upstream is not None:
            yield "server:", f"{name} imports an MCP server", server.origin
        for tool in server.tools.values():
            shown = _backend(tool.backend.kind, tool.backend.options, cut)
            yield "tool:", f"{name}.{tool.name} {shown}", tool.origin
    for plugin in loaded.plugins:
        yield "plugin:", f"{plugin.name}{plugin.specifier}", plugin.origin


def _setting(loaded: HostConfig, key: str) -> str:
    value = getattr(loaded.permissions, key.rpartition(".")[2])
    return str(value)


def _external(spec: Any, cut: Callable[[str], str]) -> str:
    command = spec.get("command")
    if isinstance(command, str):
        args = spec.get("args") or []
        words = [command, *(str(a) for a in args if isinstance(a, str | int | float))]
        return "runs " + cut(shlex.join(words))
    url = spec.get("url")
    return f"at {cut(str(url))}" if url else f"({cut(str(spec.get('type', 'external')))})"


def _backend(kind: str, options: Any, cut: Callable[[str], str]) -> str:
    """The program, function or endpoint behind a tool, in a few words."""
    if kind == "command" and isinstance(options.get("argv"), list):
        return "runs " + cut(shlex.join(str(word) for word in options["argv"]))
    if kind == "python" and "function" in options:
        return f"calls {cut(str(options['function']))}"
    if kind == "http" and "url" in options:
        return f"{cut(str(options.get('method', 'GET')))} {cut(str(options['url']))}"
    return f"({kind}: {cut(json.dumps(options, sort_keys=True, default=str))})"


def _json(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


def _cut(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _under(file: str, base: Path) -> str | None:
    """``file`` relative to ``base``, or None when it is written elsewhere."""
    try:
        return Path(file).resolve().relative_to(base).as_posix()
    except (OSError, ValueError, RuntimeError):
        return None
