"""A command with more forms than the engine tries (1,024) meets every deny and ask Bash rule:
a form past the cap was dropped without a word, and a deny naming it was passed (fail closed)."""

from __future__ import annotations

import pytest

from tests.permissions.test_command_strings import policy
from toolhost.permissions.content import TOO_MANY_FORMS, command_forms


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
    assert len(many) == 1024 and many[-1] == TOO_MANY_FORMS
    assert TOO_MANY_FORMS not in command_forms(("sh", "-c", _segments(40)))
