"""``toolhost serve CONFIG``: a real config, the official client, stdio and HTTP, both eras."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.serve.conftest import http_server, server_env

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).parent.parent.parent
DEMO = str(ROOT / "examples" / "configs" / "serve-demo.yaml")
MODES = ["legacy", "auto"]


def serve_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "toolhost", "serve", *args]


@asynccontextmanager
async def stdio_client(mode: str, *args: str) -> AsyncIterator[Client]:
    argv = serve_argv(*args)
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=server_env())
    async with Client(params, mode=mode) as client:
        yield client


def text_of(result: object) -> str:
    return "\n".join(c.text for c in result.content)  # type: ignore[attr-defined]


@pytest.mark.parametrize("mode", MODES)
async def test_one_server_over_stdio(mode: str) -> None:
    async with stdio_client(mode, DEMO, "--server", "calc") as client:
        assert client.server_info is not None
        assert (client.server_info.name, client.server_info.version) == ("calc", "1.0.0")
        tools = (await client.list_tools()).tools
        assert [t.name for t in tools] == ["add", "word_count", "slow_count"]
        assert tools[0].input_schema["required"] == ["a", "b"]
        assert text_of(await client.call_tool("add", {"a": 2, "b": 3})) == "5"
        assert text_of(await client.call_tool("word_count", {"text": "one two three"})) == "3"
        denied = await client.call_tool("add", {"a": 13, "b": 1})
        assert denied.is_error
        assert text_of(denied) == "13 is not allowed as the first number (team rule)"
        seen: list[float] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append(progress)

        counted = await client.call_tool("slow_count", {"to": 3, "delay": 0.01},
                                         progress_callback=on_progress)
        assert text_of(counted) == "1 2 3"
        assert seen == [1, 2, 3]


@pytest.mark.parametrize("mode", MODES)
async def test_several_servers_are_prefixed_and_rules_keep_config_names(mode: str) -> None:
    async with stdio_client(mode, DEMO, "--all") as client:
        names = [t.name for t in (await client.list_tools()).tools]
        assert names == ["calc__add", "calc__word_count", "calc__slow_count", "text__describe"]
        described = await client.call_tool("text__describe", {"text": "hello"})
        assert described.structured_content == {"length": 5, "kind": "short"}
        denied = await client.call_tool("text__describe", {"text": "secret"})
        assert denied.is_error and text_of(denied) == "Do not describe secrets."
        assert (await client.call_tool("calc__add", {"a": 13, "b": 0})).is_error


def test_ambiguous_or_unknown_server_is_a_clear_error() -> None:
    ambiguous = subprocess.run(serve_argv(DEMO), capture_output=True, text=True,
                               stdin=subprocess.DEVNULL, env=server_env(), timeout=60)
    assert ambiguous.returncode == 1
    assert "several servers (calc, text)" in ambiguous.stderr
    assert "--server NAME" in ambiguous.stderr
    unknown = subprocess.run(serve_argv(DEMO, "--server", "nope"), capture_output=True,
                             text=True, stdin=subprocess.DEVNULL, env=server_env(), timeout=60)
    assert unknown.returncode == 1
    assert "no server 'nope' (servers: calc, text)" in unknown.stderr
    assert unknown.stdout == ""


@pytest.mark.parametrize("mode", MODES)
async def test_http_with_a_bearer_token(mode: str, tmp_path: Path) -> None:
    env = server_env() | {"E6_TEST_TOKEN": "s3cret-token"}
    argv = serve_argv(DEMO, "--server", "calc", "--transport", "http", "--port", "0",
                      "--token-env", "E6_TEST_TOKEN")
    with http_server(argv, tmp_path / "log", env=env) as url:
        async with httpx.AsyncClient() as raw:
            response = await raw.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert response.status_code == 401
            assert response.headers["www-authenticate"].startswith("Bearer")
            for pair in (("Bearer s3cret-token", "Bearer x"), ("Bearer x", "Bearer s3cret-token")):
                two = await raw.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                     headers=[("authorization", v) for v in pair])
                assert two.status_code == 401, pair  # which one counts would be a guess
        http = create_mcp_http_client(headers={"Authorization": "Bearer s3cret-token"})
        async with http, Client(streamable_http_client(url, http_client=http),
                                mode=mode) as client:
            tools = (await client.list_tools()).tools
            assert [t.name for t in tools] == ["add", "word_count", "slow_count"]
            assert text_of(await client.call_tool("add", {"a": 1, "b": 1})) == "2"
            denied = await client.call_tool("add", {"a": 13, "b": 1})
            assert denied.is_error and "team rule" in text_of(denied)


async def test_http_modern_requests_are_stateless(tmp_path: Path) -> None:
    """Each modern POST stands alone: no session id, any replica could answer it."""
    argv = serve_argv(DEMO, "--server", "calc", "--transport", "http", "--port", "0")
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}
    with http_server(argv, tmp_path / "log") as url:
        async with httpx.AsyncClient() as raw:
            headers = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
                       "mcp-name": "add", "accept": "application/json, text/event-stream"}
            body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                    "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": meta}}
            response = await raw.post(url, json=body, headers=headers)
            assert response.status_code == 200
            assert "mcp-session-id" not in response.headers
            answer = response.json()
            assert answer["id"] == 7
            assert answer["result"]["resultType"] == "complete"
            assert answer["result"]["content"] == [{"type": "text", "text": "3"}]
            mismatch = await raw.post(url, json=body, headers=headers | {"mcp-name": "other"})
            assert mismatch.status_code == 400
            assert mismatch.json()["error"]["code"] == -32020
            unknown = await raw.post(url, json={**body, "method": "nope/nope"},
                                     headers=headers | {"mcp-method": "nope/nope"})
            assert unknown.status_code == 404
            assert unknown.json()["error"]["code"] == -32601
            get = await raw.get(url)
            assert get.status_code == 405
