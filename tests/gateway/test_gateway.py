"""An imported MCP server through `toolhost serve` and the official client: exactly the
reshaped tools, fixed arguments injected, rules on arguments enforced, a crashing upstream
survived, nothing left running."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from .conftest import at_once, gateway_config, http_upstream, upstream_processes

pytestmark = pytest.mark.anyio


def calls(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


async def test_serve_offers_the_reshaped_tools_and_governs_them(tmp_path: Path) -> None:
    log = tmp_path / "upstream.jsonl"
    config = gateway_config(tmp_path)
    env = {**os.environ, "UPSTREAM_LOG": str(log)}
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "toolhost", "serve", str(config)], env=env)
    async with Client(params, mode="legacy") as client:
        listed = await client.list_tools(cache_mode="bypass")
        by_name = {t.name: t for t in listed.tools}
        assert sorted(by_name) == ["echo", "search"]  # delete_repo excluded, search renamed
        search = by_name["search"]
        assert search.description == "Search our app's issues"
        assert "repo" not in search.input_schema["properties"]  # fixed: the model never sees it
        assert search.input_schema["properties"]["limit"]["maximum"] == 10
        assert search.input_schema["required"] == ["query"]
        assert search.annotations is not None and search.annotations.read_only_hint

        found = await client.call_tool("search", {"query": "crash"})
        assert found.content[0].text == "5 issues in acme/app matching 'crash'"
        assert calls(log)[-1] == {"tool": "search_issues",
                                  "arguments": {"repo": "acme/app", "query": "crash",
                                                "limit": 5}}
        sneaky = await client.call_tool("search", {"query": "x", "repo": "acme/secrets"})
        assert sneaky.is_error  # an argument the reshaped schema does not have is refused
        denied = await client.call_tool("search", {"query": "admin PASSWORD"})
        assert denied.is_error and denied.content[0].text == "No password hunting."
        too_many = await client.call_tool("search", {"query": "x", "limit": 50})
        assert too_many.is_error and "50 is greater than the maximum of 10" in \
            too_many.content[0].text
        assert len(calls(log)) == 1  # neither refused call reached the upstream
        assert (await client.call_tool("echo", {"text": "hi"})).content[0].text == "hi"
    for _ in range(100):
        if not upstream_processes():
            break
        await anyio.sleep(0.1)
    assert upstream_processes() == []


async def test_a_crashing_upstream_never_takes_the_host_down(tmp_path: Path) -> None:
    config = gateway_config(tmp_path)
    env = {**os.environ, "UPSTREAM_CRASH_AFTER": "2"}
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "toolhost", "serve", str(config)], env=env)
    async with Client(params, mode="legacy") as client:
        assert (await client.call_tool("echo", {"text": "one"})).content[0].text == "one"
        crashed = await client.call_tool("echo", {"text": "two"})  # the upstream exits
        assert crashed.is_error and "upstream server 'gh'" in crashed.content[0].text
        answer = None
        for _ in range(40):  # reconnects (after its backoff) to a fresh upstream process
            answer = await client.call_tool("echo", {"text": "three"})
            if not answer.is_error:
                break
            await anyio.sleep(0.5)
        assert answer is not None and answer.content[0].text == "three"
    for _ in range(100):
        if not upstream_processes():
            break
        await anyio.sleep(0.1)
    assert upstream_processes() == []


def test_http_upstream(tmp_path: Path) -> None:
    with http_upstream() as port:
        config = gateway_config(tmp_path, mcp=f"{{url: 'http://127.0.0.1:{port}/mcp'}}")
        # side by side: two sessions of one HTTP upstream
        done, checked = at_once(["call", str(config), "gh.search", "query=flaky"],
                                ["validate", "--connect", str(config)])
        assert done.stdout.strip() == "5 issues in acme/app matching 'flaky'", done.stderr
        # validate counts the tools of the started upstream (it said 0 before)
        assert checked.stdout.strip().endswith(": ok (1 server, 2 tools)"), checked.stdout


def test_validate_is_offline_unless_asked_to_connect(tmp_path: Path) -> None:
    config = gateway_config(tmp_path, mcp="{command: [/nonexistent/upstream]}")
    offline, online = at_once(["validate", str(config)], ["validate", "--connect", str(config)])
    assert offline.returncode == 0, offline.stderr
    assert offline.stdout.strip().endswith(
        "and the tools of 1 imported server: --connect starts and counts them)"), offline.stdout
    assert online.returncode == 1
    assert "gateway.yaml:5:" in online.stderr and "servers.gh.mcp" in online.stderr
    assert "cannot start upstream server 'gh'" in online.stderr
    assert "Traceback" not in online.stderr


def test_reshaping_a_tool_the_upstream_lacks_is_located(tmp_path: Path) -> None:
    config = gateway_config(tmp_path, extra="")
    text = config.read_text().replace("search_issues:", "search_isues:")
    config.write_text(text)
    done = subprocess.run([sys.executable, "-m", "toolhost", "validate", "--connect",
                           str(config)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "servers.gh.tools.search_isues: upstream server 'gh' has no tool 'search_isues'" \
        in done.stderr and "did you mean 'search_issues'?" in done.stderr
