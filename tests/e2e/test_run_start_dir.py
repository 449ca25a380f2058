"""Every Bash call of ``toolhost run`` starts in the folder the rules judge: the CLI's Bash
keeps a ``cd`` for the next call unless CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR is set
(toolhost.runner.cli_settings.KEEP_START_DIR), and the rules read repositories, patches,
archives and relative paths from the start folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .test_run_asks_everything import audited, bash, config, run, scenario

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("undone_by", ["nothing", "run-env", "project-settings-env"])
def test_a_cd_does_not_carry_to_the_next_bash_call(cli: str, tmp_path: Path,
                                                    undone_by: str) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    run_block = ""
    if undone_by == "run-env":
        run_block = "run:\n  env: {CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR: '0'}\n"
    elif undone_by == "project-settings-env":
        (project / ".claude").mkdir()
        (project / ".claude" / "settings.json").write_text(json.dumps(
            {"env": {"CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR": "0"}}))
    done = run(cli, project, str(config(project, default="allow", run=run_block)),
               "--script", str(scenario(project, bash("cd sub && true"),
                                        bash("pwd > where.txt"))), "-p", "go")
    assert done.returncode == 0, done.stderr
    assert audited(project) == [("Bash", "allow"), ("Bash", "allow")], done.stdout
    assert not (project / "sub" / "where.txt").exists()
    assert (project / "where.txt").read_text().strip() == str(project)
