"""The CLI's Monitor runs its ``command`` in the shell, and the CLI checks that command
against its Bash rules. Named by its own tool name, such a call met none of toolhost's Bash
rules: ``deny: Bash(rm:*)`` beside ``default: allow`` (or ``allow: Monitor``) let
``Monitor {"command": "rm -rf ~"}`` run. The Bash rules now judge the command it runs."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def policy(rules: list[tuple[str, str]], default: str = "ask", **extra: Any) -> Any:
    return compile_policy(PermissionsConfig(
        rules=tuple(RuleConfig(effect=e, tool=t, **extra) for e, t in rules),
        default=default))  # type: ignore[arg-type]


GUARDS = [
    ([("deny", "Bash(rm:*)")], "allow"),
    ([("deny", "Bash(rm:*)"), ("allow", "Monitor")], "ask"),
    ([("deny", "Bash(rm:*)"), ("allow", "*")], "deny"),
    ([("deny", "Bash(rm:*)"), ("allow", "Mon*")], "deny"),
]

DODGES = [
    "rm -rf ~",
    "tail -f app.log; rm -rf ~",
    "tail -f app.log | grep x && rm -rf .",
    "nice rm -rf ~",
    "$(printf rm) -rf ~",  # unprovable: meets the Bash deny
    "eval \"$X\"",
]


@pytest.mark.parametrize(("rules", "default"), GUARDS)
@pytest.mark.parametrize("command", DODGES)
def test_a_bash_deny_meets_the_command_monitor_runs(
        rules: list[tuple[str, str]], default: str, command: str) -> None:
    decision = policy(rules, default).decide(
        "Monitor", {"command": command, "description": "watch", "timeout_ms": 60000})
    assert decision.behavior == "deny", (rules, command, decision)
    assert "Monitor runs its command in the shell" in decision.message
    assert "Bash(rm:*)" in decision.message


@pytest.mark.parametrize(("rules", "default"), GUARDS)
def test_a_harmless_command_is_left_to_monitor_s_own_rules(
        rules: list[tuple[str, str]], default: str) -> None:
    decision = policy(rules, default).decide("Monitor", {"command": "tail -f app.log"})
    assert decision.behavior == "allow"


def test_a_whole_tool_bash_deny_denies_every_command_monitor_runs() -> None:
    p = policy([("deny", "Bash"), ("allow", "Monitor")], "allow")
    assert p.decide("Monitor", {"command": "tail -f app.log"}).behavior == "deny"
    assert p.decide("Bash", {"command": "ls"}).behavior == "deny"


def test_a_bash_ask_asks_unless_monitor_s_own_rules_deny() -> None:
    p = policy([("ask", "Bash(git push:*)"), ("allow", "Monitor")], "allow")
    asked = p.decide("Monitor", {"command": "git push origin main"})
    assert asked.behavior == "ask"
    assert asked.rule == "Bash(git push:*)"
    denied = policy([("deny", "Monitor"), ("ask", "Bash(git push:*)")], "allow")
    assert denied.decide("Monitor", {"command": "git push"}).behavior == "deny"


@pytest.mark.parametrize("command", [["rm", "-rf", "~"], None, 7, {"x": "rm"}])
def test_a_command_that_is_no_string_fails_closed(command: object) -> None:
    p = policy([("deny", "Bash(rm:*)"), ("allow", "Monitor")], "allow")
    assert p.decide("Monitor", {"command": command}).behavior == "deny"


def test_the_default_of_bash_plays_no_part() -> None:
    # no Bash rule names the command: Monitor's own rules and the default decide, as before
    assert policy([("allow", "Monitor")], "deny").decide(
        "Monitor", {"command": "tail -f app.log"}).behavior == "allow"
    assert policy([("allow", "Bash")], "deny").decide(
        "Monitor", {"command": "tail -f app.log"}).behavior == "deny"
    assert policy([], "ask").decide("Monitor", {"command": "ls"}).behavior == "ask"


def test_a_websocket_monitor_runs_no_command() -> None:
    p = policy([("deny", "Bash(rm:*)"), ("allow", "Monitor")], "ask")
    assert p.decide("Monitor", {"ws": {"url": "wss://example.com/feed"}}).behavior == "allow"


def test_the_command_an_allow_rule_rewrites_in_is_the_one_judged() -> None:
    p = compile_policy(PermissionsConfig(rules=(
        RuleConfig(effect="deny", tool="Bash(rm:*)"),
        RuleConfig(effect="allow", tool="Monitor",
                   rewrite={"set": {"command": "rm -rf /tmp/x"}}),
    ), default="ask"))
    assert p.decide("Monitor", {"command": "tail -f app.log"}).behavior == "deny"


def test_bash_itself_is_decided_as_before() -> None:
    p = policy([("deny", "Bash(rm:*)")], "allow")
    assert p.decide("Bash", {"command": "rm -rf ~"}).behavior == "deny"
    assert p.decide("Bash", {"command": "ls"}).behavior == "allow"
    assert policy([("deny", "Bash(rm:*)")], "deny").decide(
        "Bash", {"command": "ls"}).behavior == "deny"
