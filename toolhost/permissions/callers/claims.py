"""The caller a token's claims describe: how ``sub``, scopes and groups are read.

One reader for ``toolhost serve`` (a validated access token) and ``toolhost permissions
check|test`` (``--caller``, a case's ``caller:``), so both read the same claims the same way:

- ``sub``: a non-empty string (anything else is refused: :class:`ClaimsError`).
- scopes: the union of ``scope`` and ``scp``, each either a space-delimited string (RFC 8693,
  RFC 9068) or a list of strings each one scope token. Absent or null: no scopes.
- groups: the groups claim (``groups``, or ``--auth-groups-claim``): a list of strings, or
  one string naming one group. A claim name with dots (``realm_access.roles``) is the claim
  of that literal name when the token has one, else the path through nested objects.
  Absent or null (the path too): no groups.

Any other shape (a number, an object, a list holding a non-string, a groups string holding
whitespace, a scope list entry holding whitespace, a path through a non-object) cannot be
read: the caller's groups (or scopes) are then *unreadable*, and rules with ``callers:``
treat them fail closed (toolhost.permissions.callers.identity): a deny or ask naming groups (scopes)
applies as if the caller were in every group, an allow naming only groups (scopes) never
admits them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from toolhost.permissions.callers.identity import Caller

__all__ = ["ClaimsError", "caller_from_claims", "read_groups", "read_scopes"]

# "no value" (the claim not given) vs "a value we cannot read"
_ABSENT = object()


class ClaimsError(ValueError):
    """The claims name no usable caller (``sub`` missing, empty or not a string)."""


def _shape(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string with whitespace"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list):
        return "a list holding something other than strings"
    return f"a {type(value).__name__}"


def _lookup(claims: Mapping[str, Any], name: str) -> Any:
    """The claim ``name``: the literal key first, else a dotted path through objects."""
    if name in claims:
        return claims[name]
    if "." not in name:
        return _ABSENT
    value: Any = claims
    for part in name.split("."):
        if not isinstance(value, Mapping):
            return value if value is not None else _ABSENT  # a path through a non-object
        if part not in value:
            return _ABSENT
        value = value[part]
    return value


def read_groups(claims: Mapping[str, Any], claim: str = "groups") -> tuple[frozenset[str], str]:
    """(groups, "") or (frozenset(), why the claim cannot be read)."""
    value = _lookup(claims, claim)
    if value is _ABSENT or value is None:
        return frozenset(), ""
    if isinstance(value, str):
        if value and value.split() != [value]:
            return frozenset(), f"the {claim} claim is {_shape(value)} (one group or many?)"
        return frozenset({value} if value else ()), ""
    if isinstance(value, list) and all(isinstance(g, str) for g in value):
        return frozenset(g for g in value if g), ""
    return frozenset(), f"the {claim} claim is {_shape(value)}"


def read_scopes(claims: Mapping[str, Any]) -> tuple[frozenset[str], str]:
    """(scopes from ``scope`` and ``scp``, "") or (what was read, why part cannot be read)."""
    found: set[str] = set()
    for name in ("scope", "scp"):
        value = claims.get(name)
        if value is None:
            continue
        if isinstance(value, str):
            found.update(value.split())
        elif isinstance(value, list) and all(isinstance(s, str) and s.split() in ([s], [])
                                             for s in value):
            found.update(s for s in value if s)
        else:
            shape = ("a list holding whitespace or non-strings" if isinstance(value, list)
                     else _shape(value))
            return frozenset(found), f"the {name} claim is {shape}"
    return frozenset(found), ""


def caller_from_claims(claims: Mapping[str, Any], groups_claim: str = "groups") -> Caller:
    """The caller ``claims`` describe; raises ClaimsError when ``sub`` names nobody."""
    subject = claims.get("sub")
    if not isinstance(subject, str) or not subject.strip():
        raise ClaimsError("the token's sub must be a non-empty string")
    groups, groups_problem = read_groups(claims, groups_claim)
    scopes, scopes_problem = read_scopes(claims)
    unreadable = {kind: why for kind, why in (("groups", groups_problem),
                                              ("scopes", scopes_problem)) if why}
    issuer = claims.get("iss", "")
    return Caller(subject, scopes, groups, issuer if isinstance(issuer, str) else "",
                  unreadable=tuple(sorted(unreadable.items())),
                  expires=_expires(claims.get("exp")))


def _expires(exp: Any) -> float:
    """The ``exp`` claim as seconds since the epoch; infinity for none the caller can hold
    (the token's checks refused any other: this only times its streams)."""
    if isinstance(exp, bool) or not isinstance(exp, (int, float)):
        return math.inf
    try:
        value = float(exp)
    except OverflowError:  # a 400-digit int
        return math.inf
    return value if math.isfinite(value) else math.inf
