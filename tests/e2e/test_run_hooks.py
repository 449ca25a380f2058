"""No hook of a settings file runs under ``toolhost run`` (the real CLI): the settings
toolhost gives it hold ``"disableAllHooks": true`` (toolhost.runner.cli_settings), which the
CLI ranks above the user's, the project's and the local settings. Before, every hook below
ran its command: it decided nothing (every call is still asked), but it ran."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolhost.runner.offline import OFFLINE_ENV

from .conftest import HERE, TOOLHOST, Model

pytestmark = pytest.mark.e2e

EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest",
          "PostToolUse", "Notification", "Stop", "SubagentStop", "PreCompact", "SessionEnd")


def hooked_settings(marks: Path, **more: Any) -> dict[str, Any]:
    """Settings with a hook on every event (and a statusLine), each leaving a marker file,
    and an ``env`` entry that shows the file was read."""
    def hook(name: str) -> dict[str, Any]:
        return {"type": "command", "command": f"touch {marks / name}"}
    hooks = {event: [{"matcher": "*", "hooks": [hook(event)]}] for event in EVENTS}
    return {"hooks": hooks, "statusLine": {"type": "command", "command": f"touch {marks}/status"},
            "env": {"HOOKS_E2E_READ": "settings-were-read"}, **more}


# Where the hooks are: (id, the settings files written, the run: block of the config).
Where = Callable[[Path, dict[str, Any]], str]


def _home(tmp: Path, settings: dict[str, Any]) -> str:
    (tmp / "home" / ".claude").mkdir(parents=True, exist_ok=True)
    (tmp / "home" / ".claude" / "settings.json").write_text(json.dumps(settings))
    return ""


def _project(name: str, **extra: Any) -> Where:
    def write(tmp: Path, settings: dict[str, Any]) -> str:
        (tmp / "project" / ".claude").mkdir(parents=True, exist_ok=True)
        (tmp / "project" / ".claude" / name).write_text(json.dumps({**settings, **extra}))
        return ""
    return write


def _run_env(tmp: Path, settings: dict[str, Any]) -> str:
    (tmp / "ccd").mkdir()
    (tmp / "ccd" / "settings.json").write_text(json.dumps(settings))
    return f"run:\n  env: {{CLAUDE_CONFIG_DIR: {tmp / 'ccd'}}}\n"


WHERE: list[tuple[str, Where]] = [
    ("user-home", _home),
    ("project-settings", _project("settings.json")),
    ("project-local-settings", _project("settings.local.json")),
    # a project that turns hooks back on: toolhost's settings rank above it
    ("project-says-hooks-on", _project("settings.json", disableAllHooks=False)),
    ("project-local-says-hooks-on", _project("settings.local.json", disableAllHooks=False,
                                             allowManagedHooksOnly=False)),
    ("run-env-config-dir", _run_env),
]


@pytest.mark.parametrize("where", [w for _, w in WHERE], ids=[i for i, _ in WHERE])
def test_no_settings_hook_runs(cli: str, tmp_path: Path, model: Any, where: Where) -> None:
    project, marks = tmp_path / "project", tmp_path / "marks"
    project.mkdir()
    marks.mkdir()
    (tmp_path / "home").mkdir()
    run_block = where(tmp_path, hooked_settings(marks))
    config = project / "toolhost.yaml"
    config.write_text(f"""\
toolhost: 1
{run_block}servers:
  e2e:
    tools:
      look: {{python: "e2e_tools:look"}}
permissions:
  default: allow
""")
    m: Model = model(json.dumps({"turns": [
        {"tool_calls": [{"tool": "Bash", "input": {
            "command": "echo \"read=$HOOKS_E2E_READ\"", "description": "x"}}]},
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
    assert "read=settings-were-read" in done.stdout  # the CLI read the settings file
    assert sorted(p.name for p in marks.iterdir()) == []  # and ran none of its hooks


def test_a_project_skill_s_hooks_do_not_run(cli: str, tmp_path: Path, model: Any) -> None:
    # a skill's frontmatter hooks are registered when the model uses the skill; they ran
    # on every later tool call before
    project, marks = tmp_path / "project", tmp_path / "marks"
    skill = project / ".claude" / "skills" / "x"
    skill.mkdir(parents=True)
    marks.mkdir()
    (tmp_path / "home").mkdir()
    hooks = "".join(f"""\
  {event}:
    - matcher: "*"
      hooks:
        - type: command
          command: "touch {marks / event}"
""" for event in ("PreToolUse", "PostToolUse", "Stop"))
    (skill / "SKILL.md").write_text(f"---\nname: x\ndescription: a skill\nhooks:\n{hooks}"
                                    "---\nDo the thing.\n")
    config = project / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  e2e:\n    tools:\n"
                      "      look: {python: \"e2e_tools:look\"}\npermissions:\n"
                      "  default: allow\n  allow: [Skill]\n")  # (the default does not: a
    # skill runs its own `!` lines, which no Bash rule reads: permissions.unread_tools)
    m: Model = model(json.dumps({"turns": [
        {"tool_calls": [{"tool": "Skill", "input": {"skill": "x"}}]},
        {"tool_calls": [{"tool": "Bash", "input": {"command": "echo after-skill",
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
    assert "Launching skill: x" in done.stdout and "← Bash: after-skill" in done.stdout
    assert sorted(p.name for p in marks.iterdir()) == []
