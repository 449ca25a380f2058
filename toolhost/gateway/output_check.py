"""An upstream's ``structuredContent`` checked against the outputSchema it listed, by
toolhost, with RE2 patterns.

The ``mcp`` client checks a call's ``structuredContent`` itself, with ``jsonschema``'s
default validator: Python's ``re`` for ``pattern``, whose backtracking an upstream controls
both ways (the schema it lists and the answer it gives: ``^(a+)+$`` against forty ``a`` and a
``!``), holding the GIL, so the whole host, for ever; and against whatever the upstream
listed last, not the listing toolhost reviewed (the lock pins). So that check is turned off
on each connection (``unchecked``), and the answer is checked here instead, in the worker
thread of the call (a big answer's check never holds the event loop): against the tool's
outputSchema as toolhost listed it (checked once then: references within the schema only,
RE2 patterns), in linear time. A mismatch is the call's error, in one line, and the
connection is kept.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from toolhost.compile.validators import LazyValidator
from toolhost.excerpt import cut

__all__ = ["output_problem", "unchecked"]

MAX_SAID = 3  # mismatches named in the error


def unchecked(client: Any) -> None:
    """Turn off the ``mcp`` client's own check of ``structuredContent`` (see the module)."""
    session = getattr(client, "session", None)
    if session is not None and hasattr(session, "validate_tool_result"):
        async def validate_tool_result(name: str, result: Any) -> None:
            return None

        setattr(session, "validate_tool_result", validate_tool_result)  # noqa: B010


def output_problem(answer: Mapping[str, Any], validator: LazyValidator) -> str:
    """Why a call's answer (a CallToolResult, as a dict) does not fit the outputSchema of
    ``validator``, in one line, or "" when it does (an error result is not checked)."""
    if answer.get("isError"):
        return ""
    structured = answer.get("structuredContent")
    if structured is None:
        return "it has an outputSchema but answered no structuredContent"
    found = list(itertools.islice(validator.iter_errors(structured), MAX_SAID + 1))
    if not found:
        return ""
    said = "; ".join(f"{'.'.join(str(p) for p in e.path) or '(root)'}: "
                     f"{cut(' '.join(e.message.split()), 200)}" for e in found[:MAX_SAID])
    more = " (and more)" if len(found) > MAX_SAID else ""
    return f"its structuredContent does not match its outputSchema: {said}{more}"
