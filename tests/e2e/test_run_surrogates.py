"""Lone surrogates (valid JSON: ``"\\ud800"``, not text) in what the CLI sends: a
``can_use_tool`` name or input is decided like any other (a plain deny for an unknown name),
with its audit line; a ``tools/call`` name is an unknown tool; arguments a command would be
given are refused in plain words. Never an encoding error's text, never an unanswered
request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .fakecli import ECHO_SERVER, run_fake

pytestmark = pytest.mark.e2e

CONFIG = ECHO_SERVER + """\
      feed:
        command: {argv: [cat], stdin: "{{ text }}"}
        params: {text: {type: string}}
permissions:
  default: deny
  allow: [mcp__s__echo, mcp__s__feed]
  audit_log: AUDIT
"""

LONE = ["\ud800", "\udfff", "\udc80", "\udcff"]  # U+DC80-DCFF: surrogateescape's raw bytes


def _ask(rid: str, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "control_request", "request_id": rid, "request": {
        "subtype": "can_use_tool", "tool_name": name, "input": tool_input}}


def _call(rid: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "control_request", "request_id": rid, "request": {
        "subtype": "mcp_message", "server_name": "s", "message": {
            "jsonrpc": "2.0", "id": rid, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}}}


def _answers(log: str) -> dict[str, Any]:
    out = {}
    for line in log.splitlines():
        if line.startswith("IN ") and '"control_response"' in line:
            response = json.loads(line[3:])["response"]
            out[response["request_id"]] = response["response"]
    return out


@pytest.mark.parametrize("lone", LONE, ids=[f"U+{ord(c):04X}" for c in LONE])
def test_lone_surrogates_from_the_cli_are_plain_answers(tmp_path: Path, lone: str) -> None:
    audit = tmp_path / "audit.jsonl"
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG.replace("AUDIT", str(audit)))
    lines = [_ask("name", f"mcp__s__echo{lone}", {}),
             _ask("value", "mcp__s__echo", {"text": f"a{lone}"}),
             _ask("key", "mcp__s__echo", {f"te{lone}xt": "a"}),
             _ask("bash", "Bash", {"command": f"ls {lone}"}),
             _call("c-name", f"echo{lone}", {"text": "a"}),
             _call("c-arg", "echo", {"text": f"a{lone}b"}),
             _call("c-nested", "echo", {"text": "a", "x": {"y": [lone]}}),
             _call("c-stdin", "feed", {"text": f"a{lone}"})]
    done, log = run_fake(tmp_path, config, lines, wait=3, turns=0,
                         until='"request_id":"c-stdin"')
    answers = _answers(log)
    assert set(answers) == {"name", "value", "key", "bash", "c-name", "c-arg", "c-nested",
                            "c-stdin"}, (done.stderr, log[-3000:])
    everything = done.stdout + done.stderr + json.dumps(answers)
    for word in ("UnicodeEncodeError", "codec", "surrogates not allowed", "Traceback"):
        assert word not in everything, everything
    assert answers["name"]["behavior"] == "deny"
    assert answers["bash"]["behavior"] == "deny"
    assert answers["value"]["behavior"] == "allow"
    assert "Unknown tool" in answers["c-name"]["mcp_response"]["error"]["message"]
    for rid in ("c-arg", "c-stdin"):
        result = answers[rid]["mcp_response"]["result"]
        assert result["isError"], result
        text = result["content"][0]["text"]
        assert text.startswith("Refused to run the command: argument 'text' holds U+"), text
        assert "lone surrogate" in text
    # every decision has its audit line, valid JSON in valid UTF-8, the names kept escaped
    records = [json.loads(line) for line in audit.read_bytes().decode("utf-8").splitlines()]
    tools = [r["tool"] for r in records]
    assert f"mcp__s__echo{lone}" in tools and "Bash" in tools
    assert tools.count("mcp__s__echo") >= 2
