"""Warnings about a schema ``format`` no checker knows (any string passes it), for
``validate``. The checkers themselves are in ``toolhost.jsonformats``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from toolhost.jsonformats import CHECKERS

__all__ = ["CHECKED", "CHECKERS", "format_warnings", "unchecked_formats"]


def unchecked_formats(schema: Any, known: set[str], where: str = "") -> Iterator[tuple[str, str]]:
    """``(where, format)`` for each ``format`` in ``schema`` that no checker in ``known``
    knows (any string passes it)."""
    todo: list[tuple[Any, str, int]] = [(schema, where, 0)]
    while todo:
        node, path, depth = todo.pop()
        if depth > 64:
            continue
        if isinstance(node, Mapping):
            fmt = node.get("format")
            if isinstance(fmt, str) and fmt not in known:
                yield path or "(root)", fmt
            for key, sub in node.items():
                if key not in ("enum", "const", "default", "examples"):
                    todo.append((sub, f"{path}.{key}" if path else str(key), depth + 1))
        elif isinstance(node, list):
            todo.extend((sub, f"{path}[{i}]", depth + 1) for i, sub in enumerate(node)
                        if not isinstance(sub, _SCALAR))  # nothing inside: not visited


_SCALAR = (str, int, float, type(None))


def format_warnings(tools: Any) -> list[Any]:
    """A located warning for each tool param whose ``format`` no checker knows (``validate``
    shows them). jsonschema is loaded only when some schema has a ``format``."""
    found = [(tool, where, fmt) for tool in tools
             for where, fmt in unchecked_formats(tool.input_schema, CHECKED)]
    if not found:
        return []
    from toolhost import regex

    known = set(regex.validator_class().FORMAT_CHECKER.checkers)
    return [tool.origin.problem(
        f"inputSchema at {where}: format '{fmt}' is not checked by toolhost (any string "
        "passes it); use a pattern, or an enum, for what must hold")
        for tool, where, fmt in found if fmt not in known]


# formats always checked (jsonschema's own, and CHECKERS): no need to load jsonschema to know
CHECKED = {"date", "email", "idn-email", "idn-hostname", "ipv4", "ipv6", "regex", "uuid",
           *CHECKERS}
