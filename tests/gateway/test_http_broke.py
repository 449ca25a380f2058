"""An HTTP upstream that goes away is said as what happened, naming the upstream and where it
is (scheme, host and port only): before, a call met only 'MCPError: Connection closed' (or 'SSE
stream ended without a response'), and a start 'ConnectError: All connection attempts
failed'."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from toolhost.gateway.client import UpstreamConnection, UpstreamError
from toolhost.gateway.http_broke import origin_of
from toolhost.gateway.spec import UpstreamSpec

from .conftest import HOSTILE, free_port, http_upstream_process


def _killable(mode: str) -> AbstractContextManager[tuple[int, subprocess.Popen[bytes]]]:
    """The hostile upstream over HTTP (``mode``), to be killed by the test."""
    return http_upstream_process(HOSTILE, HOSTILE_MODE=mode)


def _text(result: dict[str, object]) -> str:
    content = result["content"]
    assert isinstance(content, list)
    return str(content[0]["text"])


def test_an_http_upstream_killed_between_calls_is_named_with_what_happened(
        caplog: pytest.LogCaptureFixture) -> None:
    with _killable("issues") as (port, server):
        connection = UpstreamConnection(
            UpstreamSpec(url=f"http://127.0.0.1:{port}/mcp?token=s3cret", timeout=10,
                         connect_timeout=20), "web")
        try:
            assert "hi" in _text(connection.call_tool("echo", {"text": "hi"}, None))
            server.kill()
            server.wait(10)
            with pytest.raises(UpstreamError) as failed:
                connection.call_tool("echo", {"text": "again"}, None)
            said = str(failed.value)
            assert said.startswith(f"upstream server 'web' (http://127.0.0.1:{port}) ")
            assert "Connection closed" not in said and "s3cret" not in said
            assert "crashed or restarted" in said or "refused the connection" in said
            time.sleep(1.1)  # the first retry's wait
            with pytest.raises(UpstreamError) as again:
                connection.call_tool("echo", {"text": "again"}, None)
            assert str(again.value) == (
                f"cannot start upstream server 'web': http://127.0.0.1:{port} refused the "
                "connection: nothing listens there (is the server running?)")
        finally:
            connection.close()
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warned == [said]  # once, and not again as 'closed the connection: ...'


def test_an_http_upstream_killed_during_a_call_ends_it_at_once_saying_so() -> None:
    with _killable("sse_forever") as (port, server):
        connection = UpstreamConnection(
            UpstreamSpec(url=f"http://127.0.0.1:{port}/mcp", timeout=30, connect_timeout=20),
            "web")
        try:
            connection.list_tools()
            threading.Timer(1.0, server.kill).start()
            started = time.monotonic()
            with pytest.raises(UpstreamError) as failed:
                connection.call_tool("echo", {"text": "hi"}, None)
            assert time.monotonic() - started < 25  # not its timeout
        finally:
            connection.close()
    said = str(failed.value)
    assert said.startswith(f"upstream server 'web' (http://127.0.0.1:{port}) "), said
    assert "crashed or restarted" in said and "SSE stream" not in said


def test_a_start_where_nothing_listens_says_so_through_the_cli(tmp_path: Path) -> None:
    port = free_port()  # (closed again: nothing listens there)
    config = tmp_path / "web.yaml"
    config.write_text(f"""\
toolhost: 1
servers:
  web:
    mcp: {{url: "http://user:pw@127.0.0.1:{port}/mcp?key=abc", connect_timeout: 10s}}
permissions:
  default: allow
""")
    done = subprocess.run([sys.executable, "-m", "toolhost", "tools", str(config)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert (f"cannot start upstream server 'web': http://127.0.0.1:{port} refused the "
            "connection: nothing listens there (is the server running?)") in done.stderr
    assert "ConnectError" not in done.stderr and "Traceback" not in done.stderr
    assert "pw" not in done.stderr.replace("upstream", "") and "key=abc" not in done.stderr


@pytest.mark.parametrize(("url", "origin"), [
    ("https://user:secret@mcp.example:8443/a/b?token=x#f", "https://mcp.example:8443"),
    ("http://[::1]:9/mcp", "http://[::1]:9"),
    ("https://mcp.example/mcp", "https://mcp.example"),
    ("http://[::1/mcp", "its URL"),
])
def test_only_the_origin_of_an_upstream_url_is_said(url: str, origin: str) -> None:
    assert origin_of(url) == origin
