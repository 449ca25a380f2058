"""``toolhost run CONFIG -p ...`` against a scripted Messages API started on its own
(``python -m toolhost.scripted``), configured only through the environment, as a user (or a
CI job) with a fresh HOME runs it: no ``--script``."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from toolhost.runner.offline import OFFLINE_ENV

from .conftest import CONFIG, HERE, TOOLHOST, Model, read_log
from .test_sdk_program import DENIED_THEN_REWRITTEN  # the same two calls, via the SDK

pytestmark = pytest.mark.e2e


def run(cli: str, base_url: str, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_"))}
    env.update(OFFLINE_ENV)  # protocol.md §7, as a CI job would set it
    env.update({"ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "test",
                "HOME": str(home), "PYTHONPATH": str(HERE), "TOOLHOST_CLI": cli})
    return subprocess.run([str(TOOLHOST), "run", *args], capture_output=True, text=True,
                          env=env, timeout=120, check=False)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"  # a fresh machine: nothing in it
    path.mkdir()
    return path


def test_environment_only_run_calls_exact_tools_and_delivers_exact_results(
        cli: str, tool_log: Path, home: Path, model: Callable[[str], Model]) -> None:
    m = model("""\
turns:
  - tool_calls:
      - {tool: mcp__e2e__write_note, input: {name: ext, text: "line one\\nline \\"two\\""}}
  - expect_results:
      - {equals: "saved ext: line one\\nline \\"two\\""}
    text: Saved.
""")
    done = run(cli, m.url, home, str(CONFIG), "-p", "save it")
    code, verdict = m.stop()
    assert done.returncode == 0, done.stderr
    assert (code, verdict.splitlines()[-1]) == (
        0, "toolhost.scripted: scenario passed (2 turns played)"), verdict
    assert read_log(tool_log) == [{"tool": "write_note", "name": "ext",
                                   "text": 'line one\nline "two"'}]
    assert "Saved." in done.stdout


def test_environment_only_run_enforces_a_deny_rule(
        cli: str, tool_log: Path, home: Path, model: Callable[[str], Model]) -> None:
    m = model("""\
turns:
  - tool_calls:
      - {tool: mcp__e2e__write_note, input: {name: forbidden, text: x}}
      - {tool: mcp__e2e__write_note, input: {name: fine, text: y}}
  - expect_results:
      - {is_error: true, equals: "Forbidden notes are not allowed."}
      - {equals: "saved fine: y"}
    text: One was refused.
""")
    done = run(cli, m.url, home, str(CONFIG), "-p", "save both")
    code, verdict = m.stop()
    assert done.returncode == 0, done.stderr
    assert code == 0, verdict
    assert read_log(tool_log) == [{"tool": "write_note", "name": "fine", "text": "y"}]
    assert "denied by " in done.stdout and "Forbidden notes are not allowed." in done.stdout


def test_a_call_the_cli_allows_by_its_own_settings_still_meets_the_rules(
        cli: str, tool_log: Path, home: Path, tmp_path: Path,
        model: Callable[[str], Model]) -> None:
    # The user's own CLI settings pre-allow the tool: the CLI never asks toolhost about these
    # calls (no can_use_tool), so the rules are applied when the calls arrive (tools/call).
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(
        '{"permissions": {"allow": ["mcp__e2e__write_note"]}}')
    audit = tmp_path / "audit.jsonl"
    config = tmp_path / "toolhost.yaml"
    config.write_text(CONFIG.read_text().replace(
        "permissions:\n", f"permissions:\n  audit_log: {audit}\n", 1))
    m = model(DENIED_THEN_REWRITTEN)
    done = run(cli, m.url, home, str(config), "-p", "save both")
    code, verdict = m.stop()
    assert done.returncode == 0, done.stderr
    assert code == 0, verdict
    # the deny held, and so did the allow's rewrite, though the CLI asked about neither
    assert read_log(tool_log) == [{"tool": "write_note", "name": "sandbox", "text": "y"}]
    decided = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [(d["tool"], d["decision"]) for d in decided] == [
        ("mcp__e2e__write_note", "deny"), ("mcp__e2e__write_note", "allow")], decided
    assert "Forbidden notes are not allowed." in done.stdout


@pytest.mark.parametrize("mode", ["bypassPermissions", "acceptEdits"])
def test_a_cli_started_in_a_mode_that_does_not_ask_is_stopped_before_any_tool(
        cli: str, tool_log: Path, home: Path, tmp_path: Path, model: Callable[[str], Model],
        monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    # The user's CLI settings choose a permission mode in which the CLI asks nobody
    # (IS_SANDBOX: the CLI refuses bypassPermissions to root otherwise, and CI runs as root)
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"defaultMode": mode}}))
    monkeypatch.setenv("IS_SANDBOX", "1")
    marker = tmp_path / "ran"
    m = model(f"""\
turns:
  - tool_calls:
      - {{tool: Bash, input: {{command: "touch {marker}"}}}}
      - {{tool: Write, input: {{file_path: "{marker}", content: x}}}}
      - {{tool: mcp__e2e__write_note, input: {{name: forbidden, text: x}}}}
  - text: Done.
""")
    done = run(cli, m.url, home, str(CONFIG), "-p", "go")
    m.stop()
    assert done.returncode == 1, done.stdout + done.stderr
    assert not marker.exists() and read_log(tool_log) == []
    lines = [line for line in done.stderr.splitlines() if line.startswith("toolhost: error")]
    assert len(lines) == 1 and f"permission mode '{mode}'" in lines[0], done.stderr
    assert "Traceback" not in done.stderr
