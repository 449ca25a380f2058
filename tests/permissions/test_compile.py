"""Compiling rules: what fails the load (with file:line), rewrites, --disallowedTools, lint."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
from toolhost.errors import ConfigError
from toolhost.permissions import compile_policy, lint_policy


def policy(*rules: RuleConfig, **kw: Any) -> Any:
    return compile_policy(PermissionsConfig(rules=rules), cwd="/tmp", **kw)


def rule(effect: str, tool: str, line: int = 7, **kw: Any) -> RuleConfig:
    return RuleConfig(effect, tool, origin=Origin("team.yaml", line, 5, "permissions.x"),
                      **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("tool,kw,needle", [
    ("Bash(npm test", {}, "a '(' is not closed: end the rule with ')'"),
    ("Read(src/x", {}, "a '(' is not closed: end the rule with ')'"),
    ("WebFetch(domain:x.com", {}, "a '(' is not closed"),
    ("Readsrc/x)", {}, "a ')' has no '(' before it"),
    ("mcp__", {}, "names no server"),
    ("mcp__git__", {}, "names no tool"),
    ("mcp__git tools", {}, "cannot parse"),
    ("mcp__git__log(x)", {}, "has no content form"),
    ("Foo(bar)", {}, "has no content form"),
    ("Bash()", {}, "is empty"),
    ("Bash(echo 'x)", {}, "not valid shell"),
    ("Bash(npm *:*)", {}, "only wildcard"),
    ("WebFetch(example.com)", {}, "domain:"),
    ("WebFetch(domain:exa mple.com)", {}, "not a host name"),
    ("Read(./../x)", {}, "'..'"),
    ("mcp__a__b", {"when": {"n": {"between": [1, 2]}}}, "unknown condition 'between'"),
    ("mcp__a__b", {"when": {"n": {"min": "1"}}}, "'min' takes a number"),
    ("mcp__a__b", {"when": {"n": {"regex": "("}}}, "bad regex"),
    ("mcp__a__b", {"when": {"a..b": 1}}, "bad argument path"),
    ("mcp__a__b", {"expr": "args.n <"}, "does not parse"),
    ("mcp__a__b", {"rewrite": {"clamp": {"n": {"max": "9"}}}}, "must be numbers"),
    ("mcp__a__b", {"rewrite": {"sett": {}}}, "unknown key 'sett'"),
    *(("mcp__a__b", {"rewrite": {part: wrong}}, f"rewrite.{part}: expected a mapping")
      for part in ("set", "clamp") for wrong in (5, [1], True, 1.5, "x", [["a", 1]])),
])
def test_unparsable_rule_fails_the_load_naming_file_and_line(
        tool: str, kw: dict[str, Any], needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        policy(rule("allow", tool, **kw))
    (problem,) = info.value.problems
    assert needle in problem.message
    assert (problem.file, problem.line, problem.column) == ("team.yaml", 7, 5)
    assert str(problem).startswith("team.yaml:7:5: permissions.x: ")


def test_every_bad_rule_is_reported_at_once() -> None:
    with pytest.raises(ConfigError) as info:
        policy(rule("allow", "mcp__", 3), rule("deny", "mcp__ok__x", 4), rule("ask", "Bash(", 9))
    assert [p.line for p in info.value.problems] == [3, 9]


def test_rewrite_only_on_allow() -> None:
    with pytest.raises(ConfigError, match="only allowed on allow"):
        policy(rule("deny", "mcp__a__b", rewrite={"set": {"x": 1}}))


def test_rewrite_sets_and_clamps_without_touching_the_input() -> None:
    p = policy(rule("allow", "mcp__a__b", rewrite={
        "set": {"opts.dry_run": True, "mode": "safe"},
        "clamp": {"limit": {"min": 1, "max": 100}, "absent": {"max": 3}}}))
    given = {"limit": 5000, "opts": {"verbose": True}}
    decision = p.decide("mcp__a__b", given)
    assert decision.behavior == "allow"
    assert decision.updated_input == {"limit": 100, "mode": "safe",
                                      "opts": {"verbose": True, "dry_run": True}}
    assert given == {"limit": 5000, "opts": {"verbose": True}}
    assert p.decide("mcp__a__b", {"limit": 0}).updated_input["limit"] == 1
    assert decision.to_control_response()["updatedInput"]["limit"] == 100


def test_rewrite_with_json_pointer_paths() -> None:
    p = policy(rule("allow", "mcp__a__b", rewrite={"set": {"/items/1": "z", "/o/a~1b": 2}}))
    decision = p.decide("mcp__a__b", {"items": ["x", "y"]})
    assert decision.updated_input == {"items": ["x", "z"], "o": {"a/b": 2}}


def test_rewrite_that_cannot_apply_denies() -> None:
    p = policy(rule("allow", "mcp__a__b", rewrite={"clamp": {"limit": {"max": 10}}}))
    decision = p.decide("mcp__a__b", {"limit": "lots"})
    assert decision.behavior == "deny" and "not a number" in decision.message


def test_default_applies_when_nothing_matches() -> None:
    p = compile_policy(PermissionsConfig(default="deny"))
    decision = p.decide("mcp__a__b", {})
    assert (decision.behavior, decision.answered_by, decision.rule) == ("deny", "default", None)
    assert "default is deny" in decision.message
    assert compile_policy(PermissionsConfig(default="allow")).decide("Read", {}).behavior == "allow"


def test_evaluation_order_is_deny_ask_allow_keeping_file_order() -> None:
    p = policy(rule("allow", "A", 1), rule("deny", "B", 2), rule("ask", "C", 3),
               rule("deny", "D", 4), rule("allow", "E", 5))
    assert [(r.effect, r.text) for r in p.rules] == [
        ("deny", "B"), ("deny", "D"), ("ask", "C"), ("allow", "A"), ("allow", "E")]


def test_disallowed_tools_are_unconditional_whole_tool_denies() -> None:
    p = policy(rule("deny", "mcp__prod"), rule("deny", "mcp__git__push"),
               rule("deny", "mcp__gh__delete_*"), rule("deny", "WebSearch"),
               rule("deny", "Bash(rm:*)"), rule("deny", "mcp__a__b", when={"x": 1}),
               rule("deny", "mcp__a__c", expr="true"), rule("allow", "mcp__ok__x"),
               tool_names=["mcp__gh__delete_repo", "mcp__gh__get_repo"])
    assert p.disallowed_tools() == ["mcp__prod", "mcp__git__push", "mcp__gh__delete_repo",
                                    "WebSearch"]


def test_lint_findings() -> None:
    names = ["mcp__git__log", "mcp__git__push", "mcp__db__query"]
    p = policy(rule("deny", "mcp__git__push", 1), rule("allow", "mcp__git__*", 2),
               rule("allow", "mcp__git__log", 3, when={"n": 1}), rule("allow", "mcp__gti__log", 4),
               rule("allow", "mcp__*", 5), rule("allow", "Bash", 6), rule("allow", "bash", 7),
               rule("allow", "mcp__git__*", 8), rule("allow", "mcp__ext__*", 9),
               rule("deny", "mcp__db__query", 10, when={"sql": {"glob": "DROP*"}}),
               tool_names=names)
    found = {(f.code, f.origin.line) for f in lint_policy(p, servers=["git", "db", "ext"],
                                                           external_servers=["ext"])}
    assert found == {
        ("shadowed", 3),  # after mcp__git__* (line 2)
        ("never-matches", 4),  # typo of a server (an exact name allows one tool, not all)
        ("broad-allow", 5), ("broad-allow", 6), ("unknown-tool", 7),
        ("duplicate", 8), ("shadowed", 9),  # mcp__* (line 5) comes first
    }


@pytest.mark.parametrize(("text", "broad"), [
    ("Bash(* install)", True), ("Bash(*)", True), ("Bash(*test)", True), ("Bash(npm:*)", False),
    ("Bash(npm * install)", False), ("Bash(npm install:*)", False), ("Bash(ls *)", False),
])
def test_an_allow_whose_program_is_a_wildcard_is_broad(text: str, broad: bool) -> None:
    """``Bash(* install)`` allows ``sudo rm -rf / install``: the rule's own breadth (not a
    wrapper widening it), said at validate; a deny of that shape is fine."""
    for effect in ("allow", "deny"):
        found = [f.code for f in lint_policy(policy(rule(effect, text, 1)))]
        assert ("broad-allow" in found) == (broad and effect == "allow"), (effect, found)


def test_the_same_content_rule_with_another_effect_in_another_layer_is_shadowed() -> None:
    """Round 9: ``Bash(npm test:*)`` allowed in the project file and asked in the local file:
    the allow is never reached (ask comes first), and lint says so; a path anchored at its
    own file's directory (``Read(/docs/**)``) names another path in another file: not."""
    p = policy(rule("ask", "Bash(npm test:*)", 1), rule("deny", "Read(//tmp/**)", 2),
               rule("allow", "Bash(npm test:*)", 3), rule("allow", "Read(//tmp/**)", 4),
               rule("allow", "WebFetch(domain:x.org)", 5, when={"url": {"glob": "*"}}),
               rule("allow", "WebFetch(domain:x.org)", 6), rule("deny", "Read(/docs/**)", 7),
               rule("allow", "Read(/docs/**)", 8), rule("allow", "Bash(npm test)", 9))
    found = {(f.code, f.origin.line) for f in lint_policy(p)}
    # (since round 13 also line 9: the ask of `npm test:*` matches `npm test` first)
    assert found == {("shadowed", 3), ("shadowed", 4), ("shadowed", 9)}
