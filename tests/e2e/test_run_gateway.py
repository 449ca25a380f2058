"""The real Claude CLI calls a reshaped upstream tool under `toolhost run`: the upstream is
hosted in-process as an SDK server, so a deny rule on an argument is enforced and a fixed
argument arrives."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from ..gateway.conftest import gateway_config, wait_upstreams_gone
from .conftest import TOOLHOST

pytestmark = pytest.mark.e2e

SCENARIO = """\
description: a reshaped upstream tool, once allowed and once denied on its argument
turns:
  - text: Searching.
    tool_calls:
      - {tool: mcp__gh__search, input: {query: flaky test}}
      - {tool: mcp__gh__search, input: {query: root password}}
  - expect_results:
      - {equals: "5 issues in acme/app matching 'flaky test'"}
      - {is_error: true, contains: "No password hunting."}
    text: done
"""


def test_cli_calls_a_governed_upstream_tool(cli: str, tmp_path: Path,
                                            scenario: Callable[[str], Path]) -> None:
    log = tmp_path / "upstream.jsonl"
    config = gateway_config(tmp_path)
    env = {**os.environ, "TOOLHOST_CLI": cli, "UPSTREAM_LOG": str(log)}
    done = subprocess.run([str(TOOLHOST), "run", str(config), "--script",
                           str(scenario(SCENARIO)), "-p", "go"], capture_output=True,
                          text=True, env=env, timeout=240, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    arrived = [json.loads(line) for line in log.read_text().splitlines()]
    assert arrived == [{"tool": "search_issues",
                        "arguments": {"repo": "acme/app", "query": "flaky test", "limit": 5}}]
    wait_upstreams_gone(15)  # (each ends once toolhost, exited, closed its input)
