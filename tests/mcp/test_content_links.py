"""A client that negotiated a revision before 2025-06-18 (no ``resource_link`` content type)
gets each link of a tool's or a prompt's answer as a text block naming it: an SDK of those
revisions fails to validate an answer holding one. Newer clients get the link."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolhost.mcp import McpServer

from .mcp_testtools import ask, content_server

MODULE = '''\
from toolhost.content import ResourceLink

def link() -> list:
    return [ResourceLink(uri="notes://a", name="a", description="the first"),
            "and text", ResourceLink(uri="notes://b")]

def linked_prompt() -> list:
    return [{"role": "user", "content": {"type": "resource_link", "uri": "notes://a",
                                         "name": "a"}}]
'''
CONFIG = """\
toolhost: 1
permissions: {default: allow}
servers:
  kb:
    tools:
      link: {python: "contentlinks:link"}
    prompts:
      linked: {python: "contentlinks:linked_prompt"}
"""
AS_TEXT = [{"type": "text", "text": "a: notes://a (the first)"},
           {"type": "text", "text": "and text"}, {"type": "text", "text": "notes://b"}]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    return content_server(tmp_path_factory.mktemp("contentlinks"), CONFIG,
                          {"contentlinks": MODULE})


@pytest.mark.parametrize(("version", "linked"), [
    ("2024-11-05", False), ("2025-03-26", False), ("2025-06-18", True), ("2025-11-25", True)])
def test_links_reach_only_clients_whose_revision_has_them(server: McpServer, version: str,
                                                          linked: bool) -> None:
    peer = object()
    ask(server, "initialize", {"protocolVersion": version, "capabilities": {},
                               "clientInfo": {"name": "t", "version": "1"}}, peer=peer)
    content = ask(server, "tools/call", {"name": "link", "arguments": {}},
                  peer=peer)["result"]["content"]
    message = ask(server, "prompts/get", {"name": "linked"}, peer=peer)["result"]["messages"][0]
    if linked:
        assert [b["type"] for b in content] == ["resource_link", "text", "resource_link"]
        assert message["content"]["type"] == "resource_link"
    else:
        assert content == AS_TEXT
        assert message["content"] == {"type": "text", "text": "a: notes://a"}
    # another peer that negotiated the newest revision is not affected
    other = object()
    ask(server, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "t", "version": "1"}}, peer=other)
    assert ask(server, "tools/call", {"name": "link", "arguments": {}},
               peer=other)["result"]["content"][0]["type"] == "resource_link"
    server.forget_peer(peer)
    server.forget_peer(other)


def test_a_2025_03_26_client_over_stdio_reads_the_answer(tmp_path: Path) -> None:
    (tmp_path / "contentlinks.py").write_text(MODULE)
    (tmp_path / "kb.yaml").write_text(CONFIG)
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                         "clientInfo": {"name": "old", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "link", "arguments": {}}}]
    done = subprocess.run(
        [sys.executable, "-m", "toolhost", "serve", str(tmp_path / "kb.yaml")],
        input="".join(json.dumps(line) + "\n" for line in lines), capture_output=True,
        text=True, timeout=60, cwd=tmp_path, env={"PYTHONPATH": str(tmp_path),
                                                   "PATH": "/usr/bin:/bin"}, check=False)
    answers: dict[Any, Any] = {}
    for line in done.stdout.splitlines():
        message = json.loads(line)
        answers[message.get("id")] = message
    assert answers[1]["result"]["protocolVersion"] == "2025-03-26", done.stderr
    assert answers[2]["result"]["content"] == AS_TEXT, done.stderr
