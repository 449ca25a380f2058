"""``toolhost mcp-config``: the printed entry starts a working server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from tests.serve.conftest import server_env
from tests.serve.test_serve_command import DEMO, text_of


def mcp_config(*args: str, cwd: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolhost", "mcp-config", *args],
                          capture_output=True, text=True, env=server_env(), cwd=cwd, timeout=60)


def test_entry_names_absolute_config_and_pins_the_server(tmp_path: Path) -> None:
    config = tmp_path / "team.yaml"
    config.write_text(Path(DEMO).read_text().replace("  text:\n", "  text_off:\n"))
    single = tmp_path / "one.yaml"
    single.write_text("toolhost: 1\nservers:\n  calc:\n    tools:\n"
                      "      add: {python: \"toolhost.demo:add\"}\n")
    done = mcp_config("one.yaml", cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr
    entry = json.loads(done.stdout)["mcpServers"]["calc"]
    assert entry["type"] == "stdio"
    assert entry["args"][-4:] == ["serve", str(single), "--server", "calc"]
    named = json.loads(mcp_config(str(config), "--all", "--name", "team", "--watch").stdout)
    assert list(named["mcpServers"]) == ["team"]
    assert named["mcpServers"]["team"]["args"][-4:] == ["serve", str(config), "--all", "--watch"]


def test_ambiguous_config_is_an_error() -> None:
    done = mcp_config(DEMO)
    assert done.returncode == 1
    assert "several servers (calc, text)" in done.stderr
    assert done.stdout == ""


@pytest.mark.anyio
async def test_printed_entry_starts_the_server() -> None:
    entry = json.loads(mcp_config(DEMO, "--server", "calc", "--entry-only").stdout)
    params = StdioServerParameters(command=entry["command"], args=entry["args"],
                                   env=server_env())
    async with Client(params, mode="auto") as client:
        assert text_of(await client.call_tool("add", {"a": 40, "b": 2})) == "42"
