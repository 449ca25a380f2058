"""A legacy session id past its expiry is refused (404) on every replica: the one that issued
it, one that has already taken it in, and a fresh one (real processes sharing
TOOLHOST_SESSION_SECRET, ids that expire after 3 s)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from tests.serve.conftest import HERE, http_servers

CONFIG = """\
toolhost: 1
servers:
  calc:
    tools:
      echo:
        python: "blackbox_tools:echo"
permissions: {default: allow}
"""
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream",
           "mcp-protocol-version": "2025-11-25"}
TTL = 3.0


def _post(client: httpx.Client, url: str, message: dict[str, Any],
          session: str | None = None) -> httpx.Response:
    headers = {**HEADERS, **({"mcp-session-id": session} if session else {})}
    return client.post(url, headers=headers, json=message)


def _ping(client: httpx.Client, url: str, session: str) -> int:
    return _post(client, url, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, session).status_code


def test_an_expired_session_is_refused_on_every_replica(tmp_path: Path) -> None:
    config = tmp_path / "calc.yaml"
    config.write_text(CONFIG)
    env = {**os.environ, "TOOLHOST_SESSION_SECRET": "shared-s3cret", "SHORT_TTL": str(TTL),
           "PYTHONPATH": os.pathsep.join(p for p in (str(HERE), str(HERE.parent.parent),
                                                     os.environ.get("PYTHONPATH")) if p)}
    argv = [sys.executable, str(HERE / "short_ttl_main.py"), "serve", str(config),
            "--transport", "http", "--port", "0"]
    with http_servers([(argv, tmp_path / f"{n}.log", env) for n in "abc"]) as urls, \
            httpx.Client(timeout=30) as client:
        a, b, c = urls
        answer = _post(client, a, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}})
        session = answer.headers["mcp-session-id"]
        # the id expires at int(its issue + TTL) at the latest, and it was issued by now
        issued = time.time()
        assert _ping(client, a, session) == 200 and _ping(client, b, session) == 200
        while time.time() < issued + TTL + 0.2:  # used all along on a: still expires
            assert _ping(client, a, session) in (200, 404)
            time.sleep(0.2)
        assert [_ping(client, url, session) for url in (a, b, c)] == [404, 404, 404]
        # a new session works again everywhere
        fresh = _post(client, b, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}).headers["mcp-session-id"]
        assert [_ping(client, url, fresh) for url in (a, b, c)] == [200, 200, 200]
