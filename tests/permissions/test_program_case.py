"""Round 12: macOS and Windows find a program in any case (``RM -rf x`` runs ``/bin/rm`` on
APFS), so a deny or ask Bash rule meets a program word in any case, after wrappers and paths
too; an allow rule still proves only the spelling it names."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.authoring.spec_hints import content_hints


def policy(rules: list[tuple[str, str]], default: str) -> Any:
    return compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default=default))


DENY = policy([("deny", "Bash(rm:*)"), ("deny", "Bash(git push:*)")], "allow")
ASK = policy([("ask", "Bash(curl:*)")], "allow")
ALLOW = policy([("allow", "Bash(rm:*)"), ("allow", "Bash(ls:*)")], "ask")


@pytest.mark.parametrize("command", [
    "RM -rf /", "Rm x", "/BIN/RM x", "/bin/Rm x", "SUDO rm x", "sudo RM x", "FOO=1 RM x",
    "ENV RM x", "timeout 5 rM x", "echo x && RM y", "echo $(RM y)", "bash -c 'RM x'",
    "GIT push", "Git push origin", "/USR/BIN/GIT push", "find . -exec RM {} +",
])
def test_deny_meets_a_program_in_any_case(command: str) -> None:
    assert DENY.decide("Bash", {"command": command}).behavior == "deny", command


@pytest.mark.parametrize("command", ["CURL http://x", "Curl -s x", "sudo CURL x"])
def test_ask_meets_a_program_in_any_case(command: str) -> None:
    assert ASK.decide("Bash", {"command": command}).behavior == "ask", command


@pytest.mark.parametrize("command,expected", [
    ("rm x", "allow"), ("RM x", "ask"), ("LS -la", "ask"), ("ls -la", "allow"),
])
def test_allow_proves_only_its_spelling(command: str, expected: str) -> None:
    assert ALLOW.decide("Bash", {"command": command}).behavior == expected


@pytest.mark.parametrize("command", ["echo RM x", "ls RM", "git status", "GIT status",
                                     "grep -r RM .", "Make build"])
def test_arguments_and_other_programs_pass(command: str) -> None:
    assert DENY.decide("Bash", {"command": command}).behavior == "allow", command


@pytest.mark.parametrize("rule", ["Bash(RM:*)", "Bash(GIT push:*)", "Bash(Git push:*)",
                                  "Bash(/USR/BIN/GIT status)", "Bash(Curl http://x:*)"])
def test_validate_names_a_capitalised_program(rule: str) -> None:
    for effect in ("deny", "allow"):
        found = [h for h in content_hints(rule, "/tmp", effect) if "matched as written" in h[1]]
        assert len(found) == 1 and found[0][0] == "warning", (rule, found)


@pytest.mark.parametrize("rule", ["Bash(rm:*)", "Bash(R CMD build:*)", "Bash(Rscript -e x)",
                                  "Bash(VBoxManage list:*)", "Bash(SetFile -a V x)"])
def test_validate_leaves_programs_spelled_so(rule: str) -> None:
    assert not [h for h in content_hints(rule, "/tmp", "deny") if "matched as written" in h[1]]
