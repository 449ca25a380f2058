"""git configuration whose value deny rules cannot see (``git --config-env=alias.p=VAR``,
``GIT_CONFIG_PARAMETERS=``): never allowed, even by ``Bash(git:*)`` (fail closed); an
environment value git reads as data stays allowed."""

from __future__ import annotations

import pytest

from tests.permissions.bash.test_command_strings import policy

ASK_ONLY = policy([("ask", "Bash(curl:*)"), ("allow", "Bash(git:*)")], "allow")


@pytest.mark.parametrize(("command", "want"), [
    ("git --config-env=alias.p=VAR p", "ask"),  # not provable: never allowed, even by git:*
    ("GIT_CONFIG_PARAMETERS=\"'core.pager'='less'\" git log", "ask"),
    ("git --config-env=http.extraheader=AUTH fetch", "allow"),
])
def test_config_from_the_environment_is_never_allowed(command: str, want: str) -> None:
    assert ASK_ONLY.decide("Bash", {"command": command}).behavior == want


# round 14: `git config include.path FILE` / `includeIf.*.path` / `core.hooksPath DIR`
# persist what `git -c include.path=FILE` does once: later git commands read that file's
# aliases and pager, or run that directory's hooks; reading them back is fine
@pytest.mark.parametrize(("command", "provable"), [
    ("git config include.path /tmp/evil.cfg", False),
    ("git config --global include.path /tmp/evil.cfg", False),
    ("git config includeIf.gitdir:~/x/.path /tmp/e.cfg", False),
    ("git config set include.path /tmp/e", False), ("git config --add include.path /tmp/e", False),
    ("git config core.hooksPath /tmp/h", False),
    ("git -C /x config core.hooksPath .githooks", False),
    ("git config --get include.path", True), ("git config --unset include.path", True),
    ("git config get core.hooksPath", True), ("git config user.name x", True),
    ("git config --list", True), ("git log --grep include.path", True),
])
def test_git_config_naming_a_file_git_reads_later(command: str, provable: bool) -> None:
    deny = policy([("deny", "Bash(rm:*)")], default="allow")
    allow = policy([("allow", "Bash(git:*)")], default="ask")
    assert deny.decide("Bash", {"command": command}).behavior == (
        "allow" if provable else "deny"), command
    assert allow.decide("Bash", {"command": command}).behavior == (
        "allow" if provable else "ask"), command


@pytest.mark.parametrize("command", ["git clone --template=/tmp/t https://x/r.git",
                                     "git init --template /tmp/t", "git init-db --templ=/t"])
def test_git_template_brings_hooks(command: str) -> None:
    # the template directory's hooks are copied into .git/hooks: the next commit runs them
    assert policy([("deny", "Bash(rm:*)")], default="allow").decide(
        "Bash", {"command": command}).behavior == "deny"


# review18: `git -c core.hooksPath=DIR COMMAND` runs DIR's hooks at once (a file the rules
# never saw), as `git config core.hooksPath DIR` does later; /dev/null (no hooks) is honest
@pytest.mark.parametrize(("command", "provable"), [
    ("git -c core.hooksPath=scripts commit -m x", False),
    ("git -c core.hookspath=/tmp/h push", False),
    ("git -ccore.hooksPath=x commit -m x", False),
    ("git -C /x -c core.hooksPath=.githooks merge main", False),
    ("git -c core.hooksPath=/dev/null commit -m x", True),
    ("git -c core.hooksPath= commit -m x", True),
    ("git -c user.name=a commit -m x", True),
])
def test_git_dash_c_hooks_path_runs_that_directory_s_hooks(command: str, provable: bool) -> None:
    deny = policy([("deny", "Bash(rm:*)"), ("allow", "Bash")], default="ask")
    decision = deny.decide("Bash", {"command": command})
    assert decision.behavior == ("allow" if provable else "deny"), decision
    if not provable:
        assert "hooks this git command runs" in decision.message
