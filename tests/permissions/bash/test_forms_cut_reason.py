"""A command read in more ways than the forms cap tries (``nice -n 1 `` two hundred times,
``env A=1 `` three hundred times) meets every deny and ask rule. The decision named the
first deny rule as if it had matched ("Denied by permission rule 'Bash(rm:*)'") for a line
holding no ``rm``; now it says why, as a spent decision budget does, and still fails
closed: no allow rule and no default allows it."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy

CUT = [
    "nice -n 1 " * 200 + "ls",
    "env A=1 " * 300 + "ls",
    "ls; " + "nice -n 1 " * 200 + "rm -rf ~",
]


def policy(rules: list[tuple[str, str]], default: str = "ask") -> Any:
    return compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default=default))  # type: ignore[arg-type]


@pytest.mark.parametrize("command", CUT)
def test_a_deny_says_the_command_cannot_be_read_whole(command: str) -> None:
    decision = policy([("deny", "Bash(rm:*)"), ("allow", "Bash")]).decide(
        "Bash", {"command": command})
    assert decision.behavior == "deny"
    assert "read in too many ways" in decision.message
    assert "Denied by permission rule" not in decision.message
    assert "\n" not in decision.message


@pytest.mark.parametrize("command", CUT)
def test_an_ask_says_so_too(command: str) -> None:
    decision = policy([("ask", "Bash(git push:*)"), ("allow", "Bash")]).decide(
        "Bash", {"command": command})
    assert decision.behavior == "ask"
    assert "read in too many ways" in decision.message


@pytest.mark.parametrize("rules", [
    [("deny", "Bash(rm:*)"), ("allow", "Bash")],
    [("ask", "Bash(rm:*)"), ("allow", "Bash")],
    [("allow", "Bash(nice:*)"), ("allow", "Bash(env:*)"), ("allow", "Bash(ls:*)")],
    [("deny", "Bash(curl:*)")],
])
@pytest.mark.parametrize("default", ["allow", "ask", "deny"])
@pytest.mark.parametrize("command", CUT)
def test_no_rule_and_no_default_allows_it(rules: list[tuple[str, str]], default: str,
                                          command: str) -> None:
    assert policy(rules, default).decide("Bash", {"command": command}).behavior != "allow"


@pytest.mark.parametrize("command", ["nice -n 1 ls", "nice -n 1 " * 3 + "ls",
                                     "env A=1 " * 5 + "ls", "timeout 5 " * 20 + "ls"])
def test_short_wrapped_commands_stay_allowed(command: str) -> None:
    assert policy([("deny", "Bash(rm:*)"), ("allow", "Bash")]).decide(
        "Bash", {"command": command}).behavior == "allow"
