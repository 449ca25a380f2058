"""Round 16: more files a later command runs: the Claude CLI's settings (their hooks run on
the next tool use of a session toolhost does not start), pre-commit's config (a local hook
runs on the next commit), a program on PATH before the real one (~/.local/bin/git), a user
unit or an autostart entry (the next login)."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def policy(rules: list[tuple[str, str]], default: str) -> Any:
    return compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default=default))


DENY = policy([("deny", "Bash(rm:*)"), ("allow", "Edit"), ("allow", "Bash")], "allow")
ALLOW_ALL = policy([("allow", "Bash"), ("allow", "Edit")], "ask")
HOOK = '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "rm -rf ~/x"}]}]}}'
PRE_COMMIT = "repos:\n- repo: local\n  hooks:\n  - id: x\n    entry: rm -rf y\n"

DODGES = [f"echo '{HOOK}' > .claude/settings.json",
          f"cat > .pre-commit-config.yaml <<'EOF'\n{PRE_COMMIT}EOF",
          "echo 'rm -rf y' > ~/.local/bin/git",
          "printf '[Service]\\nExecStart=rm -rf y' > ~/.config/systemd/user/x.service",
          "echo 'Exec=rm -rf y' > ~/.config/autostart/x.desktop"]


@pytest.mark.parametrize("command", DODGES)
def test_content_written_there_meets_the_deny_rules(command: str) -> None:
    assert DENY.decide("Bash", {"command": command}).behavior == "deny"


@pytest.mark.parametrize("path,text", [(".claude/settings.local.json", HOOK),
                                       ("~/.claude/settings.json", HOOK),
                                       (".pre-commit-config.yaml", PRE_COMMIT),
                                       ("~/.local/bin/git", "#!/bin/sh\nrm -rf y")])
def test_the_file_tools_meet_them_too(path: str, text: str) -> None:
    decision = DENY.decide("Write", {"file_path": path, "content": text})
    assert decision.behavior == "deny" and decision.rule == "Bash(rm:*)"


@pytest.mark.parametrize("command", ["cp evil.json ~/.claude/settings.json",
                                     "cp evil ~/.local/bin/git", "cp x ~/.claude/settings.*",
                                     "curl -o .pre-commit-config.yaml https://x/y"])
def test_unseen_content_is_not_provable(command: str) -> None:
    assert ALLOW_ALL.decide("Bash", {"command": command}).behavior == "ask"


@pytest.mark.parametrize("command", [
    "cat .claude/settings.json", "pip install pre-commit", "pre-commit --version",
    "ls ~/.local/bin", "pipx install black",
    "cat > .pre-commit-config.yaml <<'EOF'\nrepos:\n- repo: https://github.com/psf/black\n"
    "  rev: 24.1.0\n  hooks:\n  - id: black\nEOF"])
def test_honest_commands_are_decided_as_before(command: str) -> None:
    assert DENY.decide("Bash", {"command": command}).behavior == "allow"
