"""No shell line of a skill or a custom slash command runs under ``toolhost run`` (the real
CLI), and the skill still loads: the settings toolhost gives the CLI hold
``"disableSkillShellExecution": true`` (toolhost.runner.cli_settings), so the CLI puts its
placeholder where each ``!`cmd``` or `````!`` block was. Before, the CLI judged each line by
its own rules only (toolhost's ask-everything rules made it fail) and the whole skill failed to
load: "Shell command permission check failed". A skill's ``allowed-tools`` grants nothing past
toolhost's rules either: the Bash call after it is still toolhost's to decide."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from toolhost.runner.offline import OFFLINE_ENV

from .conftest import HERE, TOOLHOST, Model

pytestmark = pytest.mark.e2e

SKILL = "---\nname: x\ndescription: a skill\n"
CASES = {
    "skill": ("skills/x/SKILL.md", SKILL + "---\n", {}),
    "skill-granting-touch": ("skills/x/SKILL.md", SKILL + "allowed-tools: Bash(touch:*)\n---\n",
                             {}),
    "command-file": ("commands/x.md",
                     "---\ndescription: a command\nallowed-tools: Bash(touch:*)\n---\n", {}),
    # a project that turns the lines back on: toolhost's settings rank above it
    "project-says-lines-on": ("skills/x/SKILL.md", SKILL + "---\n",
                              {"disableSkillShellExecution": False}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_skill_shell_line_runs_and_the_skill_loads(cli: str, tmp_path: Path, model: Any,
                                                      case: str) -> None:
    project, marks = tmp_path / "project", tmp_path / "marks"
    where, head, project_settings = CASES[case]
    file = project / ".claude" / where
    file.parent.mkdir(parents=True)
    marks.mkdir()
    (tmp_path / "home").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(project_settings))
    file.write_text(f"{head}Before.\n\n!`touch {marks}/inline`\n\n"
                    f"```!\ntouch {marks}/block\n```\nAfter.\n")
    config = project / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  e2e:\n    tools:\n"
                      "      look: {python: \"e2e_tools:look\"}\npermissions:\n"
                      "  default: allow\n  deny: ['Bash(touch:*)']\n"
                      f"  audit_log: {tmp_path / 'audit.jsonl'}\n")
    m: Model = model(json.dumps({"turns": [
        {"tool_calls": [{"tool": "Skill", "input": {"skill": "x"}}]},
        {"tool_calls": [{"tool": "Bash", "input": {"command": f"touch {marks}/after",
                                                   "description": "x"}}]},
        {"text": "done"}]}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_"))}
    env.update({**OFFLINE_ENV, "ANTHROPIC_BASE_URL": m.url, "ANTHROPIC_API_KEY": "test",
                "HOME": str(tmp_path / "home"), "PYTHONPATH": str(HERE),
                "TOOLHOST_CLI": cli, "E2E_LOG": str(tmp_path / "tools.jsonl")})
    done = subprocess.run([str(TOOLHOST), "run", str(config), "-p", "go"],
                          capture_output=True, text=True, timeout=120, check=False,
                          cwd=project, env=env)
    m.stop()
    assert done.returncode == 0, done.stderr
    assert "permission check failed" not in done.stdout, done.stdout
    assert "← Skill: Launching skill: x" in done.stdout, done.stdout  # it loaded
    assert sorted(p.name for p in marks.iterdir()) == []  # and none of its lines ran
    audit = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    # the Skill call under the default, the Bash call after it by toolhost's deny rule
    assert [(a["tool"], a["decision"]) for a in audit] == [("Skill", "allow"), ("Bash", "deny")]
