"""A rule's message may quote a ``${SECRET}``: whatever ``toolhost serve`` (a real process)
tells the client about a decision (the ask question of both eras, the deny, the fallback
when nobody can be asked) carries ``***`` instead of the value."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .stdio_peer import stdio_peer

SECRET = "sk-live-4f9a8b7c6d5e"
CONFIG = """\
toolhost: 1
servers:
  calc:
    tools:
      add: {python: "toolhost.demo:add"}
permissions:
  default: allow
  ask:
    - tool: mcp__calc__add
      when: {a: 7}
      message: "This calls the billing API with key ${BILLING_API_KEY}"
  deny:
    - tool: mcp__calc__add
      when: {a: 13}
      message: "denied; key ${BILLING_API_KEY}"
"""
MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}


def init(capabilities: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": "init", "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": capabilities,
                       "clientInfo": {"name": "t", "version": "1"}}}


def add(a: int, **meta: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "add", "arguments": {"a": a, "b": 1}}
    if meta:
        params["_meta"] = meta
    return params


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "ask.yaml"
    path.write_text(CONFIG)
    return path


def test_the_ask_question_and_the_deny_hide_the_secret(config: Path) -> None:
    with stdio_peer(config, extra_env={"BILLING_API_KEY": SECRET},
                    initialize=init({"elicitation": {}})) as peer:
        denied = peer.ask(1, "tools/call", add(13))
        assert denied["result"]["isError"] and "***" in str(denied)
        peer.request(2, "tools/call", add(7))
        question = peer.wait_for(lambda m: m.get("method") == "elicitation/create")
        text = question["params"]["message"]
        assert "billing API with key ***" in text and SECRET not in text
        peer.send({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "decline"}})
        answer = peer.wait_for(2)
        assert answer["result"]["isError"] and SECRET not in str(answer)
        modern = peer.ask(3, "tools/call", add(7, **MODERN))["result"]
        assert modern["resultType"] == "input_required"
        assert SECRET not in str(modern) and "key ***" in str(modern)
        assert SECRET not in peer.log()


def test_nobody_to_ask_is_a_deny_without_the_secret(config: Path) -> None:
    with stdio_peer(config, extra_env={"BILLING_API_KEY": SECRET},
                    initialize=init({})) as peer:
        answer = peer.ask(1, "tools/call", add(7))
        assert answer["result"]["isError"] and "key ***" in str(answer)
        assert SECRET not in str(answer)
