"""The real Claude CLI (bundled) against the scripted model, with toolhost as
(1) an external stdio MCP server (`toolhost serve` via --mcp-config) and
(2) the tools and rules of a claude_agent_sdk program (toolhost.sdk.load)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.serve.test_serve_command import DEMO, ROOT
from toolhost.runner.discovery import bundled_cli
from toolhost.runner.offline import OfflineHome
from toolhost.scripted import ScriptedModel, parse_scenario

pytestmark = pytest.mark.e2e

SCENARIO = """\
description: add twice; the second call breaks a deny rule of the config
turns:
  - text: Adding.
    tool_calls:
      - {tool: mcp__calc__add, input: {a: 2, b: 3}}
  - expect_results:
      - {equals: "5"}
    tool_calls:
      - {tool: mcp__calc__add, input: {a: 13, b: 1}}
  - expect_results:
      - {is_error: true, contains: "13 is not allowed as the first number (team rule)"}
    text: 2 + 3 = 5, and 13 is not allowed.
"""


def cli() -> str:
    found = bundled_cli()
    if found is None:
        pytest.skip("the bundled Claude CLI is not installed")
    return str(found)


def test_claude_cli_uses_toolhost_serve_as_external_stdio_server(tmp_path: Path) -> None:
    entry = subprocess.run([sys.executable, "-m", "toolhost", "mcp-config", DEMO,
                            "--server", "calc"], capture_output=True, text=True, check=True,
                           timeout=60).stdout
    assert json.loads(entry)["mcpServers"]["calc"]["type"] == "stdio"
    with ScriptedModel(parse_scenario(SCENARIO)) as model, OfflineHome() as home:
        env = {**os.environ, **home.env(model.base_url)}
        done = subprocess.run(
            [cli(), "-p", "add some numbers", "--output-format", "stream-json", "--verbose",
             "--mcp-config", entry, "--strict-mcp-config",
             "--allowedTools", "mcp__calc__add"],
            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
            stdin=subprocess.DEVNULL)
        problems = model.problems()
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    init = next(m for m in lines if m.get("type") == "system" and m.get("subtype") == "init")
    assert [(s["name"], s["status"]) for s in init["mcp_servers"]] == [("calc", "connected")]
    result = lines[-1]
    assert result["type"] == "result" and result["subtype"] == "success", done.stderr
    assert result["result"] == "2 + 3 = 5, and 13 is not allowed."
    assert problems == []


def test_sdk_program_with_toolhost_load_completes_a_tool_call() -> None:
    with ScriptedModel(parse_scenario(SCENARIO)) as model, OfflineHome() as home:
        env = {**os.environ, **home.env(model.base_url)}
        done = subprocess.run(
            [sys.executable, str(ROOT / "examples" / "sdk_program.py"), DEMO, "add numbers"],
            capture_output=True, text=True, env=env, timeout=120, stdin=subprocess.DEVNULL)
        problems = model.problems()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tool call: mcp__calc__add {'a': 2, 'b': 3}" in done.stdout
    assert "tool result (error): 13 is not allowed as the first number (team rule)" in done.stdout
    assert "assistant: 2 + 3 = 5, and 13 is not allowed." in done.stdout
    assert "result: success" in done.stdout
    assert problems == []
