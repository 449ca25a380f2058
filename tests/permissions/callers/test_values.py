"""Round 16: a ``callers`` value no token's claim holds (blanks around it, a control or
format character) is refused with its line, and a rule restricted to callers that an earlier
deny or ask for the same callers always meets first is reported as shadowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.inproc import run_cli
from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.authoring.lint import lint_policy
from toolhost.permissions.callers.identity import parse_callers


@pytest.mark.parametrize("value", ["ana ", " ana", "ana\n", "\tana", "a\u202eb", "a\u200bb",
                                   "a\x00b", "a\x7fb"])
@pytest.mark.parametrize("kind", ["subjects", "groups", "scopes"])
def test_a_value_no_claim_holds_is_refused(kind: str, value: str) -> None:
    with pytest.raises(ValueError, match=f"callers.{kind}: .*names nobody"):
        parse_callers({kind: [value]})


def test_honest_values_load() -> None:
    match = parse_callers({"groups": ["Platform Team", "contractor-*"],
                           "subjects": ["ana@example.com"], "scopes": ["tools:call"]})
    assert "Platform Team" in match.groups


def _policy(*rules: RuleConfig) -> object:
    return compile_policy(PermissionsConfig(rules=rules, default="ask"),
                          tool_names=["mcp__db__migrate"])


@pytest.mark.parametrize(("earlier", "later", "hidden"), [
    ({"groups": ["contractors"]}, {"groups": ["contractors"]}, True),
    ({"groups": ["contractors", "interns"]}, {"groups": ["interns"]}, True),
    ({"groups": ["contractor-*"]}, {"groups": ["contractor-ana"]}, True),
    ({"subjects": ["ana"], "groups": ["x"]}, {"subjects": ["ana"]}, True),
    ({"groups": ["contractors"]}, {"groups": ["contractors", "platform"]}, False),
    ({"groups": ["contractors"]}, {"subjects": ["contractors"]}, False),
    ({"groups": ["contractor-ana"]}, {"groups": ["contractor-*"]}, False),
])
def test_a_callers_deny_shadows_a_later_rule_for_the_same_callers(
        earlier: dict[str, list[str]], later: dict[str, list[str]], hidden: bool) -> None:
    policy = _policy(RuleConfig(effect="deny", tool="mcp__db__migrate", callers=earlier),
                     RuleConfig(effect="allow", tool="mcp__db__migrate", callers=later))
    found = [f for f in lint_policy(policy) if f.code == "shadowed"]  # type: ignore[arg-type]
    assert bool(found) is hidden


def test_validate_reports_both_with_their_lines(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  db:\n    tools:\n"
                      "      migrate: {command: [echo, hi]}\n"
                      "permissions:\n  deny:\n    - tool: mcp__db__migrate\n"
                      "      callers: {groups: [contractors]}\n  allow:\n"
                      "    - tool: mcp__db__migrate\n      callers: {groups: [contractors]}\n")
    done = run_cli(["validate", "--no-layers", str(config)])
    assert f"{config}:11:7:" in done.stderr + done.stdout
    assert "shadowed" in done.stderr + done.stdout
    config.write_text(config.read_text().replace("[contractors]}\n  allow", "['ana ']}\n  allow"))
    done = run_cli(["validate", "--no-layers", str(config)])
    assert done.returncode == 1 and f"{config}:9:" in done.stderr
    assert "blanks around it" in done.stderr and "Traceback" not in done.stderr
