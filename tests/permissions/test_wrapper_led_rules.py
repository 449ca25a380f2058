"""A deny or ask rule naming a wrapper and the command it runs (``Bash(sudo rm:*)``,
``Bash(env rm:*)``, ``Bash(timeout 5 rm:*)``, ``Bash(xargs rm:*)``) meets every spelling of
that wrapper's options. Before, it met only the spelling without them: ``sudo -u root rm x``,
``sudo -- rm x``, ``env -i rm x``, ``timeout -s 9 5 rm x`` and ``xargs -0 rm`` were allowed
beside it (deny rules see through wrappers to the command, but this rule names the wrapper)."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def policy(rules: list[tuple[str, str]], default: str = "allow") -> Any:
    return compile_policy(PermissionsConfig(
        rules=tuple(RuleConfig(effect=e, tool=t) for e, t in rules),
        default=default))  # type: ignore[arg-type]


SPELLINGS = {
    "Bash(sudo rm:*)": ["sudo rm x", "sudo -u root rm x", "sudo -- rm x", "sudo FOO=1 rm x",
                        "sudo -E -u root -- rm -rf x", "/usr/bin/sudo -n rm x",
                        "sudo env rm x", "sudo -uroot rm x", "nice sudo -u r rm x",
                        "sudo -H -n -E -P -S -k -A -b -u r -g g -C 9 -D / rm x"],
    "Bash(/usr/bin/sudo rm:*)": ["sudo -u root rm x"],
    "Bash(env rm:*)": ["env -i rm x", "env FOO=1 rm x", "env -u HOME -- rm x",
                       "env -i A=1 B=2 rm x", "sudo env -i rm x"],
    "Bash(timeout 5 rm:*)": ["timeout -s 9 5 rm x", "timeout --foreground 5 rm x",
                             "timeout -k 1 5 rm x"],
    "Bash(xargs rm:*)": ["xargs -0 rm", "xargs -n1 rm", "xargs -I{} rm {}",
                         "xargs -0 -P 4 -- rm -f"],
    "Bash(nice rm:*)": ["nice -n 10 rm x", "nice -10 rm x"],
    "Bash(sudo npm install:*)": ["sudo -u node npm install x", "sudo -u node npm i x"],
    "Bash(doas rm:*)": ["doas -u root rm x"],
}


@pytest.mark.parametrize(("rule", "line"), [(r, line) for r, lines in SPELLINGS.items()
                                            for line in lines])
@pytest.mark.parametrize("effect", ["deny", "ask"])
def test_a_rule_naming_a_wrapper_meets_its_options(rule: str, line: str, effect: str) -> None:
    decision = policy([(effect, rule)]).decide("Bash", {"command": line})
    assert decision.behavior == effect, (rule, line, decision)


def test_options_all_the_way_meet_it() -> None:
    # the command may lie past the words looked at: fail closed
    line = "sudo " + "-n " * 80 + "rm x"
    assert policy([("deny", "Bash(sudo rm:*)")]).decide(
        "Bash", {"command": line}).behavior == "deny"


@pytest.mark.parametrize(("rule", "line"), [
    ("Bash(sudo rm:*)", "sudo ls x"), ("Bash(sudo rm:*)", "rm x"),
    ("Bash(env rm:*)", "env -i ls"),
    ("Bash(timeout 5 rm:*)", "timeout 5 ls"), ("Bash(sudo:*)", "ls"),
])
def test_other_commands_stay_allowed(rule: str, line: str) -> None:
    assert policy([("deny", rule)]).decide("Bash", {"command": line}).behavior == "allow"


def test_which_words_are_options_is_not_known() -> None:
    # (a word after an option may be its value or the command: each is tried, fail closed)
    assert policy([("deny", "Bash(sudo rm:*)")]).decide(
        "Bash", {"command": "sudo -u root ls rm"}).behavior == "deny"


def test_an_allow_still_proves_only_what_it_names() -> None:
    p = policy([("allow", "Bash(sudo rm:*)")], "deny")
    assert p.decide("Bash", {"command": "sudo rm x"}).behavior == "allow"
    assert p.decide("Bash", {"command": "sudo -u root rm x"}).behavior == "deny"
