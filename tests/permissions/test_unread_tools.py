"""The CLI's PowerShell tool runs a command no Bash rule reads: under ``default: allow``
beside ``deny: Bash(rm:*)`` it ran ``Remove-Item -Recurse ~``. Now only an allow rule naming
PowerShell allows it. A tool name the engine does not know is not allowed by the default."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.inproc import run_cli
from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.builtin_names import BUILTIN_TOOLS
from toolhost.permissions.unread_tools import UNREAD_TOOLS


def policy(rules: list[tuple[str, str]], default: str = "ask", **extra: Any) -> Any:
    return compile_policy(PermissionsConfig(
        rules=tuple(RuleConfig(effect=e, tool=t, origin=Origin("p.yaml", k + 1, 3), **extra)
                    for k, (e, t) in enumerate(rules)),
        default=default))  # type: ignore[arg-type]


COMMANDS = ["Remove-Item -Recurse ~", "rm -rf ~", "Get-ChildItem; ri -r -fo ~",
            "powershell -c 'rm -r ~'", "ls"]
BASH_DENY = [("deny", "Bash(rm:*)")]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("rules", "default"), [
    (BASH_DENY, "allow"),
    ([*BASH_DENY, ("allow", "*")], "ask"),
    ([*BASH_DENY, ("allow", "Power*")], "ask"),
    ([*BASH_DENY, ("allow", "*Shell")], "deny"),
    ([("deny", "Bash"), ("allow", "Read")], "allow"),
    ([*BASH_DENY, ("ask", "Bash(curl:*)")], "allow"),
])
def test_a_bash_deny_denies_powershell_not_named_by_an_allow(
        rules: list[tuple[str, str]], default: str, command: str) -> None:
    decision = policy(rules, default).decide("PowerShell", {"command": command})
    assert decision.behavior == "deny", decision
    assert "PowerShell runs a command the Bash rules cannot read" in decision.message
    assert decision.origin is not None and decision.origin.line == 1
    assert decision.rule == rules[0][1]


@pytest.mark.parametrize(("rules", "default", "rule"), [
    ([], "allow", None),
    ([("allow", "*")], "ask", None),
    ([("ask", "Bash(rm:*)")], "allow", "Bash(rm:*)"),
    ([("ask", "Bash")], "allow", "Bash"),
    ([("allow", "Bash"), ("allow", "P*")], "ask", None),
])
def test_without_a_bash_deny_powershell_not_named_is_asked(
        rules: list[tuple[str, str]], default: str, rule: str | None) -> None:
    decision = policy(rules, default).decide("PowerShell", {"command": "Remove-Item ~"})
    assert decision.behavior == "ask", decision
    assert decision.rule == rule
    assert "only an allow rule naming PowerShell itself can allow it" in decision.message


def test_under_default_deny_a_glob_allow_does_not_allow_powershell() -> None:
    decision = policy([("allow", "*")], "deny").decide("PowerShell", {"command": "ls"})
    assert decision.behavior == "deny"
    assert "default is deny" in decision.message


@pytest.mark.parametrize("default", ["allow", "ask", "deny"])
@pytest.mark.parametrize("extra", [[], BASH_DENY, [("ask", "Bash")]])
def test_a_rule_naming_powershell_allows_it(default: str,
                                            extra: list[tuple[str, str]]) -> None:
    decision = policy([*extra, ("allow", "PowerShell")], default).decide(
        "PowerShell", {"command": "Get-ChildItem"})
    assert decision.behavior == "allow"
    assert decision.rule == "PowerShell"


def test_a_structured_rule_naming_powershell_allows_what_it_names() -> None:
    p = compile_policy(PermissionsConfig(rules=(
        RuleConfig(effect="deny", tool="Bash(rm:*)"),
        RuleConfig(effect="allow", tool="PowerShell",
                   when={"command": {"regex": "^Get-ChildItem$"}}),
    ), default="allow"))
    assert p.decide("PowerShell", {"command": "Get-ChildItem"}).behavior == "allow"
    assert p.decide("PowerShell", {"command": "Remove-Item ~"}).behavior == "deny"


def test_powershell_s_own_deny_and_ask_rules_still_decide() -> None:
    p = policy([("deny", "PowerShell"), ("allow", "*")], "allow")
    assert p.decide("PowerShell", {"command": "ls"}).rule == "PowerShell"
    assert p.decide("PowerShell", {"command": "ls"}).behavior == "deny"
    assert policy([("ask", "PowerShell")], "allow").decide(
        "PowerShell", {"command": "ls"}).behavior == "ask"


@pytest.mark.parametrize("name", ["Frobnicate", "NewShellTool", "Bash2", "bash", "POWERSHELL",
                                  "X", "mcp", "Mcp__a__b"])
def test_a_tool_the_engine_does_not_know_is_not_allowed_by_the_default(name: str) -> None:
    decision = policy([], "allow").decide(name, {"command": "rm -rf ~"})
    assert decision.behavior == "ask", (name, decision)
    assert "does not know the tool" in decision.message
    assert policy([], "deny").decide(name, {}).behavior == "deny"


@pytest.mark.parametrize(("rule", "name"), [("Frobnicate", "Frobnicate"), ("Frob*", "Frobnicate"),
                                            ("*", "NewTool")])
def test_a_rule_naming_an_unknown_tool_decides_it(rule: str, name: str) -> None:
    assert policy([("allow", rule)], "ask").decide(name, {}).behavior == "allow"
    assert policy([("deny", rule)], "allow").decide(name, {}).behavior == "deny"


@pytest.mark.parametrize("name", sorted(BUILTIN_TOOLS - set(UNREAD_TOOLS)))
def test_every_known_builtin_stays_under_the_default(name: str) -> None:
    decision = policy([], "allow").decide(name, {})
    assert decision.behavior == "allow", (name, decision)


@pytest.mark.parametrize("name", ["mcp__db__query", "mcp__undeclared__tool"])
def test_mcp_tools_stay_under_the_default(name: str) -> None:
    assert policy([], "allow").decide(name, {}).behavior == "allow"


def test_declared_names_and_the_cli_s_tools_are_known() -> None:
    for name in ("PowerShell", "RemoteTrigger", "ToolSearch", "LSP", "DesignSync", "TaskCreate"):
        assert name in BUILTIN_TOOLS


def _validate(tmp_path: Path, permissions: str) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\npermissions:\n" + permissions)
    return run_cli(("validate", str(config)), env={"XDG_CONFIG_HOME": None,
                                                   "HOME": str(tmp_path)})


@pytest.mark.parametrize("guard", ["deny: [Bash(rm:*)]", "ask: [Bash]", "deny: ['Bash(curl *)']"])
def test_validate_warns_that_bash_rules_do_not_judge_an_allowed_powershell(
        tmp_path: Path, guard: str) -> None:
    out = _validate(tmp_path, f"  {guard}\n  allow:\n    - Read\n    - PowerShell\n")
    assert out.returncode == 0, out.stderr
    (line,) = [x for x in out.stderr.splitlines() if "unread-shell" in x]
    assert line.startswith(f"{tmp_path / 'toolhost.yaml'}:6:")  # file:line of the allow
    assert "PowerShell runs a command no Bash rule reads" in line


@pytest.mark.parametrize("permissions", [
    "  allow: [PowerShell]\n",  # no Bash rule to dodge
    "  deny: [Bash(rm:*)]\n  allow: ['*']\n",  # the glob does not allow it (asked)
    "  deny: [Bash(rm:*), PowerShell]\n",
])
def test_validate_is_quiet_where_nothing_is_dodged(tmp_path: Path, permissions: str) -> None:
    out = _validate(tmp_path, permissions)
    assert "unread-shell" not in out.stderr, out.stderr
