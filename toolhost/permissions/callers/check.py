"""Deciding about callers outside a server: ``permissions check --caller...`` and the
``caller:`` of a policy test case.

A caller is given as the claims of an access token (``{"sub": ..., "groups": [...],
"scope": "..."}``), read exactly as ``toolhost serve`` reads a validated token
(toolhost.permissions.callers.claims), or with ``--caller-sub/--caller-group/--caller-scope``.
Without one, a call is decided as on stdio (no caller), and :func:`caller_rules` names the
rules restricted to callers that would take part for some caller: the decision then depends
on the caller, and is never presented as the answer for everyone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from toolhost.permissions.callers.identity import Caller
from toolhost.permissions.expr.core import ExprError
from toolhost.permissions.policy import CompiledPolicy
from toolhost.permissions.rules import CompiledRule

__all__ = ["caller_from_options", "caller_rules", "describe_caller"]


def caller_rules(policy: CompiledPolicy, tool: str, tool_input: Mapping[str, Any]
                 ) -> list[CompiledRule]:
    """The rules with ``callers:`` that apply to this call for some caller."""
    found = []
    for rule in policy.rules:
        if rule.callers is None or not rule.names.matches(tool):
            continue
        try:
            applies = dataclasses.replace(rule, callers=None).matches(tool, tool_input)
        except (ExprError, RecursionError):
            applies = True  # cannot tell: it may take part
        if applies:
            found.append(rule)
    return found


def caller_from_options(claims: Mapping[str, Any] | None, sub: str | None,
                        groups: Sequence[str], scopes: Sequence[str],
                        groups_claim: str = "groups") -> Caller | None:
    """The caller the options describe (None without any); raises ValueError saying why."""
    from toolhost.permissions.callers.claims import caller_from_claims

    if claims is None and sub is None and not groups and not scopes:
        return None
    merged: dict[str, Any] = dict(claims or {})
    if sub is not None:
        merged["sub"] = sub
    merged.setdefault("sub", "caller")
    if groups:
        merged[groups_claim] = list(groups)
    if scopes:
        merged.pop("scp", None)
        merged["scope"] = " ".join(scopes)
    return caller_from_claims(merged, groups_claim)


def describe_caller(caller: Caller) -> str:
    """One line: who, their groups and scopes, what could not be read."""
    text = f"caller {caller.subject}"
    if caller.groups:
        text += f", groups {sorted(caller.groups)}"
    if caller.scopes:
        text += f", scopes {sorted(caller.scopes)}"
    for _, why in caller.unreadable:
        text += f" ({why})"
    return text
