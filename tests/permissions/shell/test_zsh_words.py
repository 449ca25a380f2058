"""Where the user's shell is zsh (macOS's default), the CLI runs Bash calls in zsh: ``=rm x``
runs /bin/rm (equals expansion) and ``${(e)x}`` runs the commands in x's value. Bash reads
the first as a program named ``=rm`` and refuses the second, so before both were allowed
under ``deny: Bash(rm:*)``. Now neither is provable."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def policy(rules: list[tuple[str, str]], default: str = "allow") -> Any:
    return compile_policy(PermissionsConfig(
        rules=tuple(RuleConfig(effect=e, tool=t) for e, t in rules),
        default=default))  # type: ignore[arg-type]


GUARD = [("deny", "Bash(rm:*)")]
ALLOWS = [("allow", "Bash(echo:*)"), ("allow", "Bash(ls:*)"), ("allow", "Bash(test:*)"),
          ("allow", "Bash(sudo:*)"), ("allow", "Bash([:*)")]


@pytest.mark.parametrize("line", ["=rm x", "=rm", "sudo =rm x", "ls; =rm x", "echo $(=rm x)",
                                  "=$X y", "x='$(rm y)'; echo ${(e)x}", 'echo "${(e)x}"',
                                  "echo ${(P)x}", "ls =rm", "bash -c '=rm x'"])
def test_a_zsh_expansion_is_not_provable(line: str) -> None:
    assert policy(GUARD).decide("Bash", {"command": line}).behavior == "deny", line
    assert policy([*GUARD, *ALLOWS], "deny").decide(
        "Bash", {"command": line}).behavior == "deny", line


@pytest.mark.parametrize("line", ["echo =", "echo '=x'", "echo a=b", "[[ $a == b ]]",
                                  "[[ $a =~ ^x ]]", "[[ a = b ]]", "[ a = b ]", "test a = b",
                                  "ls --color=auto", "echo \\=x"])
def test_other_equals_signs_stand(line: str) -> None:
    assert policy(GUARD).decide("Bash", {"command": line}).behavior == "allow", line


@pytest.mark.parametrize("line", ["noglob rm x", "nocorrect rm x", "- rm x", "repeat 3 rm x",
                                  "noglob nocorrect rm x", "sudo noglob rm x",
                                  "noglob /bin/rm x", "repeat 2 - rm x"])
def test_zsh_s_precommand_modifiers_are_seen_through(line: str) -> None:
    # zsh runs the command after noglob, nocorrect, - and repeat N (before: allowed)
    assert policy(GUARD).decide("Bash", {"command": line}).behavior == "deny", line
    assert policy([*GUARD, ("allow", "Bash(noglob:*)"), ("allow", "Bash(repeat:*)"),
                   ("allow", "Bash(nocorrect:*)"), ("allow", "Bash(-:*)")], "deny").decide(
        "Bash", {"command": line}).behavior == "deny", line


def test_a_modifier_before_an_allowed_program_is_allowed_with_it() -> None:
    p = policy([("allow", "Bash(ls:*)")], "deny")
    for line in ("noglob ls *.txt", "nocorrect ls", "repeat 2 ls"):
        assert p.decide("Bash", {"command": line}).behavior == "allow", line
