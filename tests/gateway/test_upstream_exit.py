"""An upstream process that ends on its own is said as it ended: killed by a signal (the OOM
killer's SIGKILL mid-call) or its exit status, with its last stderr lines, in the failed
call's error, a warning, and the error of a start it did not survive. Before, all of them
said only "MCPError: Connection closed"; the next call starts it again, as before."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from toolhost.gateway.client import UpstreamConnection, UpstreamError
from toolhost.gateway.spec import UpstreamSpec

# a raw stdio MCP server: a call with {"die": true} writes a last word and SIGKILLs itself
SERVER = r'''
import json, os, signal, sys, time
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    method, out = msg.get("method"), None
    if method == "initialize":
        out = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
               "serverInfo": {"name": "k", "version": "1"}}
    elif method == "tools/list":
        out = {"tools": [{"name": "work", "inputSchema": {"type": "object"}}]}
    elif method == "tools/call":
        if msg["params"]["arguments"].get("die"):
            print("allocating 64 GiB", file=sys.stderr, flush=True)
            time.sleep(0.2)
            os.kill(os.getpid(), signal.SIGKILL)
        out = {"content": [{"type": "text", "text": "done"}]}
    answer = {"jsonrpc": "2.0", "id": msg["id"]}
    answer.update({"result": out} if out is not None else
                  {"error": {"code": -32601, "message": "Method not found"}})
    print(json.dumps(answer), flush=True)
'''


def test_a_call_the_oom_killer_ends_says_so_and_the_next_starts_it_again(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    script = tmp_path / "killed.py"
    script.write_text(SERVER)
    connection = UpstreamConnection(UpstreamSpec(command=(sys.executable, str(script))), "k")
    try:
        assert [t["name"] for t in connection.list_tools()] == ["work"]
        with caplog.at_level(logging.WARNING, logger="toolhost.gateway"), \
                pytest.raises(UpstreamError) as failed:
            connection.call_tool("work", {"die": True}, 30)
        said = ("upstream server 'k' was killed by SIGKILL (signal 9) (the OOM killer sends "
                "it when memory runs out); the next use starts it again")
        assert str(failed.value) == said
        assert f"{said} (its last words: allocating 64 GiB)" in caplog.text
        assert connection.call_tool("work", {}, 30)["content"][0]["text"] == "done"
    finally:
        connection.close()


def test_a_start_that_exits_says_its_status_and_last_words(tmp_path: Path) -> None:
    script = tmp_path / "dies.py"
    script.write_text("import sys, time\nprint('fatal: no config at ~/.k.toml', file=sys.stderr,"
                      " flush=True)\ntime.sleep(0.2)\nsys.exit(3)\n")
    connection = UpstreamConnection(UpstreamSpec(command=(sys.executable, str(script))), "d")
    try:
        with pytest.raises(UpstreamError) as failed:
            connection.list_tools()
        assert str(failed.value) == ("cannot start upstream server 'd': it exited (status 3) "
                                     "(its last words: fatal: no config at ~/.k.toml)")
    finally:
        connection.close()
