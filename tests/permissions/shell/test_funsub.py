"""Bash 5.3's command substitutions run in the shell itself, ``${ cmd; }`` and ``${| cmd; }``:
the parser refuses to vouch for a line holding one. Before, ``echo ${ rm x; }`` read as a
parameter expansion and was allowed under ``deny: Bash(rm:*)`` (bash 5.2 refuses it; a
bash 5.3 runs rm)."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def policy(rules: list[tuple[str, str]], default: str = "allow") -> Any:
    return compile_policy(PermissionsConfig(
        rules=tuple(RuleConfig(effect=e, tool=t) for e, t in rules),
        default=default))  # type: ignore[arg-type]


LINES = ["echo ${ rm x; }", "echo ${ rm x;}", 'echo "${ rm x; }"', "echo ${| rm x; }",
         "echo ${|rm x;}", "x=${ rm x; }", "echo ${\trm x; }", "echo ${\nrm x\n}",
         "cat <<< ${ rm x; }", "echo $(echo ${ rm x; })", "echo ${a:-${ rm x; }}",
         "cat <<EOF\n${ rm x; }\nEOF", "bash -c 'echo ${ rm x; }'", "echo ${ ls; }"]


@pytest.mark.parametrize("line", LINES)
def test_a_function_substitution_is_not_provable(line: str) -> None:
    decision = policy([("deny", "Bash(rm:*)")]).decide("Bash", {"command": line})
    assert decision.behavior == "deny", (line, decision)
    assert policy([("allow", "Bash(echo:*)"), ("allow", "Bash(cat:*)")], "deny").decide(
        "Bash", {"command": line}).behavior == "deny"


@pytest.mark.parametrize("line", ["echo ${x}", "echo ${x:-a b}", 'echo "${#x}"', "echo ${x|}",
                                  "echo '${ rm x; }'", "echo \\${ rm x; }"])
def test_parameter_expansions_and_quoted_text_stand(line: str) -> None:
    assert policy([("deny", "Bash(rm:*)"), ("allow", "Bash(echo:*)"), ("allow", "Bash(cat:*)")],
                  "deny").decide("Bash", {"command": line}).behavior == "allow", line
