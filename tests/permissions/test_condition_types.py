"""Conditions fail closed on types: a value a condition cannot judge (a regex meeting a list, a
`min` meeting a string, a path through a string) matches deny and ask rules and no allow rule."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy

TOOL = "mcp__ext__q"
WRONG_FOR_STRING = [["DELETE FROM users"], {"sql": "DELETE"}, 5, 5.5, True, False, None, [],
                    {}]
# NaN and infinity are no JSON numbers (the wire refuses them; the Python API may be given them)
WRONG_FOR_NUMBER = ["5", True, False, None, [5], {"n": 5}, float("nan"), float("inf"),
                    float("-inf")]

# (when, a value that makes the condition hold, values of a type it cannot judge,
#  values it judges false)
CASES: list[tuple[str, Any, Any, list[Any], list[Any]]] = [
    ("regex", {"regex": "(?is).*delete.*"}, "delete from x", WRONG_FOR_STRING, ["select 1"]),
    ("glob", {"glob": "rep-*"}, "rep-1", WRONG_FOR_STRING, ["x"]),
    ("path_under", {"path_under": "/srv"}, "/srv/a", WRONG_FOR_STRING, ["/etc/passwd"]),
    ("path_glob", {"path_glob": "/srv/**"}, "/srv/a", WRONG_FOR_STRING, ["/etc/passwd"]),
    ("host", {"host": "example.com"}, "https://example.com/", WRONG_FOR_STRING,
     ["https://other.org/"]),
    ("min", {"min": 10}, 11, WRONG_FOR_NUMBER, [9]),
    ("max", {"max": 10}, 9, WRONG_FOR_NUMBER, [11]),
    ("plain string", "users", "users", WRONG_FOR_STRING, ["orders"]),
    ("equals string", {"equals": "users"}, "users", WRONG_FOR_STRING, ["orders"]),
    ("plain number", 3, 3.0, ["3", True, None, [3], {"a": 3}, float("nan")], [4]),
    ("plain bool", True, True, [1, "true", None, [True]], [False]),
    ("plain null", None, None, [0, "", False, [], {}], []),
    ("equals list", {"equals": [1, 2]}, [1, 2], ["[1, 2]", 1, None, {"0": 1}], [[2, 1]]),
    ("equals object", {"equals": {"a": 1}}, {"a": 1}, ["a", [1], None], [{"a": 2}]),
    ("one_of", {"one_of": ["a", "b"]}, "a", WRONG_FOR_STRING, ["c"]),
    ("one_of mixed", {"one_of": ["a", 1]}, 1, [True, None, [1], {}], ["c", 2]),
]


def decide(effect: str, when: dict[str, Any], tool_input: dict[str, Any],
           default: str = "ask") -> str:
    rule = RuleConfig(effect=effect, tool=TOOL, when=when)
    p = compile_policy(PermissionsConfig(rules=[rule], default=default))
    return p.decide(TOOL, tool_input).behavior


def cases() -> list[tuple[str, Any, Any, str]]:
    out = []
    for name, spec, good, wrong, bad in CASES:
        out.append((name, spec, good, "holds"))
        out += [(name, spec, w, "wrong") for w in wrong]
        out += [(name, spec, b, "false") for b in bad]
    return out


@pytest.mark.parametrize("name,spec,value,kind", cases())
@pytest.mark.parametrize("effect", ["deny", "ask", "allow"])
def test_each_operator(name: str, spec: Any, value: Any, kind: str, effect: str) -> None:
    default = "deny" if effect == "allow" else "allow"
    got = decide(effect, {"arg": spec}, {"arg": value}, default)
    matched = kind == "holds" or (kind == "wrong" and effect != "allow")
    assert got == (effect if matched else default)


@pytest.mark.parametrize("name,spec,_good,_wrong,_bad", CASES)
def test_a_missing_argument_matches_no_value_condition(name: str, spec: Any, _good: Any,
                                                       _wrong: Any, _bad: Any) -> None:
    assert decide("deny", {"arg": spec}, {}, "allow") == "allow"
    assert decide("allow", {"arg": spec}, {}, "deny") == "deny"


@pytest.mark.parametrize("tool_input,effect,expected", [
    ({"query": "a string"}, "deny", "deny"), ({"query": ["x"]}, "deny", "deny"),
    ({"query": None}, "deny", "deny"), ({"query": {"limit": 500}}, "deny", "deny"),
    ({"query": {}}, "deny", "allow"), ({}, "deny", "allow"),
    ({"query": "a string"}, "allow", "deny"), ({"query": {"limit": 5}}, "allow", "allow"),
    ({"query": {"limit": "5"}}, "allow", "deny"),
])
def test_a_path_through_a_value_of_the_wrong_type(tool_input: dict[str, Any], effect: str,
                                                  expected: str) -> None:
    spec = {"query.limit": {"min": 100}} if effect == "deny" else {"query.limit": {"max": 10}}
    default = "allow" if effect == "deny" else "deny"
    assert decide(effect, spec, tool_input, default) == expected


@pytest.mark.parametrize("value,expected", [
    (["12"], "deny"), (["x"], "allow"), ([], "allow"), ([5], "deny"), ("12", "deny"),
    ({"0": "12"}, "deny"), (None, "deny")])
def test_list_index_paths(value: Any, expected: str) -> None:
    assert decide("deny", {"items[0]": {"regex": "[0-9]+"}}, {"items": value},
                  "allow") == expected


@pytest.mark.parametrize("value,effect,expected", [
    (None, "deny", "deny"), ("x", "deny", "deny"), ({}, "deny", "allow"), ("x", "allow", "deny"),
    ({"token": 1}, "deny", "deny"), ({"token": 1}, "allow", "allow")])
def test_present_through_a_wrong_type(value: Any, effect: str, expected: str) -> None:
    default = "allow" if effect == "deny" else "deny"
    assert decide(effect, {"auth.token": {"present": True}}, {"auth": value},
                  default) == expected


def test_the_issue_example_is_denied() -> None:
    rules = [RuleConfig(effect="deny", tool=TOOL, when={"sql": {"regex": ".*delete.*"}}),
             RuleConfig(effect="allow", tool=TOOL)]
    p = compile_policy(PermissionsConfig(rules=rules))
    for sql in (["DELETE FROM users"], {"q": "x"}, 1, None, True):
        assert p.decide(TOOL, {"sql": sql}).behavior == "deny"
    assert p.decide(TOOL, {"sql": "select 1"}).behavior == "allow"
    assert p.decide(TOOL, {}).behavior == "allow"


def test_an_allow_rule_with_two_conditions_needs_both_judged() -> None:
    when = {"table": {"one_of": ["orders"]}, "limit": {"max": 100}}
    assert decide("allow", when, {"table": "orders", "limit": 5}) == "allow"
    assert decide("allow", when, {"table": "orders", "limit": "5"}) == "ask"
    assert decide("deny", when, {"table": "orders", "limit": "5"}, "allow") == "deny"
    assert decide("deny", when, {"table": "users", "limit": "5"}, "allow") == "allow"


def test_index_of_equality_rules_keeps_wrong_typed_values_fail_closed() -> None:
    rules = [RuleConfig(effect="deny", tool=TOOL, when={"table": f"t{i}"}, message=f"t{i}")
             for i in range(20)] + [RuleConfig(effect="allow", tool=TOOL)]
    p = compile_policy(PermissionsConfig(rules=rules))
    assert p._plan(TOOL).keyed
    assert p.decide(TOOL, {"table": "t7"}).message == "t7"
    assert p.decide(TOOL, {"table": "x"}).behavior == "allow"
    for wrong in (["t7"], 7, None, {"t": 1}, True):
        assert p.decide(TOOL, {"table": wrong}).behavior == "deny"
