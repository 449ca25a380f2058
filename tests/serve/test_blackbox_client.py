"""`toolhost serve` on a config, driven by the official ``mcp`` client like the issue's check.

Every combination of transport (stdio, Streamable HTTP) and era (legacy handshake, modern
``auto``) lists all tools of a config with more than one page of them, and calls python and
command tools: exact results, structured output, ``isError``, progress, cancellation, 20
calls in flight on one connection, an unknown tool, bad arguments, a deny rule, a conditional
deny, an ``ask`` (a deny here) and an allow that rewrites the input.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.serve.conftest import HERE, http_server

pytestmark = pytest.mark.anyio

GENERATED = 110
TOOLS = ["echo", "summarize", "boom", "slow", "hang", "secret", "asked", "shout", "lines"]


def write_config(path: Path) -> Path:
    lines = ["toolhost: 1", "servers:", "  bb:", "    description: black box",
             "    version: '2.0.0'", "    tools:",
             "      echo: {python: 'blackbox_tools:echo'}",
             "      summarize: {python: 'blackbox_tools:summarize'}",
             "      boom: {python: 'blackbox_tools:boom'}",
             "      slow: {python: 'blackbox_tools:slow', annotations: {readOnlyHint: true}}",
             "      hang: {python: 'blackbox_tools:hang'}",
             "      secret: {python: 'blackbox_tools:secret'}",
             "      asked: {python: 'blackbox_tools:echo'}",
             "      shout:", "        command: [printf, '%s!', '{{ word }}']",
             "        params:", "          word: {type: string}",
             "      lines:", "        command: [sh, -c, 'printf \"a\\nb\\n\"']"]
    lines += [f"      gen{i:03d}: {{python: 'blackbox_tools:echo', description: 'gen {i}'}}"
              for i in range(GENERATED)]
    lines += ["  other:", "    tools:", "      ping2: {python: 'blackbox_tools:echo'}",
              "permissions:", "  default: allow", "  deny:",
              "    - tool: mcp__bb__secret", "      message: Secrets are off limits (bb rule)",
              "    - tool: mcp__bb__echo", "      when: {text: forbidden}",
              "      message: no forbidden words",
              "  ask:", "    - mcp__bb__asked",
              "  allow:", "    - tool: mcp__bb__shout", "      rewrite: {set: {word: REWRITTEN}}"]
    path.write_text("\n".join(lines) + "\n")
    return path


def env() -> dict[str, str]:
    paths = [str(HERE), str(HERE.parent.parent), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}


@asynccontextmanager
async def connect(transport: str, mode: str, tmp_path: Path) -> AsyncIterator[Client]:
    argv = [sys.executable, "-m", "toolhost", "serve", str(write_config(tmp_path / "bb.yaml")),
            "--server", "bb"]
    if transport == "stdio":
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=env())
        async with Client(params, mode=mode) as client:
            yield client
    else:
        with http_server([*argv, "--transport", "http", "--port", "0"],
                         tmp_path / "server.log", env=env()) as url:
            async with Client(url, mode=mode) as client:
                yield client


def text(result: Any) -> str:
    return str(result.content[0].text)


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_official_client_against_a_served_config(transport: str, mode: str,
                                                       tmp_path: Path) -> None:
    async with connect(transport, mode, tmp_path) as client:
        assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        assert client.server_info is not None
        assert (client.server_info.name, client.server_info.version) == ("bb", "2.0.0")

        names: list[str] = []
        cursor: str | None = None
        pages = 0
        while True:
            page = await client.list_tools(cursor=cursor, cache_mode="bypass")
            names += [t.name for t in page.tools]
            pages += 1
            cursor = page.next_cursor
            if cursor is None:
                break
        assert pages == 2
        assert names == TOOLS + [f"gen{i:03d}" for i in range(GENERATED)]

        assert text(await client.call_tool("echo", {"text": "hi", "times": 2})) == "hi hi"
        summed = await client.call_tool("summarize", {"values": [1, 2, 3.5]})
        assert summed.structured_content == {"total": 6.5, "count": 3}
        failed = await client.call_tool("boom", {"reason": "x"})
        assert failed.is_error and text(failed) == "Tool 'boom' failed: RuntimeError: boom: x"
        assert text(await client.call_tool("lines", {})) == "a\nb\n"
        assert text(await client.call_tool("gen109", {"text": "last"})) == "last"

        seen: list[tuple[float, float | None, str | None]] = []

        async def progress(done: float, total: float | None, message: str | None) -> None:
            seen.append((done, total, message))

        slow = await client.call_tool("slow", {"seconds": 0.06, "steps": 3},
                                      progress_callback=progress)
        assert text(slow) == "slept 0.06"
        assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]

        with anyio.move_on_after(0.5) as scope:
            await client.call_tool("hang", {})
        assert scope.cancelled_caught

        answers: dict[int, str] = {}

        async def one(i: int) -> None:
            answers[i] = text(await client.call_tool("echo", {"text": f"c{i}"}))

        async with anyio.create_task_group() as tg:
            for i in range(20):
                tg.start_soon(one, i)
        assert answers == {i: f"c{i}" for i in range(20)}

        with pytest.raises(MCPError) as unknown:
            await client.call_tool("nope", {})
        assert unknown.value.code == -32602 and "nope" in str(unknown.value)
        bad = await client.call_tool("gen000", {"text": 5})
        assert bad.is_error and "5 is not of type 'string'" in text(bad)
        # echo has a deny rule comparing text with a string: a number is a value of the wrong
        # type, which a deny rule matches (fail closed) before the schema is looked at
        wrong = await client.call_tool("echo", {"text": 5})
        assert wrong.is_error and text(wrong) == "no forbidden words"

        denied = await client.call_tool("secret", {"key": "k"})
        assert denied.is_error and text(denied) == "Secrets are off limits (bb rule)"
        forbidden = await client.call_tool("echo", {"text": "forbidden"})
        assert forbidden.is_error and text(forbidden) == "no forbidden words"
        asked = await client.call_tool("asked", {"text": "q"})
        assert asked.is_error and "mcp__bb__asked" in text(asked)
        rewritten = await client.call_tool("shout", {"word": "hey"})
        assert not rewritten.is_error and text(rewritten) == "REWRITTEN!"
        # Still answering after all of the above.
        assert text(await client.call_tool("echo", {"text": "end"})) == "end"
