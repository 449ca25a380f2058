"""An error an upstream answers with the code -32000 (JSON-RPC's first code for a server's
own errors, which many servers use for every failure) is an error result of that call, the
upstream kept running; the mcp client also says a closed connection with -32000, and that
alone reads as one (before, any -32000 did: the upstream was stopped, started again for the
next call, and the call said 'failed during the call: MCPError: ...')."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from toolhost.gateway.client import UpstreamConnection
from toolhost.gateway.spec import UpstreamSpec

from .conftest import HOSTILE


def _started(log: Path) -> int:
    return sum(json.loads(line)["method"] == "initialize" for line in log.read_text().splitlines())


def test_a_server_error_answered_keeps_the_upstream(tmp_path: Path) -> None:
    log = tmp_path / "log"
    spec = UpstreamSpec(command=(sys.executable, str(HOSTILE)), connect_timeout=20.0,
                        env={"HOSTILE_MODE": "call_error", "HOSTILE_LOG": str(log)})
    connection = UpstreamConnection(spec, "h")
    try:
        assert "called echo" in connection.call_tool("echo", {"text": "a"}, 20)["content"][0][
            "text"]
        failed = connection.call_tool("echo", {"text": "fail"}, 20)
        after = connection.call_tool("echo", {"text": "b"}, 20)
    finally:
        connection.close()
    assert failed["isError"] is True
    assert failed["content"][0]["text"] == "upstream error: it failed"
    assert after.get("isError") is not True
    assert _started(log) == 1  # the same process answered all three
