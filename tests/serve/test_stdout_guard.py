"""Under ``toolhost serve`` over stdio nothing but JSON-RPC reaches stdout: a tool's print,
writes to sys.stdout and to fd 1, and a child inheriting fd 1 all land on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

NOISY = '''
import os, subprocess, sys

def noisy(word: str) -> str:
    print("PRINTED", word)
    sys.stdout.write("WRITTEN\\n")
    sys.__stdout__.write("DUNDER\\n")
    sys.__stdout__.flush()
    os.write(1, b"FD1\\n")
    subprocess.run(["echo", "CHILD"], check=True)
    return "quiet " + word
'''

NOISES = ["PRINTED", "WRITTEN", "DUNDER", "FD1", "CHILD"]


@pytest.mark.parametrize("isolation", ["in-process", "process"])
def test_only_protocol_lines_reach_stdout(tmp_path: Path, isolation: str) -> None:
    (tmp_path / "th_noisy.py").write_text(NOISY)
    config = tmp_path / "n.yaml"
    config.write_text("toolhost: 1\nservers:\n  n:\n    tools:\n"
                      f"      noisy: {{python: {{function: 'th_noisy:noisy', "
                      f"isolation: {isolation}}}}}\n"
                      "permissions:\n  default: allow\n")
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
           "params": {"name": "noisy", "arguments": {"word": f"w{i}"}}} for i in range(3)),
    ]
    stdin = "".join(json.dumps(r) + "\n" for r in requests)
    done = subprocess.run([sys.executable, "-m", "toolhost", "serve", str(config)],
                          input=stdin, capture_output=True, text=True, timeout=120,
                          env={**os.environ}, check=False)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]  # every line is JSON
    results = {a["id"]: a["result"]["content"][0]["text"] for a in answers if a.get("id", 0) >= 10}
    assert results == {10: "quiet w0", 11: "quiet w1", 12: "quiet w2"}
    for noise in NOISES:
        assert noise not in done.stdout
        assert done.stderr.count(noise) >= 3, (noise, done.stderr)


LOUD_MODULE = '''
import os, sys
print("IMPORT PRINT")
sys.stdout.write("IMPORT WRITE\\n")
os.write(1, b"IMPORT FD1\\n")

def hello() -> str:
    """hi"""
    return "ok"
'''
LOUD_PLUGIN = '''
import os
print("PLUGIN IMPORT PRINT")

def hi() -> str:
    """hi"""
    return "plugged"

def register(reg):
    print("PLUGIN REGISTER PRINT")
    os.write(1, b"PLUGIN REGISTER FD1\\n")
    reg.add_tool(hi, server="pl")
'''
LOUD = ["IMPORT PRINT", "IMPORT WRITE", "IMPORT FD1", "PLUGIN IMPORT PRINT",
        "PLUGIN REGISTER PRINT", "PLUGIN REGISTER FD1"]


def _loud_project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    from tests.plugins.conftest import write_plugin

    site = tmp_path / "site"
    write_plugin(site, "loud-plugin", "1.0", {"loud_plugin": LOUD_PLUGIN},
                 {"loud": "loud_plugin"})
    (tmp_path / "th_loud.py").write_text(LOUD_MODULE)
    config = tmp_path / "loud.yaml"
    config.write_text("toolhost: 1\nplugins: [loud-plugin]\nservers:\n  p:\n    tools:\n"
                      "      hello: {python: {function: 'th_loud:hello'}}\n"
                      "permissions:\n  default: allow\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(Path.cwd())])}
    return config, env


def test_prints_while_the_config_loads_never_reach_stdout(tmp_path: Path) -> None:
    config, env = _loud_project(tmp_path)
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    done = subprocess.run([sys.executable, "-m", "toolhost", "serve", str(config), "--all"],
                          input="".join(json.dumps(r) + "\n" for r in requests),
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]  # every line is JSON
    assert [a["id"] for a in answers] == [1, 2]
    for noise in LOUD:
        assert noise not in done.stdout and noise in done.stderr, (noise, done.stderr)


@pytest.mark.anyio
async def test_a_real_client_talks_to_a_server_whose_modules_print(tmp_path: Path) -> None:
    from mcp.client.client import Client
    from mcp.client.stdio import StdioServerParameters

    config, env = _loud_project(tmp_path)
    params = StdioServerParameters(command=sys.executable, env=env, args=[
        "-m", "toolhost", "serve", str(config), "--all"])
    async with Client(params, mode="legacy") as client:
        names = sorted(t.name for t in (await client.list_tools()).tools)
        assert names == ["p__hello", "pl__hi"]
        result = await client.call_tool("p__hello", {})
        assert [c.text for c in result.content] == ["ok"]  # type: ignore[union-attr]
