"""Under ``toolhost serve`` over stdio, stdin is the client's requests: a python tool that reads
stdin (``input()``, ``sys.stdin``, ``os.read(0)``) or starts a child that inherits it
(``subprocess.run(["cat"])``) reads nothing. It read the client's next requests, which were
then never answered, and handed their arguments to the tool."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest

from .stdio_peer import stdio_peer

MODULE = '''
import os, subprocess, sys

def child() -> str:
    return subprocess.run(["head", "-c", "400"], stdout=subprocess.PIPE, timeout=5,
                          check=False).stdout.decode(errors="replace")

def shell_child() -> str:
    return subprocess.run("head -c 400", shell=True, stdout=subprocess.PIPE, timeout=5,
                          check=False).stdout.decode(errors="replace")

def builtin_input() -> str:
    try:
        return input()
    except EOFError:
        return ""

def sys_stdin() -> str:
    return sys.stdin.read(400)

def sys_stdin_buffer() -> str:
    return sys.stdin.buffer.read(400).decode(errors="replace")

def fd_zero() -> str:
    return os.read(0, 400).decode(errors="replace")

def ping(note: str = "") -> str:
    return "pong"
'''
READERS = ["child", "shell_child", "builtin_input", "sys_stdin", "sys_stdin_buffer",
           "fd_zero"]


@pytest.mark.parametrize("reader", READERS)
def test_a_tool_reading_stdin_takes_no_request(tmp_path: Path, reader: str) -> None:
    (tmp_path / "stdin_readers.py").write_text(textwrap.dedent(MODULE))
    config = tmp_path / "readers.yaml"
    config.write_text(textwrap.dedent(f"""\
        toolhost: 1
        permissions: {{default: allow}}
        servers:
          s:
            timeout: 10s
            tools:
              read: {{python: "stdin_readers:{reader}"}}
              ping: {{python: "stdin_readers:ping"}}
        """))
    with stdio_peer(config) as peer:
        peer.request(1, "tools/call", {"name": "read", "arguments": {}})
        time.sleep(0.5)  # the reader is waiting when the next requests arrive
        for n in range(2, 5):
            peer.request(n, "tools/call", {"name": "ping",
                                           "arguments": {"note": f"private {n}"}})
        answer = peer.wait_for(1, timeout=20)["result"]
        assert "private" not in str(answer), answer
        assert "jsonrpc" not in str(answer), answer
        for n in range(2, 5):
            assert peer.wait_for(n, timeout=20)["result"]["content"][0]["text"] == "pong"
