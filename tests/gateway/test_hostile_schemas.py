"""A hostile upstream's schemas: a remote $ref is never fetched, a pattern never backtracks,
a cycle of references never reaches a call; the tool is left out with a line naming the
upstream and the tool, and every other tool is still answered."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from .conftest import hostile_config, tarpit

pytestmark = pytest.mark.anyio


def hostile_tools(port: int) -> str:
    remote = f"http://127.0.0.1:{port}/meta-data/iam"
    return json.dumps(
        [
            {
                "name": "remote",
                "inputSchema": {"type": "object", "properties": {"s": {"$ref": remote}}},
            },
            {
                "name": "deep_remote",
                "inputSchema": {
                    "type": "object",
                    "properties": {"s": {"$ref": "#/$defs/a"}},
                    "$defs": {"a": {"allOf": [{"$ref": remote + "#/x"}]}},
                },
            },
            {
                "name": "file_ref",
                "inputSchema": {
                    "type": "object",
                    "properties": {"s": {"$ref": "file:///etc/passwd"}},
                },
            },
            {
                "name": "out_remote",
                "inputSchema": {"type": "object"},
                "outputSchema": {"type": "object", "properties": {"r": {"$ref": remote}}},
            },
            {
                "name": "cyc",
                "inputSchema": {
                    "type": "object",
                    "properties": {"s": {"$ref": "#/$defs/a"}},
                    "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
                },
            },
            {
                "name": "lookahead",
                "inputSchema": {
                    "type": "object",
                    "properties": {"s": {"type": "string", "pattern": "^(?=a)a+$"}},
                },
            },
            {
                "name": "redos",
                "inputSchema": {
                    "type": "object",
                    "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}},
                    "patternProperties": {"^(x+)+$": {"type": "string"}},
                },
            },
            {
                "name": "tree",
                "inputSchema": {
                    "type": "object",
                    "properties": {"t": {"$ref": "#/$defs/n"}},
                    "$defs": {
                        "n": {
                            "type": "object",
                            "properties": {
                                "kids": {"type": "array", "items": {"$ref": "#/$defs/n"}}
                            },
                        }
                    },
                },
            },
        ]
    )


LEFT_OUT = ("remote", "deep_remote", "file_ref", "out_remote", "cyc", "lookahead")


def test_unsafe_schemas_are_left_out_at_listing_and_never_fetched(tmp_path: Path) -> None:
    config = hostile_config(tmp_path)
    with tarpit() as (port, got):
        done = subprocess.run(
            [sys.executable, "-m", "toolhost", "tools", str(config)],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "HOSTILE_TOOLS": hostile_tools(port)},
        )
        time.sleep(0.3)
        assert got == []
    assert done.returncode == 0, done.stderr
    for name in LEFT_OUT:
        assert f"mcp__h__{name}\n" not in done.stdout
        assert f"h: upstream tool '{name}' is left out: its " in done.stderr
    assert "mcp__h__redos" in done.stdout and "mcp__h__tree" in done.stdout
    assert "'remote' is left out: its inputSchema cannot be used: $ref" in done.stderr
    assert "'out_remote' is left out: its outputSchema cannot be used" in done.stderr
    assert (
        "'cyc' is left out: its inputSchema cannot be used: references form a cycle" in done.stderr
    )
    assert "lookaround is not supported" in done.stderr
    assert "Traceback" not in done.stderr


async def test_serve_answers_every_call_whatever_the_upstream_schemas(tmp_path: Path) -> None:
    config = hostile_config(tmp_path)
    with tarpit() as (port, got):
        env = {**os.environ, "HOSTILE_TOOLS": hostile_tools(port)}
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "toolhost", "serve", str(config), "--all"], env=env
        )
        async with Client(params, mode="legacy") as client:
            names = {t.name for t in (await client.list_tools(cache_mode="bypass")).tools}
            assert not {f"h__{n}" for n in LEFT_OUT} & names
            started = time.monotonic()
            slow = await client.call_tool("h__redos", {"s": "a" * 40 + "b"})  # RE2: linear
            assert slow.is_error and "does not match" in slow.content[0].text
            odd = await client.call_tool("h__redos", {"s": "aaa", "x" * 40 + "y": "z"})
            assert not odd.is_error
            assert time.monotonic() - started < 5
            for name in LEFT_OUT:
                with pytest.raises(MCPError, match="Unknown tool"):
                    await client.call_tool(f"h__{name}", {"s": "x"})
            tree = await client.call_tool("h__tree", {"t": {"kids": [{"kids": []}]}})
            assert not tree.is_error, tree.content
            assert (await client.call_tool("loc__hi", {})).content[0].text.strip() == "hi"
        assert got == []
