"""``ctx.log`` reaches MCP clients as notifications/message, honouring logging/setLevel."""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPDeprecationWarning

from tests.modern import modern_meta
from tests.serve.conftest import HERE, http_server

pytestmark = pytest.mark.anyio

CONFIG = """\
toolhost: 1
servers:
  logs:
    tools:
      chatty: {python: "logging_tools:chatty"}
      chatty_sync: {python: "logging_tools:chatty_sync"}
permissions: {default: allow}
"""


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_log_lines_reach_the_client_at_the_level_it_asked(transport: str,
                                                                 tmp_path: Path) -> None:
    config = tmp_path / "logs.yaml"
    config.write_text(CONFIG)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(HERE), str(HERE.parent.parent), os.environ.get("PYTHONPATH")) if p)}
    argv = [sys.executable, "-m", "toolhost", "serve", str(config)]
    received: list[Any] = []

    async def on_log(params: Any) -> None:
        received.append(params)

    async def set_level(client: Client, level: Any) -> None:
        with warnings.catch_warnings():  # the mcp client flags the capability for 2026-07-28
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.set_logging_level(level)

    async def check(client: Client) -> None:
        assert (await client.call_tool("chatty", {})).content[0].text == "done"
        assert [p.level for p in received] == ["info", "notice", "warning"]  # info by default
        assert received[0].data == "halfway" and received[0].logger == "chatty"
        received.clear()
        await set_level(client, "debug")
        await client.call_tool("chatty", {})
        assert [p.data for p in received][:1] == ["starting work"]
        assert len(received) == 4
        received.clear()
        await set_level(client, "error")
        await client.call_tool("chatty", {})
        await client.call_tool("chatty_sync", {})
        assert [p.level for p in received] == ["error"]
        assert len(received[0].data) < 11_000  # a log line is cut, not a bulk channel

    if transport == "stdio":
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
        async with Client(params, mode="legacy", logging_callback=on_log) as client:
            await check(client)
    else:
        with http_server([*argv, "--transport", "http", "--port", "0"],
                         tmp_path / "server.log", env=env) as url:
            async with Client(url, mode="legacy", logging_callback=on_log) as client:
                await check(client)


@pytest.mark.parametrize("level", [None, 5, "loud", ["info"], {"l": 1}, "x" * 100_000])
async def test_a_bad_level_is_an_invalid_params_answer(level: Any) -> None:
    from toolhost.mcp import McpServer

    server = McpServer("s", "1", [])
    answer = await server.handle({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel",
                                  "params": {"level": level}})
    assert answer is not None and answer["error"]["code"] == -32602
    assert len(answer["error"]["message"]) < 200
    ok = await server.handle({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel",
                              "params": {"level": "warning"}})
    assert ok == {"jsonrpc": "2.0", "id": 2, "result": {}}


async def test_modern_requests_hear_log_lines_only_when_they_opt_in() -> None:
    from toolhost.compile import compile_tools
    from toolhost.config import load_config
    from toolhost.mcp import McpServer

    config = HERE / "logging_test.yaml"
    config.write_text(CONFIG)
    try:
        compiled = compile_tools(load_config(config, layers=False))
    finally:
        config.unlink()
    server = McpServer("logs", "1", compiled.servers["logs"])
    heard: list[dict[str, Any]] = []

    async def notify(note: dict[str, Any]) -> None:
        heard.append(note)

    base = modern_meta()
    for meta, expected in ((base, []), ({**base, "io.modelcontextprotocol/logLevel": "warning"},
                                        ["warning"])):
        heard.clear()
        await server.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                             "params": {"name": "chatty", "arguments": {}, "_meta": meta}},
                            notify=notify)
        assert [n["params"]["level"] for n in heard] == expected
    await compiled.aclose()


async def test_a_command_s_stderr_lines_reach_the_client_as_they_are_written(
        tmp_path: Path) -> None:
    import time

    config = tmp_path / "cmd.yaml"
    config.write_text("""\
toolhost: 1
servers:
  build:
    tools:
      make:
        command:
          argv: [sh, -c, "echo compiling >&2; sleep 1; echo 'warning: slow disk' >&2;
                 echo 'ERROR: token ${BUILD_TOKEN} rejected' >&2; printf 'a\\\\nb' >&2;
                 echo built"]
          stderr: log
      quiet: {command: [sh, -c, "echo hidden >&2; echo ok"]}
permissions: {default: allow}
""")
    env = {**os.environ, "BUILD_TOKEN": "tok-9f8e7d6c5b4a"}
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "toolhost", "serve", str(config)], env=env)
    received: list[tuple[float, Any]] = []

    async def on_log(params: Any) -> None:
        received.append((time.monotonic(), params))

    async with Client(params, mode="legacy", logging_callback=on_log) as client:
        result = await client.call_tool("make", {})
        answered = time.monotonic()
        assert result.content[0].text.strip() == "built"
        lines = [(p.level, p.data) for _, p in received]
        assert lines == [("info", "compiling"), ("warning", "warning: slow disk"),
                         ("error", "ERROR: token *** rejected"), ("info", "a"),
                         ("info", "b")]
        assert answered - received[0][0] > 0.5  # sent while the command ran, not after
        received.clear()
        assert (await client.call_tool("quiet", {})).content[0].text.strip() == "ok"
        assert received == []  # stderr goes to the client only where the tool asks
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.set_logging_level("warning")
        await client.call_tool("make", {})
        assert [p.level for _, p in received] == ["warning", "error"]
