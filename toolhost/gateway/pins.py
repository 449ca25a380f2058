"""Upstream tool definitions pinned in the lock: a server that changes a tool after review
(its description, its schema: a "rug pull") is refused until someone accepts it."""

from __future__ import annotations

import difflib
import json
import logging
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolhost.config.model import Origin
from toolhost.errors import Problem
from toolhost.excerpt import cut
from toolhost.redaction import MASK
from toolhost.redaction.process import scrub_value

__all__ = ["DEFINITION_KEYS", "UpstreamPins", "definition"]

DEFINITION_KEYS = ("name", "title", "description", "inputSchema", "outputSchema",
                   "annotations")
DIFF_LINES = 60

log = logging.getLogger("toolhost.gateway")


def definition(tool: Mapping[str, Any]) -> dict[str, Any]:
    """What of an upstream tool the model and the rules depend on, in a stable form."""
    return {key: tool[key] for key in DEFINITION_KEYS if key in tool}


class UpstreamPins:
    """Checks imported definitions against a lock (``verify``) and records what it saw."""

    def __init__(self, locked: Mapping[str, Mapping[str, Mapping[str, Any]]] | None,
                 lock_file: Path | None, *, verify: bool = True) -> None:
        self.locked = locked
        self.lock_file = lock_file
        self.verify = verify and locked is not None
        self.recorded: dict[str, dict[str, dict[str, Any]]] = {}

    def reread(self) -> None:
        """Read the lock file again (it may have been accepted anew while serving); a lock that
        is gone or unreadable now leaves the pins as they were."""
        if not self.verify or self.lock_file is None:
            return
        from toolhost.errors import ConfigError
        from toolhost.lockfile import read_lock

        try:
            lock = read_lock(self.lock_file)
        except ConfigError as exc:
            log.warning("%s; still checking against the lock as it was", exc)
            return
        if lock is not None:
            self.locked = lock.upstreams

    def check(self, server: str, origin: Origin,
              seen: Mapping[str, Mapping[str, Any]]) -> list[Problem]:
        """Problems for each imported tool whose definition differs from the lock."""
        # secrets hidden before anything is kept: the lock is committed, and a diff printed
        self.recorded[server] = {name: scrub_value(definition(tool), frozenset())
                                 for name, tool in seen.items()}
        # a ``***`` the upstream wrote itself is text, not a secret hidden: no wildcard
        literal = {name for name, tool in seen.items() if _says_mask(definition(tool))}
        if not self.verify or self.locked is None:
            return []
        name = self.lock_file.name if self.lock_file else "the lock"
        pinned = self.locked.get(server)
        if pinned is None:
            return [origin.problem(f"the tools of upstream server '{server}' are not in "
                                   f"{name}", hint="review them (`toolhost tools`), then pin "
                                   "them with `toolhost lock CONFIG`")]
        problems = []
        for tool, now in sorted(self.recorded[server].items()):
            before = pinned.get(tool)
            if before is None:
                problems.append(origin.problem(
                    f"upstream tool '{tool}' of '{server}' is new since {name}",
                    hint="review it, then accept with `toolhost lock CONFIG`"))
            elif not (before == now if tool in literal else _same(before, now)):
                changed = sorted(k for k in set(before) | set(now) if before.get(k) != now.get(k))
                problems.append(origin.problem(
                    f"upstream tool '{tool}' of '{server}' changed since {name}: "
                    f"{', '.join(changed)}",
                    hint="review the diff; accept with `toolhost lock CONFIG`",
                ).with_detail(_diff(scrub_value(dict(before), frozenset()), now)))
        return problems


def _says_mask(value: Any) -> bool:
    """Whether ``value`` (JSON-like, as the upstream sent it) holds ``***`` in a string or a
    key: were it read as a hidden secret, an upstream could swap any word of a locked
    definition (``Never deletes`` -> ``*** deletes``, ``format: uri`` -> ``format: ***``)
    for it unseen."""
    todo = [value]
    while todo:
        node = todo.pop()
        if isinstance(node, str):
            if MASK in node:
                return True
        elif isinstance(node, Mapping):
            todo += [*node.keys(), *node.values()]
        elif isinstance(node, list):
            todo += node
    return False


def _same(before: Any, now: Any) -> bool:
    """Whether a locked definition is the one seen now, whose secrets are ``***``: a string
    of ``now`` matches where ``before`` has a word (no spaces) at each ``***``, so a secret
    rotated since the lock, or written there by a version that did not hide it, is not a
    change; a text that is now a secret where it was prose still is."""
    if isinstance(before, Mapping) and isinstance(now, Mapping):
        return set(before) == set(now) and all(_same(before[k], now[k]) for k in now)
    if isinstance(before, list) and isinstance(now, list):
        return len(before) == len(now) and all(map(_same, before, now))
    if isinstance(before, str) and isinstance(now, str) and MASK in now and before != now:
        pattern = r"\S+?".join(re.escape(part) for part in now.split(MASK))
        return re.fullmatch(pattern, before) is not None
    return bool(before == now)


def _diff(before: dict[str, Any], now: dict[str, Any]) -> str:
    old = json.dumps(before, indent=2, sort_keys=True, ensure_ascii=False).splitlines()
    new = json.dumps(now, indent=2, sort_keys=True, ensure_ascii=False).splitlines()
    lines = [cut(line, 200) for line in difflib.unified_diff(old, new, "locked", "upstream now",
                                                             lineterm="")]
    if len(lines) > DIFF_LINES:
        lines = [*lines[:DIFF_LINES], f"… {len(lines) - DIFF_LINES} more lines"]
    return "\n".join(lines)
