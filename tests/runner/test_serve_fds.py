"""``toolhost serve`` and ``toolhost call``: what an in-process python tool writes to fds 1
and 2 below Python (``os.write``) reaches stderr with its secrets hidden and nothing a
terminal acts on, at every exit: the end of input, and SIGTERM (the process then ends by the
signal it re-raises, where no ``finally`` runs)."""

from __future__ import annotations

import json
import signal
import subprocess
import urllib.request
from pathlib import Path

import pytest

from tests.runner.cli_harness import TOOLHOST

SECRET = "sekrit-token-12345"

LEAKS = """\
import os
def t() -> str:
    token = os.environ["TOK"]
    os.write(1, ("raw1:" + token + "\\x1b]52;c;aGk=\\x07\\n").encode())
    os.write(2, ("raw2:" + token + "\\n").encode())
    os.write(1, ("tail:" + token).encode())  # no newline: still shown at the end
    return "ok"
"""

CONFIG = """\
toolhost: 1
servers:
  s:
    env: {TOK: "${TOK}"}
    tools:
      t:
        python: leak:t
permissions:
  default: allow
"""


def _line(message: object) -> bytes:
    return json.dumps(message).encode() + b"\n"


@pytest.mark.parametrize("end", ["end of input", "SIGTERM"])
def test_a_tool_s_raw_writes_show_no_secret(tmp_path: Path, end: str) -> None:
    (tmp_path / "leak.py").write_text(LEAKS)
    (tmp_path / "c.yaml").write_text(CONFIG)
    with subprocess.Popen([TOOLHOST, "serve", "c.yaml"], cwd=tmp_path,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE,
                          env={"PATH": "/usr/bin:/bin", "TOK": SECRET}) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(
            _line({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}})
            + _line({"jsonrpc": "2.0", "method": "notifications/initialized"})
            + _line({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "t", "arguments": {}}}))
        process.stdin.flush()
        answers = [json.loads(process.stdout.readline()) for _ in range(2)]
        assert answers[1]["result"]["content"] == [{"type": "text", "text": "ok"}]
        if end == "SIGTERM":
            process.send_signal(signal.SIGTERM)
        try:  # (communicate closes stdin: the end of input)
            _, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            _, err = process.communicate()
    text = err.decode(errors="replace")
    assert process.returncode == (-signal.SIGTERM if end == "SIGTERM" else 0), text
    assert SECRET not in text and "\x1b" not in text and "\x07" not in text, text
    for shown in ("raw1:***", "raw2:***", "tail:***"):
        assert shown in text, text


def test_toolhost_call_shows_no_secret_a_tool_wrote_raw(tmp_path: Path) -> None:
    # the same tool under ``toolhost call``: its stdout is the result alone, its stderr
    # shows the raw writes with the secret hidden
    (tmp_path / "leak.py").write_text(LEAKS)
    (tmp_path / "c.yaml").write_text(CONFIG)
    done = subprocess.run([TOOLHOST, "call", "c.yaml", "s.t"], cwd=tmp_path,
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "TOK": SECRET})
    err = done.stderr.decode(errors="replace")
    assert done.returncode == 0 and done.stdout == b"ok\n", (done.stdout, err)
    assert SECRET not in err and "\x1b" not in err and "\x07" not in err, err
    for shown in ("raw1:***", "raw2:***", "tail:***"):
        assert shown in err, err


def test_over_http_what_is_left_is_shown_at_sigterm(tmp_path: Path) -> None:
    # uvicorn re-raises the SIGTERM it took once the server stopped: the process ends by
    # it, and what the pipe still held (a last line without its newline) was lost
    (tmp_path / "leak.py").write_text(LEAKS)
    (tmp_path / "c.yaml").write_text(CONFIG)
    with subprocess.Popen([TOOLHOST, "serve", "c.yaml", "--transport", "http", "--port", "0"],
                          cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE,
                          env={"PATH": "/usr/bin:/bin", "TOK": SECRET}) as process:
        assert process.stderr is not None  # (fd 1 is the real stdout over HTTP)
        seen = b""
        while b"serving MCP on " not in seen:
            line = process.stderr.readline()
            assert line, seen
            seen += line
        url = seen.split(b"serving MCP on ")[1].split()[0].decode()
        request = urllib.request.Request(url, data=json.dumps({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "t", "arguments": {}}}).encode(), headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2025-06-18"})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert b'"text":"ok"' in response.read().replace(b" ", b"")
        process.send_signal(signal.SIGTERM)
        try:
            out, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
    text = (seen + err + out).decode(errors="replace")
    assert process.returncode == -signal.SIGTERM, text
    assert SECRET not in text, text
    for shown in ("raw1:***", "raw2:***", "tail:***"):
        assert shown in text, text
