"""The core's prompt guard: every prompts/get (and completion of a prompt's argument) asks
it first, with the prompt's name and arguments; a refusal, or a guard that fails, answers
-32600 and the prompt is never rendered (fail closed)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.compile.content import ServerContent
from toolhost.mcp.server import McpServer

from .mcp_testtools import MODERN_META


class _Prompt:
    def __init__(self, name: str) -> None:
        self.name, self.rendered = name, 0

    def descriptor(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": [{"name": "who", "required": False}]}

    async def get(self, arguments: Any, ctx: CallContext) -> dict[str, Any]:
        self.rendered += 1
        return {"messages": [{"role": "user", "content": {"type": "text", "text": "BODY"}}]}

    def renamed(self, name: str) -> _Prompt:
        return _Prompt(name)


def _server(guard: Any) -> tuple[McpServer, _Prompt]:
    prompt = _Prompt("p")
    content = ServerContent(prompts={"p": prompt},
                            completions={("ref/prompt", "p"): {"who": ("ana", "bo")}})
    core = McpServer("kb", "1", [], content=content)
    core.prompt_guard = guard
    return core, prompt


def _ask(core: McpServer, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        answer = await core.handle({"jsonrpc": "2.0", "id": 1, "method": method,
                                    "params": dict(params)})
        assert answer is not None
        return answer
    return anyio.run(go)


async def _refuse(name: str, arguments: Mapping[str, Any]) -> str | None:
    return "no"


async def _broken(name: str, arguments: Mapping[str, Any]) -> str | None:
    raise RuntimeError("the rules could not be read")


async def _cancelled_like(name: str, arguments: Mapping[str, Any]) -> str | None:
    raise LookupError("boom")


REQUESTS = [
    ("prompts/get", {"name": "p"}),
    ("prompts/get", {"name": "p", "arguments": {"who": "ana"}}),
    ("prompts/get", {"name": "p", "arguments": None}),
    ("prompts/get", {"name": "p", "_meta": MODERN_META}),
    ("completion/complete", {"ref": {"type": "ref/prompt", "name": "p"},
                             "argument": {"name": "who", "value": ""}}),
]


@pytest.mark.parametrize("guard", [_refuse, _broken, _cancelled_like])
@pytest.mark.parametrize(("method", "params"), REQUESTS)
def test_a_refusing_or_failing_guard_stops_the_prompt(guard: Any, method: str,
                                                      params: Mapping[str, Any]) -> None:
    core, prompt = _server(guard)
    answer = _ask(core, method, params)
    assert answer["error"]["code"] == -32600, answer
    assert "Prompt denied" in answer["error"]["message"]
    assert "BODY" not in str(answer) and "ana" not in str(answer).replace("'who': 'ana'", "")
    assert prompt.rendered == 0


@pytest.mark.parametrize(("method", "params"), REQUESTS)
def test_the_guard_sees_the_name_and_arguments(method: str,
                                                params: Mapping[str, Any]) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    async def allow(name: str, arguments: Mapping[str, Any]) -> str | None:
        seen.append((name, dict(arguments)))
        return None

    core, _ = _server(allow)
    answer = _ask(core, method, params)
    assert "result" in answer, answer
    given = params.get("arguments") if method == "prompts/get" else None
    assert seen == [("p", dict(given or {}))]


@pytest.mark.parametrize(("method", "params"), [
    ("prompts/get", {"name": "nope"}),
    ("prompts/get", {"name": "n" * 100_000}),
    ("completion/complete", {"ref": {"type": "ref/prompt", "name": "nope"},
                             "argument": {"name": "who", "value": ""}}),
])
def test_an_unknown_prompt_is_not_asked_about(method: str, params: Mapping[str, Any]) -> None:
    seen: list[str] = []

    async def guard(name: str, arguments: Mapping[str, Any]) -> str | None:
        seen.append(name)
        return "no"

    core, _ = _server(guard)
    answer = _ask(core, method, params)
    assert answer["error"]["code"] == -32602 and "unknown prompt" in answer["error"]["message"]
    assert len(answer["error"]["message"]) < 300
    assert seen == []
