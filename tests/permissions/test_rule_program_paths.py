"""A deny or ask Bash rule naming its program by a path (``Bash(/bin/rm:*)``) meets that
program however the line reaches it. Before, it met ``/bin/rm x`` alone: ``rm x`` (found on
PATH), ``/bin//rm x``, ``/usr/bin/../bin/rm x`` and ``sudo /usr/bin/rm x`` ran under it. An
allow rule still proves only the path as written."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy

# enough other Bash rules that the policy buckets them by first word (rule_plan.INDEX_FROM)
PADDING = [("allow", f"Bash(tool{k}:*)") for k in range(9)]


def policy(rules: list[tuple[str, str]], default: str = "allow") -> Any:
    return compile_policy(PermissionsConfig(
        rules=tuple(RuleConfig(effect=e, tool=t) for e, t in rules),
        default=default))  # type: ignore[arg-type]


LINES = ["rm x", "/bin/rm x", "/bin//rm x", "/usr/bin/rm -rf x", "/usr/bin/../bin/rm x",
         "//bin/rm x", "/bin/./rm x", "sudo /usr/bin/rm x", "env /bin//rm x", "./rm x",
         "ls; rm x", "timeout 5 rm x", "bash -c 'rm x'", "x=$(/bin//rm y)", "command rm x",
         "echo rm x | xargs /bin//rm"]


@pytest.mark.parametrize("padding", [[], PADDING])
@pytest.mark.parametrize("rule", ["Bash(/bin/rm:*)", "Bash(/usr/bin/rm:*)", "Bash(./rm:*)",
                                  "Bash(~/bin/rm:*)", "Bash(/bin/rm *)", "Bash( /bin/rm:*)"])
@pytest.mark.parametrize("line", LINES)
def test_a_deny_naming_a_program_by_path_meets_it_however_reached(
        padding: list[tuple[str, str]], rule: str, line: str) -> None:
    decision = policy([("deny", rule), *padding]).decide("Bash", {"command": line})
    assert decision.behavior == "deny", (rule, line, decision)


@pytest.mark.parametrize("line", ["rm x", "/bin//rm x", "sudo /usr/bin/rm x"])
def test_an_ask_naming_a_program_by_path_asks(line: str) -> None:
    decision = policy([("ask", "Bash(/bin/rm:*)"), ("allow", "Bash")]).decide(
        "Bash", {"command": line})
    assert decision.behavior == "ask", (line, decision)


@pytest.mark.parametrize("padding", [[], PADDING])
@pytest.mark.parametrize("line", ["ls", "rmdir x", "/bin/rmdir x", "grep rm x", "echo /bin/rm",
                                  "git rm x", "/usr/bin/git push"])
def test_other_programs_are_not_met(padding: list[tuple[str, str]], line: str) -> None:
    decision = policy([("deny", "Bash(/bin/rm:*)"), *padding]).decide("Bash", {"command": line})
    assert decision.behavior == "allow", (line, decision)


def test_the_words_after_the_program_still_count() -> None:
    p = policy([("deny", "Bash(/usr/bin/git push:*)")])
    for line in ("git push", "/usr/bin/git push origin", "git -C . push", "/bin//git push"):
        assert p.decide("Bash", {"command": line}).behavior == "deny", line
    assert p.decide("Bash", {"command": "git status"}).behavior == "allow"


def test_an_allow_proves_only_the_path_as_written() -> None:
    p = policy([("allow", "Bash(/bin/rm:*)")], "deny")
    assert p.decide("Bash", {"command": "/bin/rm x"}).behavior == "allow"
    for line in ("rm x", "/bin//rm x", "/usr/bin/rm x"):
        assert p.decide("Bash", {"command": line}).behavior == "deny", line
