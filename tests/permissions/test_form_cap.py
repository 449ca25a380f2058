"""A command with more forms than the engine tries (1,024) meets every deny and ask Bash rule:
a form past the cap was dropped without a word, and a deny naming it was passed (fail closed)."""

from __future__ import annotations

import pytest

from tests.permissions.bash.test_command_strings import policy
from toolhost.permissions.bash.forms import TOO_MANY_FORMS, command_forms


def _segments(n: int) -> str:
    return ";".join(f"x{i}" for i in range(n))


RULES = policy([("deny", "Bash(git push:*)"), ("ask", "Bash(npm publish:*)")], "allow")


@pytest.mark.parametrize(("command", "want"), [
    (f"git -c 'alias.z=!{_segments(1200)}' push origin", "deny"),
    (f"git -C /tmp -c 'alias.z=!{_segments(1200)}' push origin", "deny"),
    (f"sh -c '{_segments(1200)}'", "deny"),  # no form names git push, but some were cut off
    (f"sh -c '{_segments(40)}'", "allow"),  # under the cap: every form was tried
    (f"git -c 'alias.z=!{_segments(40)}' status", "allow"),
])
def test_forms_past_the_cap_meet_every_deny_and_ask_rule(command: str, want: str) -> None:
    assert RULES.decide("Bash", {"command": command}).behavior == want


def test_an_ask_rule_is_met_too() -> None:
    ask = policy([("ask", "Bash(npm publish:*)")], "allow")
    assert ask.decide("Bash", {"command": f"sh -c '{_segments(1200)}'"}).behavior == "ask"
    assert ask.decide("Bash", {"command": f"sh -c '{_segments(40)}'"}).behavior == "allow"


def test_the_cap_is_marked_and_a_command_under_it_is_not() -> None:
    many = command_forms(("sh", "-c", _segments(1200)))
    # (cut at 1,024 forms, or sooner by the budget of calls one command has)
    assert len(many) <= 1024 and many[-1] == TOO_MANY_FORMS
    assert TOO_MANY_FORMS not in command_forms(("sh", "-c", _segments(40)))


@pytest.mark.parametrize("command", [
    "git -C a -C b -C c -C d -C e push origin",  # more options than the old 8-word window
    "git -C a -c x=1 -c y=2 -c z=3 --no-pager --bare push",
    "git " + "-c a=b " * 40 + "push",  # options past the 64-word window: fail closed
    "kubectl -n a --context b --user c --cluster d -v 9 delete pod x",
    "docker " + "-H h " * 10 + "run img rm -rf x",  # the runner's subcommand past 16 words
    "docker run " + "-e A=1 " * 40 + "img rm -rf x",  # its command past 32 words
    "docker " + "-H h " * 40 + "run img rm -rf x",  # past the 64-word scan: fail closed
])
def test_a_subcommand_or_command_past_the_words_looked_at_is_not_missed(command: str) -> None:
    rules = policy([("deny", "Bash(git push:*)"), ("deny", "Bash(kubectl delete:*)"),
                    ("deny", "Bash(rm:*)")], "allow")
    assert rules.decide("Bash", {"command": command}).behavior == "deny"


@pytest.mark.parametrize("command", [
    "docker build " + " ".join(f"--build-arg A{i}=1" for i in range(20)) + " .",
    "docker run --rm -v a:b -e X=1 img ls -la", "git -C /tmp -c a=b status", "docker ps -a",
    "git add " + " ".join(f"src/f{i}.py" for i in range(100)),  # a runner's other subcommand
    "docker image rm " + " ".join(f"i{i}" for i in range(100)),  # ...with many words
    "git fetch " + "--force " * 100])
def test_long_honest_commands_stay_allowed(command: str) -> None:
    rules = policy([("deny", "Bash(git push:*)"), ("deny", "Bash(rm:*)")], "allow")
    assert rules.decide("Bash", {"command": command}).behavior == "allow"
