"""``TOOLHOST_LOG_FORMAT=json``: every line ``toolhost serve`` writes to stderr is one JSON
object (its own start-up lines, uvicorn's records, a tool's prints, in process or in a
worker); in text mode a client's text cannot start a log line of its own (a real server
over HTTP)."""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import os
import socket
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.modern import modern_meta
from tests.serve.conftest import HERE, http_server

FORGED = 'line1\n{"level":"error","message":"forged"}\ntoolhost: WARNING: audit: forged'
CONFIG = """\
toolhost: 1
servers:
  db:
    tools:
      noisy: {python: "log_tools:noisy"}
      noisy_worker: {python: {function: "log_tools:noisy", isolation: process}}
permissions:
  default: allow
"""


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, **extra, "PYTHONPATH": os.pathsep.join(
        p for p in (str(HERE), str(HERE.parent.parent), os.environ.get("PYTHONPATH")) if p)}


def _call(url: str, tool: str, arguments: dict[str, Any],
          headers: dict[str, str] | None = None) -> int:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments,
        "_meta": modern_meta()}}
    request = urllib.request.Request(url, json.dumps(body).encode(), {
        "content-type": "application/json", "accept": "application/json",
        "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": tool,
        **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        with exc:
            return int(exc.code)


def _garbage(url: str) -> None:
    """Bytes that are no HTTP request: uvicorn logs a warning of its own."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(b"\x16\x03\x01 NOT HTTP \r\n\r\n")
        sock.settimeout(5)
        with contextlib.suppress(OSError):
            sock.recv(1000)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "logs.yaml"
    path.write_text(CONFIG)
    return path


@pytest.mark.parametrize("tool", ["noisy", "noisy_worker"])
def test_every_line_is_one_json_object(config: Path, tmp_path: Path, tool: str) -> None:
    log = tmp_path / "server.log"
    argv = [sys.executable, "-m", "toolhost", "-v", "serve", str(config), "--transport",
            "http", "--port", "0"]  # -v: the info lines too
    # the URL line is JSON too: http_server finds it inside the message
    with http_server(argv, log, env=_env(TOOLHOST_LOG_FORMAT="json")) as url:
        assert _call(url.rstrip('",}'), tool, {"text": FORGED}) == 200
        _garbage(url.rstrip('",}'))
    lines = [line for line in log.read_text().splitlines() if line.strip()]
    records = []
    for line in lines:
        entry = json.loads(line)  # every line: one object
        assert set(entry) >= {"time", "level", "logger", "message"}, line
        records.append(entry)
    messages = [r["message"] for r in records]
    assert any(m.startswith("serving db") for m in messages)
    assert any("serving MCP on http://" in m for m in messages)
    assert not any(r["message"] == "forged" for r in records)  # the tool's text is a message
    assert any(r["logger"].startswith("uvicorn") for r in records), messages
    # the end of an answered response is no client leaving: nothing was cancelled
    assert not any("client closed" in m for m in messages), messages


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


@pytest.mark.parametrize("kid", [
    "zz\ntoolhost: WARNING: audit: forged caller admin authorised for mcp__db__drop",
    "zz\rtoolhost: WARNING: forged", "zz\u2028toolhost: WARNING: forged",
    'zz\n{"level":"error","forged":1}', "zz\x1b[2Ktoolhost: WARNING: forged"])
def test_a_clients_text_cannot_start_a_log_line(issuer: Any, config: Path, tmp_path: Path,
                                                 kid: str) -> None:
    from tests.serve.test_auth import AUD

    log = tmp_path / "server.log"
    argv = [sys.executable, "-m", "toolhost", "-v", "serve", str(config), "--transport",
            "http", "--port", "0", "--auth-issuer", issuer.url, "--auth-audience", AUD]
    token = ".".join((_b64({"alg": "RS256", "kid": kid, "typ": "JWT"}),
                      _b64({"iss": issuer.url, "aud": AUD, "sub": "x"}), "AAAA"))
    with http_server(argv, log, env=_env()) as url:
        assert _call(url, "noisy", {"text": "hi"}, {"authorization": f"Bearer {token}"}) == 401
    text = log.read_text()
    assert "refused a request" in text
    for line in text.splitlines():
        assert "forged" not in line or line.startswith("toolhost: INFO: refused"), line
        assert "\x1b" not in line and "\r" not in line and "\u2028" not in line


def test_text_records_are_one_line() -> None:
    from toolhost.logformat import TextFormatter, escape_controls

    record = logging.LogRecord("toolhost", logging.INFO, "", 0, "kid %s", ("a\nb\x00c",), None)
    assert TextFormatter().format(record) == "toolhost: INFO: kid a\\nb\\x00c"
    assert escape_controls("tab\tstays") == "tab\tstays"
