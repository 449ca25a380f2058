"""``toolhost serve --watch``: a reload while a call is being decided (its question open at
the client) leaves the answer to the new rules. In-process: the real builds of two configs."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio

from toolhost.permissions.decision import Decision
from toolhost.serve.build import ServeBuild, Server, build_serve

CONFIG = """\
toolhost: 1
servers:
  kb:
    tools:
      note: {python: "toolhost.demo:add"}
permissions:
  default: allow
  ask: [mcp__kb__note]
"""
FROZEN = CONFIG.replace("  ask: [mcp__kb__note]\n", """\
  deny:
    - tool: mcp__kb__note
      message: notes are frozen
""")


class _YesAfterReload:
    """The person at the client says yes, after a reload brought ``then``."""

    def __init__(self, server: list[Server], then: ServeBuild) -> None:
        self.server, self.then = server, then

    async def ask(self, tool_name: str, tool_input: Mapping[str, Any],
                  decision: Decision) -> Decision:
        await self.server[0].swap(self.then)
        return Decision("allow", rule=decision.rule, answered_by="person (MCP client)")


def test_a_yes_given_after_a_reload_denied_the_call_is_a_deny(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(CONFIG)
    (tmp_path / "b.yaml").write_text(FROZEN)
    holder: list[Server] = []
    first = build_serve(tmp_path / "a.yaml")
    first.gate.asker = _YesAfterReload(holder, build_serve(tmp_path / "b.yaml"))
    holder.append(Server(first))

    async def go() -> Decision:
        try:
            return await holder[0].check("mcp__kb__note", {"a": 1, "b": 2})
        finally:
            await holder[0].aclose()

    decision = anyio.run(go)
    assert decision.behavior == "deny"
    assert decision.message.startswith("notes are frozen (the config was reloaded")
