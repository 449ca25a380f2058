"""Round 6: commands that programs run from a string other than a shell's: an awk program's
``system()`` / ``print | "cmd"`` / ``"cmd" | getline``, and ``git -c key=value`` (core.pager,
``alias.x=!cmd``, core.sshCommand run the value), options naming a command (``tar
--to-command``, ``rsync -e``, ``zip -TT``). A deny rule on the command they run must
deny them; what runs no such string stays as it was."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def policy(rules: list[tuple[str, str]], default: str) -> Any:
    return compile_policy(PermissionsConfig(
        rules=tuple(RuleConfig(effect=e, tool=t) for e, t in rules), default=default))  # type: ignore[arg-type]


DENY_RM = policy([("deny", "Bash(rm:*)"), ("ask", "Bash(curl:*)")], "allow")

RUN_FROM_STRINGS = [
    ("awk 'BEGIN{system(\"rm -rf /tmp/x\")}'", "deny"),
    ("gawk 'BEGIN { system(\"rm x\") }' f", "deny"),
    ("mawk '{print | \"rm x\"}' f", "deny"),
    ("nawk 'BEGIN{\"rm x\" | getline; print}'", "deny"),
    ("/usr/bin/awk 'BEGIN{system(\"sudo rm x\")}'", "deny"),
    ("sudo awk 'BEGIN{system(\"rm x\")}'", "deny"),
    ("awk 'BEGIN{system(\"echo a; rm x\")}'", "deny"),
    ("awk 'BEGIN{system(\"curl http://x\")}'", "ask"),
    ("git -c core.pager='rm x' log", "deny"),
    ("git -c 'alias.x=!rm -rf /tmp/x' x", "deny"),
    ("git -c core.sshCommand='sh -c \"rm x\"' fetch", "deny"),
    ("git -C /tmp -c core.editor='rm x' commit", "deny"),
    ("git -c core.pager='curl x' log", "ask"),
    ("tar --to-command='rm x' -xf a.tar", "deny"),
    ("tar -I 'rm x' -xf a.tar", "deny"),
    ("rsync -e 'rm x' a b", "deny"),
    ("rsync --rsh='curl x' a b", "ask"),
    ("zip -T -TT 'rm x' a.zip b", "deny"),
    # nothing run from a string: unchanged
    ("tar -xf a.tar", "allow"),
    ("rsync -a a b", "allow"),
    ("awk '{print $1}' f", "allow"),
    ("awk 'BEGIN{print \"rm x\"}'", "allow"),
    ("git -c core.pager=less log", "allow"),
    ("git log --grep 'rm x'", "allow"),
]


@pytest.mark.parametrize(("command", "want"), RUN_FROM_STRINGS)
def test_commands_run_from_awk_and_git_config_strings_meet_deny_rules(command: str,
                                                                      want: str) -> None:
    assert DENY_RM.decide("Bash", {"command": command}).behavior == want
