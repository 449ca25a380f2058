"""Wrappers, shells and ``find -exec`` nested past the depth the analysis looks into.

Past 16 levels a wrapper was read as a plain program, so the rest of the line was its
arguments: ``allow: Bash(nice:*)`` under ``default: deny`` allowed ``nice `` seventeen times
then ``rm -rf ~`` (also ``env``, ``timeout``, ``sudo``, ``xargs``, ``find . -exec`` seventeen
deep, sixteen ``nice`` then ``sh -c``). What such a wrapper runs is now a step no allow
rule covers (a whole-tool ``allow: Bash`` still allows it), and the deny and ask rules still
see through it."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy

ALLOWS = [("allow", f"Bash({p}:*)") for p in (
    "nice", "env", "timeout", "stdbuf", "xargs", "sudo", "find", "sh", "bash", "ls")]


def policy(rules: list[tuple[str, str]], default: str) -> Any:
    return compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default=default))  # type: ignore[arg-type]


DEEP = [
    *(w * n + "rm -rf ~" for w in ("nice ", "nice -n 1 ", "env A=1 ", "timeout 5 ",
                                   "stdbuf -o0 ", "sudo ", "xargs ") for n in (17, 40)),
    "find . -exec " * 17 + "rm -rf ~ " + "\\; " * 17,
    "nice " * 16 + "sh -c 'rm -rf ~'",
    "nice " * 16 + "bash -c 'rm -rf ~'",
]


@pytest.mark.parametrize("command", DEEP)
@pytest.mark.parametrize("default", ["deny", "ask"])
def test_an_allow_rule_for_a_wrapper_does_not_cover_what_is_nested_too_deep(
        command: str, default: str) -> None:
    decision = policy(ALLOWS, default).decide("Bash", {"command": command})
    assert decision.behavior == default, decision


@pytest.mark.parametrize("command", DEEP)
def test_a_deny_rule_meets_it(command: str) -> None:
    decision = policy([("deny", "Bash(rm:*)"), ("allow", "Bash")], "ask").decide(
        "Bash", {"command": command})
    assert decision.behavior == "deny"


@pytest.mark.parametrize("command", ["nice " * 15 + "ls", "env A=1 " * 10 + "ls",
                                     "timeout 5 nice -n 1 sudo ls",
                                     "find . -exec " * 3 + "ls " + "\\; " * 3])
def test_wrappers_within_the_depth_stay_allowed(command: str) -> None:
    assert policy(ALLOWS, "deny").decide("Bash", {"command": command}).behavior == "allow"


def test_a_whole_tool_allow_still_allows_a_deep_harmless_line() -> None:
    p = policy([("deny", "Bash(rm:*)"), ("allow", "Bash")], "ask")
    assert p.decide("Bash", {"command": "sudo " * 40 + "ls"}).behavior == "allow"
