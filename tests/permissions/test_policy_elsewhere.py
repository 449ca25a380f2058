"""Round 21: EnterWorktree moves the session into another folder; the rules keep judging the
start folder. A deny or ask path rule anchored there (``Read(./secrets/**)``) names none of
the worktree's files, and a Bash ask rule's scripts and Makefiles are read in the start
folder: with such a rule EnterWorktree is denied (round 20 denied it under a Bash deny
only). Rules that do not judge against the start folder leave it as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions.policy import compile_policy


@pytest.mark.parametrize("rules,want", [
    ([("ask", "Bash(rm:*)"), ("allow", "Bash")], "deny"),
    ([("deny", "Read(./secrets/**)")], "deny"), ([("deny", "Read(secrets/**)")], "deny"),
    ([("ask", "Edit(src/**)")], "deny"), ([("deny", "Read(/config/**)")], "deny"),
    ([("deny", "Bash(rm:*)")], "deny"),
    ([("deny", "Read(~/.ssh/**)")], "allow"), ([("deny", "Read(//etc/**)")], "allow"),
    ([("allow", "Read(./**)")], "allow"), ([], "allow"),
])
def test_entering_a_worktree_is_denied_where_a_rule_judges_the_start_folder(
        tmp_path: Path, rules: list[tuple[str, str]], want: str) -> None:
    config = PermissionsConfig(rules=tuple(RuleConfig(effect=e, tool=t)
                                           for e, t in rules), default="allow")
    decision = compile_policy(config, cwd=str(tmp_path)).decide("EnterWorktree", {"name": "w"})
    assert decision.behavior == want
    if want == "deny":
        assert "start folder" in decision.message and rules[0][1] in decision.message


# (round 22) the structured form: a path condition anchored in the start folder, or an
# expression on a file tool, judges against it as ``Read(./secrets/**)`` does
@pytest.mark.parametrize("rule,want", [
    (RuleConfig(effect="deny", tool="Read", when={"file_path": {"path_under": "./secrets"}}),
     "deny"),
    (RuleConfig(effect="deny", tool="Read", when={"file_path": {"path_glob": "secrets/**"}}),
     "deny"),
    (RuleConfig(effect="ask", tool="Edit", when={"file_path": {"path_under": "{here}/src"}}),
     "deny"),
    (RuleConfig(effect="ask", tool="Edit", when={"file_path": {"glob": "{here}/src/*"}}), "deny"),
    (RuleConfig(effect="deny", tool="Read", expr="'secrets' in file_path"), "deny"),
    (RuleConfig(effect="deny", tool="Read", when={"file_path": {"path_under": "~/.ssh"}}),
     "allow"),
    (RuleConfig(effect="deny", tool="Read", when={"file_path": {"glob": "*/secrets/*"}}),
     "allow"),
    (RuleConfig(effect="deny", tool="mcp__x__y", expr="true"), "allow"),
    (RuleConfig(effect="allow", tool="Read", when={"file_path": {"path_under": "./src"}}),
     "allow"),
])
def test_a_structured_rule_judging_the_start_folder_holds_the_session_there(
        tmp_path: Path, rule: RuleConfig, want: str) -> None:
    when = {k: {op: str(v).replace("{here}", str(tmp_path)) for op, v in spec.items()}
            for k, spec in (rule.when or {}).items()}
    rule = RuleConfig(effect=rule.effect, tool=rule.tool, when=when or None, expr=rule.expr)
    config = PermissionsConfig(rules=(rule,), default="allow")
    decision = compile_policy(config, cwd=str(tmp_path)).decide("EnterWorktree", {"name": "w"})
    assert decision.behavior == want
    if want == "deny":
        assert "start folder" in decision.message
