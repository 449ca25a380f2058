"""A Bash allow list bounds the command Monitor (and the workspace shell) runs, under a
``deny`` or ``ask`` default, as a WebFetch allow list bounds its WebSocket (R35-3). Before,
``default: deny`` with ``allow: [Monitor, Bash(npm test)]`` let Monitor run any command no
Bash deny or ask rule named (``rm -rf ~`` included), while a Bash call of it was denied."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.shell_tools import WORKSPACE_BASH


def policy(rules: list[tuple[str, str]], default: str) -> Any:
    return compile_policy(PermissionsConfig(
        rules=tuple(RuleConfig(effect=e, tool=t) for e, t in rules),
        default=default))  # type: ignore[arg-type]


ALLOW_LISTS = [
    [("allow", "Monitor"), ("allow", "Bash(npm test)"), ("allow", "Bash(tail:*)")],
    [("allow", "Mon*"), ("allow", "Bash(tail -f:*)")],
    [("allow", WORKSPACE_BASH), ("allow", "Monitor"), ("allow", "Bash(tail:*)"),
     ("deny", "Bash(curl:*)")],
]

OUTSIDE = [
    "rm -rf ~",
    "tail -f app.log; rm -rf ~",
    "tail -f app.log && python3 -c 'import os'",
    "sh -c 'tail -f x'",
    "bash",
    "npm test; npm publish",
]


@pytest.mark.parametrize("tool", ["Monitor", WORKSPACE_BASH])
@pytest.mark.parametrize("rules", ALLOW_LISTS)
@pytest.mark.parametrize("command", OUTSIDE)
@pytest.mark.parametrize("default", ["deny", "ask"])
def test_a_command_the_bash_allow_list_does_not_allow_meets_the_default(
        tool: str, rules: list[tuple[str, str]], command: str, default: str) -> None:
    p = policy(rules, default)
    bash = p.decide("Bash", {"command": command})
    assert bash.behavior != "allow"  # (a Bash call of it is not allowed either)
    decision = p.decide(tool, {"command": command})
    # the default, or a deny where the Bash rules deny it (an unprovable line meets curl's)
    assert decision.behavior in {default, "deny"}, (tool, rules, command, decision)
    assert decision.behavior == bash.behavior
    assert "runs its command in the shell" in decision.message


@pytest.mark.parametrize("tool", ["Monitor", WORKSPACE_BASH])
@pytest.mark.parametrize("rules", ALLOW_LISTS)
@pytest.mark.parametrize("default", ["deny", "ask"])
def test_a_command_the_allow_list_allows_runs(tool: str, rules: list[tuple[str, str]],
                                              default: str) -> None:
    decision = policy(rules, default).decide(tool, {"command": "tail -f app.log"})
    named = any(t == tool or (t == "Mon*" and tool == "Monitor") for _, t in rules)
    assert decision.behavior == ("allow" if named else default), decision


def test_without_a_bash_allow_list_nothing_changes() -> None:
    # only Bash deny and ask rules bound it (documented): the default of Bash plays no part
    p = policy([("allow", "Monitor"), ("deny", "Bash(curl:*)")], "deny")
    assert p.decide("Monitor", {"command": "tail -f app.log"}).behavior == "allow"
    assert p.decide("Monitor", {"command": "curl x"}).behavior == "deny"


def test_under_default_allow_an_allow_list_is_no_bound() -> None:
    p = policy([("allow", "Bash(tail:*)"), ("deny", "Bash(curl:*)")], "allow")
    assert p.decide("Monitor", {"command": "ls -la"}).behavior == "allow"
    assert p.decide("Monitor", {"command": "curl x"}).behavior == "deny"


def test_a_whole_bash_allow_allows_what_monitor_runs() -> None:
    p = policy([("allow", "Monitor"), ("allow", "Bash")], "deny")
    assert p.decide("Monitor", {"command": "make watch"}).behavior == "allow"


def test_the_websocket_and_the_command_are_bounded_together() -> None:
    p = policy([("allow", "Monitor"), ("allow", "Bash(tail:*)"),
                ("allow", "WebFetch(domain:ok.com)")], "deny")
    assert p.decide("Monitor", {"command": "tail -f x",
                                "ws": {"url": "wss://ok.com/"}}).behavior == "allow"
    assert p.decide("Monitor", {"command": "tail -f x",
                                "ws": {"url": "wss://evil.com/"}}).behavior == "deny"
    assert p.decide("Monitor", {"command": "rm x",
                                "ws": {"url": "wss://ok.com/"}}).behavior == "deny"
