"""``completion/complete`` asks nobody: with the rules' deny-only view (``read_visible``,
``prompt_visible``) a completion the rules do not deny answers without the guard (which
under ``serve`` with a default ``ask`` would put a question to the person at the client);
one a rule denies is refused with the guard's reason; a view that fails refuses."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from .mcp_testtools import ask, content_server

CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      ticket:
        uri: "tickets://{id}"
        command: [echo, "ticket {{ id }}"]
        complete: {id: [T-1, T-2]}
    prompts:
      brief:
        arguments: {team: {complete: [red, blue]}}
        template: "Brief {{ team }}"
"""
RESOURCE = {"ref": {"type": "ref/resource", "uri": "tickets://{id}"},
            "argument": {"name": "id", "value": "T"}}
PROMPT = {"ref": {"type": "ref/prompt", "name": "brief"},
          "argument": {"name": "team", "value": ""}}


@pytest.mark.parametrize("params", [RESOURCE, PROMPT], ids=["template", "prompt"])
@pytest.mark.parametrize("view", ["not denied", "denied", "fails"])
def test_a_completion_is_decided_without_asking(tmp_path: Path, params: Mapping[str, Any],
                                                view: str) -> None:
    server = content_server(tmp_path, CONFIG)
    asked: list[Any] = []

    async def read_guard(uri: str) -> str | None:
        asked.append(uri)
        return "a rule seals it"

    async def prompt_guard(name: str, arguments: Mapping[str, Any]) -> str | None:
        asked.append(name)
        return "a rule seals it"

    def decided(*_: Any) -> bool:
        if view == "fails":
            raise RuntimeError("the policy broke")
        return view == "not denied"
    server.read_guard, server.prompt_guard = read_guard, prompt_guard
    server.read_visible, server.prompt_visible = decided, decided
    answer = ask(server, "completion/complete", params)
    if view == "not denied":
        assert asked == [], "the guard (which may ask a person) was asked"
        assert len(answer["result"]["completion"]["values"]) == 2, answer
    else:
        assert answer["error"]["code"] == -32600, answer
        assert ("seals" if view == "denied" else "check failed") in answer["error"]["message"]
