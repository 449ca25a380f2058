"""How a token's claims become a caller, and how rules with ``callers:`` treat claims they
cannot read: a caller never escapes a deny naming a group (scope) they might be in, and an
allow never admits on a claim it cannot read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.callers.claims import ClaimsError, caller_from_claims
from toolhost.permissions.callers.identity import as_caller


def _policy(effect: str, callers: dict[str, Any], default: str) -> Any:
    rule = RuleConfig(effect=effect, tool="mcp__db__drop", callers=callers,
                      origin=Origin("p.yaml", 3, 5))
    return compile_policy(PermissionsConfig(default=default, rules=(rule,)),  # type: ignore[arg-type]
                          cwd=str(Path.cwd()))


def decide(effect: str, callers: dict[str, Any], claims: dict[str, Any],
           groups_claim: str = "groups") -> str:
    caller = caller_from_claims({"sub": "x", **claims}, groups_claim)
    with as_caller(caller):
        return str(_policy(effect, callers, "allow" if effect == "deny" else "deny")
                   .decide("mcp__db__drop", {}).behavior)


# (claims, groups_claim) a deny of group "interns" must apply to
DENIED_GROUPS = [
    ({"groups": "interns"}, "groups"), ({"groups": ["interns"]}, "groups"),
    ({"groups": "interns other"}, "groups"), ({"groups": 42}, "groups"),
    ({"groups": {"interns": 1}}, "groups"), ({"groups": [["interns"]]}, "groups"),
    ({"groups": ["x", 1]}, "groups"), ({"groups": True}, "groups"),
    ({"realm_access": {"roles": ["interns"]}}, "realm_access.roles"),
    ({"realm_access.roles": ["interns"]}, "realm_access.roles"),
    ({"realm_access": "interns"}, "realm_access.roles"),
    ({"realm_access": {"roles": "a b"}}, "realm_access.roles"),
]
DENIED_SCOPES = [
    {"scope": "tools:ro"}, {"scp": ["tools:ro"]}, {"scp": "tools:ro other"},
    {"scope": "", "scp": ["tools:ro"]}, {"scope": None, "scp": ["tools:ro"]},
    {"scope": "a b", "scp": ["tools:ro"]}, {"scope": ["tools:ro other"]},
    {"scope": {"tools:ro": 1}}, {"scope": 7}, {"scp": [None]},
]


@pytest.mark.parametrize(("claims", "claim"), DENIED_GROUPS)
def test_a_groups_deny_applies_to_every_shape_that_might_name_the_group(
        claims: dict[str, Any], claim: str) -> None:
    assert decide("deny", {"groups": ["interns"]}, claims, claim) == "deny"


@pytest.mark.parametrize("claims", DENIED_SCOPES)
def test_a_scopes_deny_applies_to_every_shape_that_might_name_the_scope(
        claims: dict[str, Any]) -> None:
    assert decide("deny", {"scopes": ["tools:ro"]}, claims) == "deny"


@pytest.mark.parametrize(("claims", "expected"), [
    ({"groups": ["platform"]}, "allow"), ({"groups": "platform"}, "allow"),
    ({"groups": {"platform": True}}, "deny"), ({"groups": [["platform"]]}, "deny"),
    ({"groups": "platform other"}, "deny"), ({"groups": ["Platform"]}, "deny"),
    ({"groups": ["platform "]}, "deny"), ({}, "deny"), ({"groups": None}, "deny"),
])
def test_an_allow_admits_only_what_the_token_proves(claims: dict[str, Any],
                                                    expected: str) -> None:
    assert decide("allow", {"groups": ["platform"]}, claims) == expected


@pytest.mark.parametrize("claims", [{}, {"groups": []}, {"groups": None}, {"groups": ["a"]},
                                    {"scope": ""}, {"groups": "other"}])
def test_a_deny_leaves_callers_it_provably_does_not_name(claims: dict[str, Any]) -> None:
    assert decide("deny", {"groups": ["interns"], "scopes": ["ro"]}, claims) == "allow"


@pytest.mark.parametrize("sub", ["", "  ", None, 5, ["a"]])
def test_a_caller_needs_a_subject(sub: Any) -> None:
    with pytest.raises(ClaimsError):
        caller_from_claims({"sub": sub})


def test_scopes_are_the_union_of_scope_and_scp() -> None:
    caller = caller_from_claims({"sub": "x", "scope": "a b", "scp": ["c"]})
    assert caller.scopes == {"a", "b", "c"} and not caller.unreadable


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=12)


def _might_name(value: Any, name: str) -> bool:
    """Whether ``name`` appears anywhere in ``value``: as a string, a word of one, a key."""
    text = json.dumps(value)
    return name in text


@settings(max_examples=400, deadline=None)
@given(value=JSON, name=st.sampled_from(["interns", "a", "x y"]))
def test_property_no_caller_escapes_a_deny_naming_a_group_they_might_be_in(
        value: Any, name: str) -> None:
    claims = {"groups": value}
    verdict = decide("deny", {"groups": [name]}, claims)
    if _might_name(value, name) and verdict == "allow":
        # the deny did not apply: the token must prove they are not in the group
        caller = caller_from_claims({"sub": "x", **claims})
        assert not caller.unreadable and name not in caller.groups
        assert isinstance(value, (list, str, type(None)))
        if isinstance(value, list):
            assert name not in value
        elif isinstance(value, str):
            assert value != name
    allowed = decide("allow", {"groups": [name]}, claims)
    if allowed == "allow":  # an allow admits only on a readable claim naming the group
        assert value == name or (isinstance(value, list) and name in value)
