"""``ctx.elicit`` / ``ctx.sample`` and asks through elicitation, with the official client.

Over stdio and Streamable HTTP (sessions of the 2025 revisions): the request reaches the
client's callback, its answer reaches the tool, and what cannot be asked (no capability,
a schema that cannot be elicited, an answer that does not fit) is an error result saying why.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.serve.conftest import HERE, http_server

pytestmark = pytest.mark.anyio

CONFIG = """\
toolhost: 1
servers:
  trips:
    tools:
      book: {python: "elicit_tools:book"}
      book_sync: {python: "elicit_tools:book_sync"}
      summarise: {python: "elicit_tools:summarise"}
      nested: {python: "elicit_tools:nested"}
      echo: {python: "elicit_tools:echo"}
permissions:
  allow: [mcp__trips__book, mcp__trips__book_sync, mcp__trips__summarise, mcp__trips__nested]
  audit_log: AUDIT
"""


@asynccontextmanager
async def connect(transport: str, tmp_path: Path, **callbacks: Any) -> AsyncIterator[Client]:
    config = tmp_path / "trips.yaml"
    config.write_text(CONFIG.replace("AUDIT", str(tmp_path / "audit.jsonl")))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(HERE), str(HERE.parent.parent), os.environ.get("PYTHONPATH")) if p)}
    argv = [sys.executable, "-m", "toolhost", "serve", str(config)]
    if transport == "stdio":
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
        async with Client(params, mode="legacy", **callbacks) as client:
            yield client
    else:  # http: a session of the 2025 revisions; http-modern: stateless round trips
        mode = "legacy" if transport == "http" else "auto"
        with http_server([*argv, "--transport", "http", "--port", "0"],
                         tmp_path / "server.log", env=env) as url:
            async with Client(url, mode=mode, **callbacks) as client:  # type: ignore[arg-type]
                yield client


def answering(action: str, content: dict[str, Any] | None = None,
              seen: list[Any] | None = None) -> Callable[..., Any]:
    async def callback(context: Any, params: Any) -> types.ElicitResult:
        if seen is not None:
            seen.append(params)
        return types.ElicitResult(action=action, content=content)  # type: ignore[arg-type]
    return callback


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


TRANSPORTS = ["stdio", "http", "http-modern"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_person_answers_and_the_tool_gets_the_values(transport: str,
                                                               tmp_path: Path) -> None:
    seen: list[Any] = []
    async with connect(transport, tmp_path, elicitation_callback=answering(
            "accept", {"seat": "aisle", "nights": 3}, seen)) as client:
        result = await client.call_tool("book", {"city": "Lyon"})
        assert not result.is_error, text(result)
        assert text(result) == 'booked Lyon: {"nights": 3, "seat": "aisle"}'
        schema = seen[0].requested_schema
        assert seen[0].message.startswith("Booking a trip to Lyon")
        assert schema["properties"]["seat"]["default"] == "window"
        assert text(await client.call_tool("book_sync", {"city": "Oslo"})) == "Oslo: accept"


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_decline_and_cancel_reach_the_tool(transport: str, action: str,
                                                 tmp_path: Path) -> None:
    async with connect(transport, tmp_path, elicitation_callback=answering(action)) as client:
        assert text(await client.call_tool("book", {"city": "Lyon"})) == f"not booked ({action})"


@pytest.mark.parametrize("content", [{"seat": "roof", "nights": 3}, {"seat": "aisle"},
                                     {"seat": "aisle", "nights": 99}])
async def test_values_that_do_not_fit_the_schema_are_an_error(content: dict[str, Any],
                                                              tmp_path: Path) -> None:
    async with connect("stdio", tmp_path,
                       elicitation_callback=answering("accept", content)) as client:
        result = await client.call_tool("book", {"city": "Lyon"})
        assert result.is_error
        assert "got values that do not fit the schema" in text(result)
        assert (await client.call_tool("summarise", {"text": "x"})).is_error  # no sampling


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_sampling_reaches_the_clients_model(transport: str, tmp_path: Path) -> None:
    asked: list[Any] = []

    async def sample(context: Any, params: Any) -> types.CreateMessageResult:
        asked.append(params)
        return types.CreateMessageResult(
            role="assistant", model="tiny-1", stop_reason="endTurn",
            content=types.TextContent(type="text", text="short"))

    async with connect(transport, tmp_path, sampling_callback=sample) as client:
        result = await client.call_tool("summarise", {"text": "a long text"})
        assert text(result) == "summary by tiny-1: short"
        assert asked[0].max_tokens == 50 and asked[0].system_prompt == "Be brief."
        assert asked[0].messages[0].content.text == "Summarise: a long text"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_client_without_the_capability_gets_an_error_result(transport: str,
                                                                    tmp_path: Path) -> None:
    async with connect(transport, tmp_path) as client:
        if transport == "http-modern":  # 2026-07-28: -32021 naming what to declare (HTTP 400)
            for tool, arguments, capability in (("book", {"city": "Lyon"}, "elicitation"),
                                                ("summarise", {"text": "x"}, "sampling")):
                with pytest.raises(MCPError) as refused:
                    await client.call_tool(tool, arguments)
                assert refused.value.code == -32021
                assert refused.value.data == {"requiredCapabilities": {capability: {}}}
            return
        result = await client.call_tool("book", {"city": "Lyon"})
        assert result.is_error
        assert "did not declare the 'elicitation' capability" in text(result)
        result = await client.call_tool("summarise", {"text": "x"})
        assert "did not declare the 'sampling' capability" in text(result)


async def test_a_schema_that_cannot_be_elicited_is_an_error_before_anything_is_sent(
        tmp_path: Path) -> None:
    seen: list[Any] = []
    async with connect("stdio", tmp_path,
                       elicitation_callback=answering("accept", {}, seen)) as client:
        result = await client.call_tool("nested", {})
        assert result.is_error and "cannot be elicited" in text(result)
        assert seen == []


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("action", "allowed"), [("accept", True), ("decline", False),
                                                 ("cancel", False)])
async def test_an_ask_goes_to_the_person_at_the_client(transport: str, action: str,
                                                       allowed: bool, tmp_path: Path) -> None:
    seen: list[Any] = []
    async with connect(transport, tmp_path,
                       elicitation_callback=answering(action, {} if allowed else None,
                                                      seen)) as client:
        result = await client.call_tool("echo", {"text": "hi"})
    assert seen and "allow mcp__trips__echo?" in seen[0].message
    assert '"text": "hi"' in seen[0].message
    assert (text(result) == "hi") is allowed
    assert result.is_error is not allowed
    audit = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert audit[-1]["decision"] == ("allow" if allowed else "deny")
    assert audit[-1]["answered_by"] == "person (MCP client)"


async def test_an_ask_without_elicitation_is_denied_saying_why(tmp_path: Path) -> None:
    async with connect("stdio", tmp_path) as client:
        result = await client.call_tool("echo", {"text": "hi"})
    assert result.is_error and "nobody can be asked" in text(result)
