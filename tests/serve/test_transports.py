"""Both transports, both eras, driven by the official ``mcp`` client against a real process."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from tests.serve.conftest import fixture_http_argv, fixture_stdio_argv, http_server, server_env

pytestmark = pytest.mark.anyio

MODES = ["legacy", "auto"]
TRANSPORTS = ["stdio", "http"]


@asynccontextmanager
async def connect(transport: str, mode: str, tmp_path: Path) -> AsyncIterator[Client]:
    if transport == "stdio":
        argv = fixture_stdio_argv()
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=server_env())
        async with Client(params, mode=mode) as client:
            yield client
    else:
        with http_server(fixture_http_argv(), tmp_path / "server.log") as url:
            async with Client(url, mode=mode) as client:
                yield client


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("mode", MODES)
async def test_list_and_call(transport: str, mode: str, tmp_path: Path) -> None:
    async with connect(transport, mode, tmp_path) as client:
        assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        assert client.server_info is not None
        assert (client.server_info.name, client.server_info.version) == ("demo", "1.2.3")
        listed = await client.list_tools()
        assert [t.name for t in listed.tools] == ["greet", "add", "slow"]
        assert listed.tools[0].input_schema["required"] == ["name"]
        greeting = await client.call_tool("greet", {"name": "Alice"})
        assert not greeting.is_error
        assert [c.text for c in greeting.content] == ["Hello, Alice!"]  # type: ignore[union-attr]
        total = await client.call_tool("add", {"a": 2, "b": 40})
        assert total.structured_content == {"sum": 42}
        bad = await client.call_tool("add", {"a": "x", "b": 1})
        assert bad.is_error
        assert "a: 'x' is not of type 'integer'" in bad.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("mode", MODES)
async def test_permission_rules_apply_inside_tools_call(transport: str, mode: str,
                                                        tmp_path: Path) -> None:
    async with connect(transport, mode, tmp_path) as client:
        denied = await client.call_tool("add", {"a": 13, "b": 1})
        assert denied.is_error
        assert denied.content[0].text == (  # type: ignore[union-attr]
            "13 is unlucky (rule: deny add when a == 13)")
        asked = await client.call_tool("slow", {"steps": 0})
        assert asked.is_error
        assert "no one to ask" in asked.content[0].text  # type: ignore[union-attr]
        allowed = await client.call_tool("add", {"a": 12, "b": 1})
        assert allowed.structured_content == {"sum": 13}


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("mode", MODES)
async def test_progress_reaches_the_client(transport: str, mode: str, tmp_path: Path) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with connect(transport, mode, tmp_path) as client:
        result = await client.call_tool("slow", {"steps": 3, "pause": 0.01},
                                        progress_callback=on_progress)
        assert result.content[0].text == "done after 3 steps"  # type: ignore[union-attr]
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("mode", MODES)
async def test_cancelling_a_call_stops_it(transport: str, mode: str, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    async with connect(transport, mode, tmp_path) as client:
        with anyio.move_on_after(1):
            await client.call_tool("slow", {"steps": 1000, "pause": 0.05, "marker": str(marker)})
            raise AssertionError("the call should not have finished")
        with anyio.fail_after(10):
            while not marker.exists():
                await anyio.sleep(0.05)
        # The server is still fine after the cancellation.
        after = await client.call_tool("greet", {"name": "Bob"})
        assert after.content[0].text == "Hello, Bob!"  # type: ignore[union-attr]
    assert marker.read_text() == "cancelled"
