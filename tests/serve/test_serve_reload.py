"""``toolhost serve --watch``: edit the config while serving; clients hear tools/list_changed."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from tests.serve.conftest import http_server, server_env
from tests.serve.test_serve_command import serve_argv, text_of

pytestmark = pytest.mark.anyio

BEFORE = """\
toolhost: 1
servers:
  calc:
    tools:
      add: {python: "toolhost.demo:add"}
permissions: {default: allow}
"""
AFTER = BEFORE.replace('      add: {python: "toolhost.demo:add"}\n',
                       '      add: {python: "toolhost.demo:add"}\n'
                       '      words: {python: "toolhost.demo:word_count"}\n')
BROKEN = AFTER.replace("tools:", "tools: [oops")


def rewrite(path: Path, text: str) -> None:
    before = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(before + 2_000_000_000, before + 2_000_000_000))


async def names(client: Client) -> list[str]:
    return [t.name for t in (await client.list_tools(cache_mode="bypass")).tools]


@asynccontextmanager
async def watched(mode: str, transport: str, config: Path, log: Path,
                  on_message: Any) -> AsyncIterator[Client]:
    args = [str(config), "--watch", "--watch-interval", "0.05"]
    if transport == "stdio":
        argv = serve_argv(*args)
        with open(log, "w") as errlog:
            params = StdioServerParameters(command=argv[0], args=argv[1:], env=server_env())
            from mcp.client.stdio import stdio_client

            async with Client(stdio_client(params, errlog=errlog), mode=mode,
                              message_handler=on_message) as client:
                yield client
    else:
        with http_server(serve_argv(*args, "--transport", "http", "--port", "0"),
                         log) as url:
            async with Client(url, mode=mode, message_handler=on_message) as client:
                yield client


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_edit_announces_new_tools_and_bad_edit_keeps_old(
        mode: str, transport: str, tmp_path: Path) -> None:
    config = tmp_path / "toolhost.yaml"
    config.write_text(BEFORE)
    log = tmp_path / "server.log"
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with watched(mode, transport, config, log, on_message) as client:
        assert await names(client) == ["add"]
        if mode == "legacy":
            if transport == "http":
                await anyio.sleep(0.5)  # let the client open its GET stream
            rewrite(config, AFTER)
            with anyio.fail_after(20):
                await changed.wait()
        else:
            async with client.listen(tools_list_changed=True) as subscription:
                assert subscription.honored.tools_list_changed
                rewrite(config, AFTER)
                with anyio.fail_after(20):
                    event = await subscription.__anext__()
                assert type(event).__name__ == "ToolsListChanged"
        assert await names(client) == ["add", "words"]
        assert text_of(await client.call_tool("words", {"text": "a b"})) == "2"

        rewrite(config, BROKEN)
        with anyio.fail_after(20):
            while "reload failed" not in log.read_text():
                await anyio.sleep(0.05)
        assert await names(client) == ["add", "words"]  # the last good config keeps serving
        assert text_of(await client.call_tool("add", {"a": 1, "b": 2})) == "3"
    assert "still serving the last good config" in log.read_text()
