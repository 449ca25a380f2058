"""git configuration whose value deny rules cannot see (``git --config-env=alias.p=VAR``,
``GIT_CONFIG_PARAMETERS=``): never allowed, even by ``Bash(git:*)`` (fail closed); an
environment value git reads as data stays allowed."""

from __future__ import annotations

import pytest

from tests.permissions.test_command_strings import policy

ASK_ONLY = policy([("ask", "Bash(curl:*)"), ("allow", "Bash(git:*)")], "allow")


@pytest.mark.parametrize(("command", "want"), [
    ("git --config-env=alias.p=VAR p", "ask"),  # not provable: never allowed, even by git:*
    ("GIT_CONFIG_PARAMETERS=\"'core.pager'='less'\" git log", "ask"),
    ("git --config-env=http.extraheader=AUTH fetch", "allow"),
])
def test_config_from_the_environment_is_never_allowed(command: str, want: str) -> None:
    assert ASK_ONLY.decide("Bash", {"command": command}).behavior == want
