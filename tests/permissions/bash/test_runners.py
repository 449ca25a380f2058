"""A command a container, pod, package runner or git subcommand runs from its own
arguments (``docker run img rm x``, ``kubectl run p -- rm x``, ``npx rm x``, ``uv run rm x``,
``git rebase --exec 'rm x'``, ``tar --checkpoint-action=exec=``), and a job ``crontab`` reads
from its input (it runs later), meet the deny and ask rules on that command (fail closed);
what runs no such command stays as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.permissions.bash.test_command_strings import DENY_RM, policy
from tests.permissions.runner_tables import HONEST, RUNS
from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


@pytest.mark.parametrize("command", RUNS)
def test_the_command_it_runs_is_denied(command: str) -> None:
    assert DENY_RM.decide("Bash", {"command": command}).behavior == "deny"


@pytest.mark.parametrize("command", HONEST)
def test_what_runs_no_denied_command_is_allowed(command: str, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # decided in a folder of its own: `make test` reads the Makefile where it runs (the
    # checkout's own, whose recipe runs pytest and pip install -e: not provable), and the
    # policy's folder is the one it is compiled with (P24-7: a chdir came too late)
    (tmp_path / "Makefile").write_text("test:\n\techo ok\n")
    monkeypatch.chdir(tmp_path)
    here = compile_policy(PermissionsConfig(rules=(RuleConfig(effect="deny", tool="Bash(rm:*)"),
                                                   RuleConfig(effect="ask", tool="Bash(curl:*)")),
                                            default="allow"), cwd=str(tmp_path))
    assert here.decide("Bash", {"command": command}).behavior == "allow"


ASK_ONLY = policy([("ask", "Bash(curl:*)"), ("allow", "Bash(crontab:*)"),
                   ("allow", "Bash(echo:*)")], "allow")


@pytest.mark.parametrize(("command", "want"), [
    ("crontab <<< '* * * * * ls'", "ask"),  # jobs from stdin: not provable, so never allowed
    ("echo '* * * * * ls' | crontab -", "ask"),
    ("crontab -l", "allow"), ("crontab jobs.txt", "allow"),  # a file: the program, as bash f
])
def test_crontab_fed_its_jobs_is_never_allowed(command: str, want: str) -> None:
    assert ASK_ONLY.decide("Bash", {"command": command}).behavior == want
