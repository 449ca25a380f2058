"""The rule index (by tool, Bash first word, equality value) never changes a decision."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy, rule_plan


def rules() -> tuple[RuleConfig, ...]:
    out: list[RuleConfig] = []

    def add(effect: str, tool: str, **kw: Any) -> None:
        out.append(RuleConfig(effect, tool, origin=Origin("p.yaml", len(out) + 1),
                              **kw))  # type: ignore[arg-type]

    for word in ("git", "npm", "make", "ls", "cat", "echo", "tool1", "tool2", "tool3"):
        add("allow", f"Bash({word}:*)")
    add("deny", "Bash(rm -rf:*)")
    add("deny", "Bash(curl * | sh)")
    add("ask", "Bash(git push:*)")
    add("allow", "Bash(py* -m pytest)")
    for table in range(12):
        add("deny", "mcp__db__q", when={"table": f"t{table}"}, message=f"t{table}")
    add("deny", "mcp__db__q", when={"table": 3})
    add("allow", "mcp__db__q", when={"limit": {"max": 10}})
    add("ask", "mcp__db__q", when={"table": True})
    return tuple(out)


INPUTS: list[tuple[str, dict[str, Any]]] = [
    ("Bash", {"command": c}) for c in (
        "git status", "git push origin", "npm test && git push", '"rm -rf" /', "sudo rm -rf /",
        "ls $(rm -rf /)", "echo 'unterminated", "curl x | sh", "python -m pytest",
        "make && ls | cat", "tool1 x; tool9 y", "FOO=1 rm -rf x", "", "cat <(rm -rf x)")
] + [("mcp__db__q", i) for i in (
    {"table": "t3"}, {"table": "t11", "limit": 1}, {"table": "x", "limit": 1},
    {"table": 3.0}, {"table": True}, {"table": 1}, {"limit": 50}, {}, {"table": ["t3"]})]


@pytest.mark.parametrize("tool,tool_input", INPUTS)
def test_index_agrees_with_a_linear_scan(tool: str, tool_input: dict[str, Any],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    indexed = compile_policy(PermissionsConfig(rules=rules()))
    indexed._plan(tool)  # plans are built on first use: build this one with the index on
    monkeypatch.setattr(rule_plan, "INDEX_FROM", 10**9)
    linear = compile_policy(PermissionsConfig(rules=rules()))
    assert linear._plan(tool).by_word == {} and linear._plan(tool).keyed == {}
    assert indexed._plan(tool).by_word or indexed._plan(tool).keyed
    assert indexed.decide(tool, tool_input) == linear.decide(tool, tool_input)


def test_index_cases_decide_as_expected(tmp_path: Path) -> None:
    # (in a folder of its own: `make` reads the Makefile where it runs, not the checkout's)
    p = compile_policy(PermissionsConfig(rules=rules()), cwd=str(tmp_path))
    assert p.decide("Bash", {"command": '"rm -rf" /'}).behavior == "deny"
    assert p.decide("Bash", {"command": "sudo rm -rf /"}).behavior == "deny"
    assert p.decide("Bash", {"command": "npm test && git push"}).behavior == "ask"
    assert p.decide("Bash", {"command": "make && ls | cat"}).behavior == "allow"
    # A number or boolean meeting the deny rules that compare with strings is a value of the
    # wrong type: those deny rules match (fail closed), the first of them wins.
    assert p.decide("mcp__db__q", {"table": 3.0}).message == "t0"
    assert p.decide("mcp__db__q", {"table": True}).message == "t0"
    assert p.decide("mcp__db__q", {"table": ["t3"]}).message == "t0"
    assert p.decide("mcp__db__q", {"table": "t11", "limit": 1}).message == "t11"


def test_a_value_no_bucket_holds_meets_the_unkeyed_rules_alone() -> None:
    # every equality rule compares "table" with a string: a string no bucket holds meets the
    # rules without an equality test only (one tuple, built with the plan), as a scan would
    out: list[RuleConfig] = [RuleConfig("deny", "mcp__db__q", when={"table": f"t{i}"},
                                        origin=Origin("p.yaml", i + 1)) for i in range(12)]
    out.append(RuleConfig("allow", "mcp__db__q", expr="args.limit <= 100",
                          origin=Origin("p.yaml", 20)))
    p = compile_policy(PermissionsConfig(rules=tuple(out), default="deny"))
    plan = p._plan("mcp__db__q")
    assert plan.keyed
    missed = plan.applicable({"table": "n1", "limit": 5})
    assert missed is plan.applicable({"table": "n2"})
    assert [r.origin for r in missed] == [Origin("p.yaml", 20)]
    assert [r.origin for r in plan.applicable({"table": "t3"})] == [Origin("p.yaml", 4),
                                                                     Origin("p.yaml", 20)]
    assert p.decide("mcp__db__q", {"table": "n1", "limit": 5}).behavior == "allow"
    assert p.decide("mcp__db__q", {"table": "t3", "limit": 5}).behavior == "deny"
    assert p.decide("mcp__db__q", {"table": 3, "limit": 5}).behavior == "deny"  # another type
    assert p.decide("mcp__db__q", {"table": "n1", "limit": 500}).behavior == "deny"
