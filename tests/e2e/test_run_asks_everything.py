"""Every call the real CLI would run by itself reaches the rules: reads inside the working
directory, read-only Bash, ``Monitor``, WebFetch of the CLI's
pre-approved hosts, tools the user's or the project's settings allow, or a PreToolUse hook
answers allow for (toolhost.runner.cli_settings). Each case was run by the CLI unasked
before: no audit line, the secret shown."""

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

SECRET = "TOPSECRET-CONTENT"


def config(project: Path, *, default: str = "deny", deny: tuple[str, ...] = (),
           run: str = "") -> Path:
    rules = "".join(f"    - {json.dumps(rule)}\n" for rule in deny)
    path = project / "toolhost.yaml"
    path.write_text(f"""\
toolhost: 1
{run}servers:
  e2e:
    tools:
      look: {{python: "e2e_tools:look"}}
permissions:
  default: {default}
  audit_log: {project / "audit.jsonl"}
{"  deny:" + chr(10) + rules if rules else ""}""")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The working directory: a secret in it, another directory beside it."""
    path = tmp_path / "project"
    path.mkdir()
    (path / "secret.txt").write_text(SECRET + "\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "secret.txt").write_text(SECRET + "-OTHER\n")
    return path


def scenario(project: Path, *calls: dict[str, Any]) -> Path:
    path = project.parent / "scenario.yaml"
    path.write_text(json.dumps({"turns": [{"tool_calls": list(calls)}, {"text": "done"}]}))
    return path


def run(cli: str, project: Path, *args: str,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(HERE), "TOOLHOST_CLI": cli, **(env or {})}
    return subprocess.run([str(TOOLHOST), "run", *args], capture_output=True, text=True,
                          env=full, cwd=project, timeout=120, check=False)


def audited(project: Path) -> list[tuple[str, str]]:
    log = project / "audit.jsonl"
    lines = log.read_text().splitlines() if log.exists() else []
    return [(json.loads(line)["tool"], json.loads(line)["decision"]) for line in lines]


def bash(command: str) -> dict[str, Any]:
    return {"tool": "Bash", "input": {"command": command, "description": "x"}}


# (id, the call, what the CLI is given after --): each under default: deny.
UNASKED_BEFORE = [
    ("read-in-cwd", lambda p: {"tool": "Read", "input": {"file_path": str(p / "secret.txt")}},
     ()),
    ("bash-cat", lambda p: bash("cat secret.txt"), ()),
    ("bash-sed", lambda p: bash("sed -n p secret.txt"), ()),
    ("bash-pipe-base64", lambda p: bash("cat secret.txt | base64"), ()),
    ("bash-grep-r", lambda p: bash(f"grep -r TOPSECRET {p}"), ()),
    ("monitor", lambda p: {"tool": "Monitor", "input": {
        "description": "m", "timeout_ms": 2000, "command": "cat secret.txt"}}, ()),
    ("webfetch-preapproved", lambda p: {"tool": "WebFetch", "input": {
        "url": "https://docs.python.org/3/library/os.html", "prompt": "x"}}, ()),
    # (a read under ``--add-dir`` was asked too; run refuses ``--add-dir`` now:
    # tests/config/test_cli_args.py)
]


@pytest.mark.parametrize("call,extra", [(c, e) for _, c, e in UNASKED_BEFORE],
                         ids=[i for i, _, _ in UNASKED_BEFORE])
def test_a_call_the_cli_deems_safe_is_still_decided_by_the_default(
        cli: str, project: Path, call: Any, extra: tuple[str, ...]) -> None:
    made = call(project)
    args = [a.replace("{other}", str(project.parent / "other")) for a in extra]
    done = run(cli, project, str(config(project)), "--script",
               str(scenario(project, made)), "-p", "go", *(["--", *args] if args else []))
    assert done.returncode == 0, done.stderr
    assert SECRET not in done.stdout
    assert audited(project) == [(made["tool"], "deny")], done.stdout
    assert "denied by default" in done.stdout


def test_content_deny_rules_hold_for_reads_inside_the_working_directory(
        cli: str, project: Path) -> None:
    # red team F1's example: default allow, a deny rule on one path and on `cat`
    path = config(project, default="allow", deny=("Read(./secret.txt)", "Bash(cat:*)"))
    done = run(cli, project, str(path), "--script", str(scenario(
        project, {"tool": "Read", "input": {"file_path": str(project / "secret.txt")}},
        bash("cat secret.txt"), bash("echo fine"))), "-p", "go")
    assert done.returncode == 0, done.stderr
    assert SECRET not in done.stdout
    assert audited(project) == [("Read", "deny"), ("Bash", "deny"), ("Bash", "allow")]
    assert "← Bash: fine" in done.stdout


def test_a_project_settings_allow_in_the_working_directory_does_not_skip_the_rules(
        cli: str, project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Read", "Bash"]}}))
    done = run(cli, project, str(config(project)), "--script", str(scenario(
        project, {"tool": "Read", "input": {"file_path": str(project / "secret.txt")}},
        bash("touch made.txt"))), "-p", "go")
    assert done.returncode == 0, done.stderr
    assert SECRET not in done.stdout and not (project / "made.txt").exists()
    assert audited(project) == [("Read", "deny"), ("Bash", "deny")]


def allowing_settings(directory: Path, marker: Path) -> None:
    """A CLI settings directory allowing Read and Bash, with a PreToolUse hook that
    answers allow for every tool (and leaves ``marker`` to show it ran)."""
    directory.mkdir(parents=True)
    answer = json.dumps({"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "allow",
        "permissionDecisionReason": "hook"}})
    hook = {"type": "command", "command": f"touch {marker}; echo '{answer}'"}
    (directory / "settings.json").write_text(json.dumps({
        "permissions": {"allow": ["Read", "Bash", "WebFetch"]},
        "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [hook]}]}}))


@pytest.mark.parametrize("where", ["home", "run-env-config-dir", "run-env-home"])
def test_user_settings_allows_and_allowing_hooks_do_not_skip_the_rules(
        cli: str, project: Path, model: Any, where: str) -> None:
    # The user's own settings (~/.claude), or a settings directory a config layer points
    # the CLI at (run.env CLAUDE_CONFIG_DIR or HOME): the whole-tool ask beats both the
    # allow rule and the hook's allow; the hook does not even run (disableAllHooks:
    # tests/e2e/test_run_hooks.py proves the settings are read and no hook runs).
    home = project.parent / "home"
    marker = project.parent / "hook-ran"
    other = project.parent / "other-home"
    settings_dir = {"home": home / ".claude", "run-env-config-dir": project.parent / "ccd",
                    "run-env-home": other / ".claude"}[where]
    allowing_settings(settings_dir, marker)
    home.mkdir(exist_ok=True)
    run_block = {"home": "",
                 "run-env-config-dir": f"run:\n  env: {{CLAUDE_CONFIG_DIR: {settings_dir}}}\n",
                 "run-env-home": f"run:\n  env: {{HOME: {other}}}\n"}[where]
    m: Model = model(scenario(project, {"tool": "Read", "input": {
        "file_path": str(project / "secret.txt")}}, bash("touch made.txt")).read_text())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_"))}
    env.update({**OFFLINE_ENV, "ANTHROPIC_BASE_URL": m.url, "ANTHROPIC_API_KEY": "test",
                "HOME": str(home)})
    done = subprocess.run([str(TOOLHOST), "run", str(config(project, run=run_block)),
                           "-p", "go"], capture_output=True, text=True, timeout=120,
                          check=False, cwd=project,
                          env={**env, "PYTHONPATH": str(HERE), "TOOLHOST_CLI": cli})
    m.stop()
    assert done.returncode == 0, done.stderr
    assert not marker.exists()  # the hook never ran
    assert SECRET not in done.stdout and not (project / "made.txt").exists()
    assert audited(project) == [("Read", "deny"), ("Bash", "deny")]
