"""PowerShell's kin: the CLI's tools that run code or commands no Bash rule reads (REPL and
its older names, Workflow, Skill, SlashCommand, RemoteTrigger). Before, under ``default:
allow`` beside ``deny: Bash(rm:*)`` (or an ``allow: "*"``) each was allowed whatever it ran;
a whole ``deny: Bash`` hid Bash from the model but left PowerShell and the rest in view; and
a rule naming a tool's older name (``deny: KillShell``, ``allow: Eval``) met no call (the
CLI reports TaskStop, REPL)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.inproc import run_cli
from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy, unread_tools
from toolhost.permissions.builtin_names import BUILTIN_TOOLS

KIN = ["REPL", "Eval", "JavaScript", "Workflow", "RemoteTrigger", "PowerShell"]
CALLS: dict[str, dict[str, Any]] = {
    "REPL": {"code": "require('child_process').execSync('rm -rf ~')"},
    "Eval": {"code": "process.exit(1)"}, "JavaScript": {"code": "1"},
    "Workflow": {"script": "await bash('rm -rf ~')"},
    "RemoteTrigger": {"action": "run", "id": "x"},
    "PowerShell": {"command": "Remove-Item -Recurse ~"},
}


def policy(rules: list[tuple[str, str]], default: str = "ask") -> Any:
    return compile_policy(PermissionsConfig(
        rules=tuple(RuleConfig(effect=e, tool=t, origin=Origin("p.yaml", k + 1, 3))
                    for k, (e, t) in enumerate(rules)),
        default=default))  # type: ignore[arg-type]


def test_every_kin_is_a_known_builtin_held_as_unread() -> None:
    assert set(KIN) == set(getattr(unread_tools, "UNREAD_TOOLS", ()))
    assert set(KIN) <= BUILTIN_TOOLS


@pytest.mark.parametrize("name", KIN)
@pytest.mark.parametrize(("rules", "default"), [
    ([("deny", "Bash(rm:*)")], "allow"),
    ([("deny", "Bash(rm:*)"), ("allow", "*")], "ask"),
    ([("deny", "Bash"), ("allow", "Read")], "allow"),
    ([("deny", "Bash(curl:*)"), ("ask", "Bash(git:*)"), ("allow", "?*")], "deny"),
])
def test_a_bash_deny_denies_a_kin_no_allow_names(
        name: str, rules: list[tuple[str, str]], default: str) -> None:
    decision = policy(rules, default).decide(name, CALLS[name])
    assert decision.behavior == "deny", (name, decision)
    assert f"only an allow rule naming {name} itself can allow it" in decision.message
    assert decision.rule == rules[0][1] and decision.origin is not None


@pytest.mark.parametrize("name", KIN)
def test_without_a_bash_rule_the_default_allow_asks(name: str) -> None:
    assert policy([], "allow").decide(name, CALLS[name]).behavior == "ask"
    assert policy([("allow", "*")], "deny").decide(name, CALLS[name]).behavior == "deny"


@pytest.mark.parametrize("name", KIN)
def test_a_rule_naming_the_kin_allows_it(name: str) -> None:
    p = policy([("deny", "Bash(rm:*)"), ("allow", name)], "deny")
    assert p.decide(name, CALLS[name]).behavior == "allow"


@pytest.mark.parametrize(("rule", "name"), [("Eval", "REPL"), ("REPL", "Eval")])
def test_an_older_name_names_the_code_runner(rule: str, name: str) -> None:
    p = policy([("deny", "Bash(rm:*)"), ("allow", rule)], "allow")
    assert p.decide(name, CALLS[name]).behavior == "allow"
    assert policy([("deny", rule)], "allow").decide(name, CALLS[name]).behavior == "deny"


@pytest.mark.parametrize(("rule", "name"), [
    ("KillShell", "TaskStop"), ("KillBash", "TaskStop"), ("TaskStop", "KillShell"),
    ("ListPeers", "ListAgents"), ("Brief", "SendUserMessage"), ("ProposeGoal", "SetGoal"),
    ("ListMcpResources", "ListMcpResourcesTool"), ("ReadMcpResource", "ReadMcpResourceTool"),
    ("ReadMcpResourceDir", "ReadMcpResourceDirTool"), ("Task", "Agent"), ("Agent", "Task"),
])
def test_a_rule_naming_an_older_name_meets_the_call(rule: str, name: str) -> None:
    assert policy([("deny", rule)], "allow").decide(name, {}).behavior == "deny"
    assert policy([("allow", rule)], "deny").decide(name, {}).behavior == "allow"
    assert name in policy([("deny", rule)], "allow").disallowed_tools()


def test_a_glob_is_matched_as_written_against_older_names() -> None:
    # (only Edit, Read and Task/Agent stand for their families in a glob)
    p = policy([("allow", "Kill*")], "deny")
    assert p.decide("TaskStop", {}).behavior == "deny"
    assert p.decide("KillShell", {}).behavior == "allow"


@pytest.mark.parametrize("rules", [[("deny", "Bash")], [("deny", "Read"), ("deny", "Bash"),
                                                        ("allow", "*"), ("ask", "Bash(ls)")]])
def test_a_whole_bash_deny_hides_the_kin_from_the_model(rules: list[tuple[str, str]]) -> None:
    hidden = policy(rules, "allow").disallowed_tools()
    assert "Bash" in hidden
    assert set(KIN) <= set(hidden), hidden


def test_a_kin_a_rule_allows_or_asks_about_stays_in_view() -> None:
    hidden = policy([("deny", "Bash"), ("allow", "PowerShell"), ("ask", "Remote*"),
                     ("ask", "Work*"), ("allow", "Eval"), ("allow", "*")], "deny"
                    ).disallowed_tools()
    assert {"PowerShell", "RemoteTrigger", "Workflow", "REPL", "Eval"}.isdisjoint(hidden), hidden
    assert {"Bash", "JavaScript"} <= set(hidden), hidden


# A skill's or command file's text goes to the model; its shell lines do not run under the
# CLI toolhost starts (runner.cli_settings: disableSkillShellExecution), so the default and
# a glob decide these as any other tool. Before, R35-1 held them as PowerShell is held: under
# ``default: allow`` a person had to approve every skill.
@pytest.mark.parametrize("name", ["Skill", "SlashCommand"])
@pytest.mark.parametrize(("rules", "default", "behavior"), [
    ([], "allow", "allow"),
    ([("deny", "Bash(rm:*)")], "allow", "allow"),
    ([("deny", "Bash(rm:*)"), ("allow", "*")], "ask", "allow"),
    ([("ask", "Bash(git:*)")], "allow", "allow"),
    ([("allow", "Bash")], "deny", "deny"),
    ([("deny", "Skill"), ("deny", "SlashCommand")], "allow", "deny"),
])
def test_skills_and_commands_follow_the_rules_and_the_default(
        name: str, rules: list[tuple[str, str]], default: str, behavior: str) -> None:
    decision = policy(rules, default).decide(name, {"skill": "cleanup", "command": "/wipe"})
    assert decision.behavior == behavior, decision


def test_a_conditional_bash_deny_hides_nothing_more() -> None:
    hidden = policy([("deny", "Bash(rm:*)")], "allow").disallowed_tools()
    assert hidden == []


def _validate(tmp_path: Path, permissions: str) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\npermissions:\n" + permissions)
    return run_cli(("validate", str(config)), env={"XDG_CONFIG_HOME": None,
                                                   "HOME": str(tmp_path)})


@pytest.mark.parametrize("name", ["REPL", "Workflow", "RemoteTrigger", "PowerShell"])
def test_validate_warns_that_bash_rules_do_not_judge_an_allowed_kin(
        tmp_path: Path, name: str) -> None:
    out = _validate(tmp_path, f"  deny: [Bash(rm:*)]\n  allow:\n    - Read\n    - {name}\n")
    assert out.returncode == 0, out.stderr
    (line,) = [x for x in out.stderr.splitlines() if "unread-shell" in x]
    assert line.startswith(f"{tmp_path / 'toolhost.yaml'}:6:")
    assert f"{name} runs" in line or f"{name} starts" in line
    assert "no Bash rule reads" in line
