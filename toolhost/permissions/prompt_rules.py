"""Rules on ``GetMcpPromptTool``: the name rules give a ``prompts/get``.

A prompts/get is decided as ``GetMcpPromptTool`` with input ``{server, name, arguments}``
(``toolhost.serve.guard.prompt_guard``), the way ``ReadMcpResourceTool`` decides a read.
``validate`` warns about a rule whose ``name`` (a plain value, ``equals``, ``one_of`` or a
``glob``) can match no prompt the config declares, on the rule's ``server`` when it names one.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["GET_PROMPT_TOOL", "unmatched_names"]

GET_PROMPT_TOOL = "GetMcpPromptTool"


def _names(spec: Any) -> list[tuple[str, bool]]:
    """``(pattern, is_glob)`` for each literal a ``name`` condition names; [] for a regex."""
    if isinstance(spec, str):
        return [(spec, False)]
    if not isinstance(spec, Mapping) or "regex" in spec:
        return []
    found: list[tuple[str, bool]] = []
    if isinstance(spec.get("equals"), str):
        found.append((spec["equals"], False))
    if isinstance(spec.get("glob"), str):
        found.append((spec["glob"], True))
    if isinstance(spec.get("one_of"), (list, tuple)):
        found += [(v, False) for v in spec["one_of"] if isinstance(v, str)]
    return found


def _servers(spec: Any) -> set[str] | None:
    """The servers a ``server`` condition names literally, None when it may be any."""
    if isinstance(spec, str):
        return {spec}
    if isinstance(spec, Mapping) and set(spec) <= {"equals", "one_of"}:
        out = {spec["equals"]} if isinstance(spec.get("equals"), str) else set()
        if isinstance(spec.get("one_of"), (list, tuple)):
            out |= {v for v in spec["one_of"] if isinstance(v, str)}
        return out if out else None
    return None


def unmatched_names(when: Mapping[str, Any],
                    declared: Iterable[tuple[str, str]]) -> list[str]:
    """The prompt names of ``when['name']`` that no declared prompt has; ``declared`` is
    ``(server, prompt)`` per prompt (only those of ``when['server']``, when it names some)."""
    servers = _servers(when.get("server"))
    known = [prompt for server, prompt in declared if servers is None or server in servers]
    return [pattern for pattern, glob in _names(when.get("name"))
            if not any(fnmatch.fnmatchcase(p, pattern) if glob else p == pattern
                       for p in known)]
