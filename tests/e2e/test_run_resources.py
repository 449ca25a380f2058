"""The real Claude CLI lists and reads a declared resource through its own MCP resource tools
(ListMcpResourcesTool, ReadMcpResourceTool), and the permission rules apply to them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import run_toolhost

pytestmark = pytest.mark.e2e

CONFIG = """\
toolhost: 1
servers:
  kb:
    tools:
      noop: {python: "toolhost.demo:add"}
    resources:
      runbook: {file: runbook.md, description: How we deploy}
      ticket:
        uri: "tickets://{id}"
        command: [printf, "ticket %s is open", "{{ id }}"]
permissions:
  default: allow
  audit_log: audit.jsonl
  deny:
    - tool: ReadMcpResourceTool
      when: {uri: {glob: "tickets://*"}}
      message: Tickets are read by people, not agents.
"""

SCENARIO = """\
description: list and read a resource; a denied read
turns:
  - text: Looking.
    tool_calls:
      - {tool: ListMcpResourcesTool, input: {server: kb}}
      - {tool: ReadMcpResourceTool, input: {server: kb, uri: "toolhost://kb/runbook"}}
      - {tool: ReadMcpResourceTool, input: {server: kb, uri: "tickets://T-1"}}
  - expect_results:
      - {contains: "toolhost://kb/runbook"}
      - {contains: "Tag then ship"}
      - {is_error: true, contains: "Tickets are read by people"}
    text: done
"""


def test_cli_lists_and_reads_a_declared_resource(cli: str, tmp_path: Path,
                                                 scenario: Callable[[str], Path]) -> None:
    (tmp_path / "runbook.md").write_text("# Deploy\nTag then ship.\n")
    config = tmp_path / "kb.yaml"
    config.write_text(CONFIG)
    done = run_toolhost(cli, str(config), "--script", str(scenario(SCENARIO)), "-p", "go")
    assert done.returncode == 0, done.stdout + done.stderr
    assert '"mimeType":"text/markdown"' in done.stdout
    assert "denied" in done.stdout
    # each read decided once: the CLI's can_use_tool, claimed by the read (not decided again)
    audit = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    reads = [entry["arguments"]["uri"] for entry in audit
             if entry["tool"] == "ReadMcpResourceTool"]
    assert reads.count("toolhost://kb/runbook") == 1, audit
