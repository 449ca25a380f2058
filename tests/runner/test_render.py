"""Rendering the real CLI's messages (from the captured traces) for people and for scripts."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from toolhost.config.model import Origin
from toolhost.permissions.decision import Decision
from toolhost.runner.render import JsonRenderer, TextRenderer, shorten

HERE = Path(__file__).parent


def _messages(name: str) -> list[dict[str, Any]]:
    out = []
    for line in (HERE.parent / "traces" / name).read_text().splitlines():
        entry = json.loads(line)
        msg = entry["msg"]
        if entry["dir"] == "cli->sdk" and msg.get("type") not in (
                "control_request", "control_response"):
            out.append(msg)
    return out


def test_text_transcript_of_a_denied_call() -> None:
    out = io.StringIO()
    r = TextRenderer(out, io.StringIO(), color=False)
    for msg in _messages("deny.wire.jsonl"):
        r.message(msg)
        if msg["type"] == "assistant" and msg["message"]["content"][0]["type"] == "tool_use":
            r.decision("mcp__demo__greet", {"name": "Alice"}, Decision(
                "deny", "The user does not want anyone greeted.", rule="mcp__demo__greet",
                origin=Origin("team.yaml", 9, 7)))
    lines = out.getvalue().splitlines()
    assert lines[1:4] == [
        '→ mcp__demo__greet(name="Alice")',
        "  ⊘ denied by mcp__demo__greet at team.yaml:9:7: The user does not want anyone "
        "greeted.",
        "  ✗ mcp__demo__greet: The user does not want anyone greeted.",
    ]
    assert lines[0].startswith("session: model claude-sonnet-4-5, MCP servers demo (connected)")
    assert lines[-1] == "— done: 2 turns, 0.3 s, $0.0163, 1 denied"


def test_parallel_results_and_allow_by_default() -> None:
    out = io.StringIO()
    r = TextRenderer(out, io.StringIO(), color=False)
    for msg in _messages("parallel-readonly.wire.jsonl"):
        r.message(msg)
    r.decision("mcp__demo__greet", {}, Decision("allow", answered_by="--yes",
                                                updated_input={"name": "x"}))
    text = out.getvalue()
    assert "  ← mcp__demo__greet: Hello, Alice!\n  ← mcp__demo__greet: Hello, Bob!\n" in text
    assert "  ✓ allowed by default (--yes) (input rewritten)" in text


def test_json_renderer_writes_each_message_as_one_line() -> None:
    out = io.StringIO()
    r = JsonRenderer(out)
    msgs = _messages("allow.wire.jsonl")
    for msg in msgs:
        r.message(msg)
    assert [json.loads(line) for line in out.getvalue().splitlines()] == msgs


def test_shorten_keeps_one_line_and_says_how_much_was_cut() -> None:
    assert shorten("a\n b") == "a b"
    assert shorten("x" * 300, 50) == "x" * 49 + "… (+251 chars)"
