"""A program that drives the real Claude CLI itself with ``claude_agent_sdk`` and
``toolhost.load(...)``, against the scripted Messages API: the config's rules hold for
toolhost's tools even when something of the CLI's own would let it run them unasked (a
settings file's allow rule or ``defaultMode``, a permission mode the program chose)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query

import toolhost
from toolhost.errors import ToolhostError
from toolhost.runner.offline import OFFLINE_ENV

from .conftest import CONFIG, Model, read_log

pytestmark = pytest.mark.e2e

# The model tries a call a deny rule forbids, then one an allow rule rewrites.
DENIED_THEN_REWRITTEN = """\
turns:
  - tool_calls:
      - {tool: mcp__e2e__write_note, input: {name: forbidden, text: x}}
  - expect_results:
      - {is_error: true, equals: "Forbidden notes are not allowed."}
    tool_calls:
      - {tool: mcp__e2e__write_note, input: {name: prod, text: y}}
  - expect_results:
      - {equals: "saved sandbox: y"}
    text: One was refused, one rewritten.
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh HOME for the CLI; the test's own ANTHROPIC_/CLAUDE_ variables kept out."""
    for key in list(os.environ):
        if key.startswith(("ANTHROPIC_", "CLAUDE_")):
            monkeypatch.delenv(key)
    path = tmp_path / "home"
    (path / ".claude").mkdir(parents=True)
    return path


@pytest.fixture
def audited(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """The e2e config with an audit log: (config, audit log)."""
    audit = tmp_path / "audit.jsonl"
    config = tmp_path / "toolhost.yaml"
    config.write_text(CONFIG.read_text().replace(
        "permissions:\n", f"permissions:\n  audit_log: {audit}\n", 1))
    yield config, audit


def cli_env(model: Model, home: Path) -> dict[str, str]:
    return {**OFFLINE_ENV, "ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": "test",
            "HOME": str(home), "IS_SANDBOX": "1"}  # IS_SANDBOX: bypassPermissions as root


def play(options: ClaudeAgentOptions) -> list[Any]:
    """The messages of one ``query`` (what a program sees)."""

    async def main() -> list[Any]:
        seen: list[Any] = []
        with anyio.fail_after(120):
            async for message in query(prompt="save both", options=options):
                seen.append(message)
        return seen

    return anyio.run(main)


def decisions(audit: Path) -> list[tuple[str, str]]:
    lines = [json.loads(line) for line in audit.read_text().splitlines()] \
        if audit.exists() else []
    return [(d["tool"], d["decision"]) for d in lines]


def assert_rules_held(messages: list[Any], tool_log: Path, audit: Path,
                      model: Model) -> None:
    code, verdict = model.stop()
    assert code == 0, verdict
    assert isinstance(messages[-1], ResultMessage) and not messages[-1].is_error, messages
    # the deny held and the allow's rewrite too, though the CLI asked toolhost about neither
    assert read_log(tool_log) == [{"tool": "write_note", "name": "sandbox", "text": "y"}]
    assert decisions(audit) == [("mcp__e2e__write_note", "deny"),
                                ("mcp__e2e__write_note", "allow")]


@pytest.mark.parametrize("settings", [
    {},  # the CLI asks: each call decided once (the tool-use id matches the noted allow)
    {"permissions": {"allow": ["mcp__e2e__write_note"]}},
    {"permissions": {"allow": ["mcp__e2e"]}},
    {"permissions": {"defaultMode": "bypassPermissions"}},
], ids=["none", "allow-rule", "allow-server", "default-mode"])
def test_user_settings_that_let_the_cli_run_a_tool_unasked_do_not_beat_the_rules(
        cli: str, tool_log: Path, home: Path, audited: tuple[Path, Path],
        model: Callable[[str], Model], settings: dict[str, Any]) -> None:
    (home / ".claude" / "settings.json").write_text(json.dumps(settings))
    config, audit = audited
    m = model(DENIED_THEN_REWRITTEN)
    host = toolhost.load(config)
    try:
        messages = play(host.options(cli_path=cli, env=cli_env(m, home), cwd=str(home)))
    finally:
        anyio.run(host.aclose)
    assert_rules_held(messages, tool_log, audit, m)


def test_options_refuses_a_permission_mode_that_does_not_ask(tmp_path: Path) -> None:
    host = toolhost.load(CONFIG)
    try:
        with pytest.raises(ToolhostError, match="bypassPermissions"):
            host.options(permission_mode="bypassPermissions")
    finally:
        anyio.run(host.aclose)


def test_hand_built_options_in_bypass_mode_still_meet_the_rules(
        cli: str, tool_log: Path, home: Path, audited: tuple[Path, Path],
        model: Callable[[str], Model]) -> None:
    # The program never used options() nor can_use_tool: only the servers, in a mode in
    # which the CLI asks nobody. Every call is decided when it arrives.
    config, audit = audited
    m = model(DENIED_THEN_REWRITTEN)
    host = toolhost.load(config)
    try:
        messages = play(ClaudeAgentOptions(
            mcp_servers=host.mcp_servers, permission_mode="bypassPermissions", cli_path=cli,
            env=cli_env(m, home), cwd=str(home)))
    finally:
        anyio.run(host.aclose)
    assert_rules_held(messages, tool_log, audit, m)


def test_a_settings_default_mode_does_not_reach_built_in_tools_through_options(
        cli: str, home: Path, tmp_path: Path, model: Callable[[str], Model]) -> None:
    # options() starts the CLI in default mode: the settings' bypassPermissions does not
    # apply, so the CLI asks can_use_tool about Bash too (the e2e config denies it).
    (home / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"defaultMode": "bypassPermissions"}}))
    marker = tmp_path / "ran"
    m = model(f"""\
turns:
  - tool_calls:
      - {{tool: Bash, input: {{command: "touch {marker}"}}}}
  - expect_results:
      - {{is_error: true}}
    text: Refused.
""")
    host = toolhost.load(CONFIG)
    try:
        messages = play(host.options(cli_path=cli, env=cli_env(m, home), cwd=str(home)))
    finally:
        anyio.run(host.aclose)
    code, verdict = m.stop()
    assert code == 0, verdict
    assert not marker.exists()
    init = messages[0]
    assert init.data["permissionMode"] == "default", init


@pytest.mark.parametrize("settings", [{}, {"permissions": {"allow": ["Read", "Bash"]}}],
                         ids=["none", "allow-rule"])
def test_reads_the_cli_deems_safe_reach_can_use_tool_through_options(
        cli: str, home: Path, audited: tuple[Path, Path], model: Callable[[str], Model],
        settings: dict[str, Any]) -> None:
    # A read inside the CLI's working directory and a read-only command: the CLI ran both
    # unasked; options() passes settings that make it ask (the e2e config's default: deny).
    (home / ".claude" / "settings.json").write_text(json.dumps(settings))
    (home / "secret.txt").write_text("TOPSECRET-CONTENT\n")
    config, audit = audited
    m = model(f"""\
turns:
  - tool_calls:
      - {{tool: Read, input: {{file_path: "{home / 'secret.txt'}"}}}}
      - {{tool: Bash, input: {{command: "cat secret.txt", description: x}}}}
  - text: Refused.
""")
    host = toolhost.load(config)
    try:
        messages = play(host.options(cli_path=cli, env=cli_env(m, home), cwd=str(home)))
    finally:
        anyio.run(host.aclose)
    code, verdict = m.stop()
    assert code == 0, verdict
    assert "TOPSECRET" not in repr(messages)
    assert decisions(audit) == [("Read", "deny"), ("Bash", "deny")]
