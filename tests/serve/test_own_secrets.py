"""The server's own credentials (``--token-env``'s token, ``TOOLHOST_SESSION_SECRET``) are
secrets to the scrubber from the moment they are read: a tool that returns, prints, logs or
raises them shows ``***`` (a real ``toolhost serve`` over HTTP)."""

from __future__ import annotations

import json
import os
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.modern import modern_meta
from tests.serve.conftest import HERE, http_server

BEARER = "static-bearer-tok-998877"
SESSION = "sess-secret-556677"
CONFIG = """\
toolhost: 1
servers:
  db:
    env: {API_TOKEN: "${API_TOKEN}"}
    tools:
      envdump: {python: "own_secret_tools:envdump"}
permissions:
  default: allow
"""


def _call(url: str, arguments: dict[str, str]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "envdump", "arguments": arguments,
        "_meta": modern_meta()}}
    headers = {"content-type": "application/json", "accept": "application/json",
               "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
               "mcp-name": "envdump", "authorization": f"Bearer {BEARER}"}
    request = urllib.request.Request(url, json.dumps(body).encode(), headers)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


@pytest.mark.parametrize("how", ["return", "print", "stderr", "log", "raise"])
def test_the_servers_own_credentials_never_leave(tmp_path: Path, how: str) -> None:
    config = tmp_path / "own.yaml"
    config.write_text(CONFIG)
    env = {**os.environ, "MCP_TOKEN": BEARER, "TOOLHOST_SESSION_SECRET": SESSION,
           "API_TOKEN": "cfg-api-token-112233",
           "PYTHONPATH": os.pathsep.join(p for p in (str(HERE), str(HERE.parent.parent),
                                                     os.environ.get("PYTHONPATH")) if p)}
    log = tmp_path / "server.log"
    with http_server([sys.executable, "-m", "toolhost", "serve", str(config), "--transport",
                      "http", "--port", "0", "--token-env", "MCP_TOKEN"], log, env=env) as url:
        answers = [_call(url, {"name": name, "how": how})
                   for name in ("MCP_TOKEN", "TOOLHOST_SESSION_SECRET", "API_TOKEN")]
    shown = json.dumps(answers) + log.read_text(errors="replace")
    for secret in (BEARER, SESSION, "cfg-api-token-112233"):
        assert secret not in shown, [line for line in shown.splitlines() if secret in line]
    assert "***" in shown


@pytest.mark.parametrize(("variable", "where"), [
    ("BIG_BEARER", "--token-env BIG_BEARER"),
    ("TOOLHOST_SESSION_SECRET", "TOOLHOST_SESSION_SECRET"),
])
def test_an_own_secret_longer_than_the_bound_is_refused(tmp_path: Path, variable: str,
                                                        where: str) -> None:
    # hidden in every form from the moment it is read: a cost linear in its length
    from tests.inproc import run_cli
    from toolhost.redaction import MAX_SECRET

    config = tmp_path / "missing.yaml"  # (refused before the config is read: never served)
    env = {"BIG_BEARER": BEARER, variable: "s" * (MAX_SECRET + 1)}
    out = run_cli(["serve", "--transport", "http", "--port", "0", "--token-env", "BIG_BEARER",
                   str(config)], env=env)
    assert out.returncode != 0, out
    assert f"{where}: a secret of {MAX_SECRET + 1:,} characters" in out.stderr, out.stderr
    assert "sssss" not in out.stdout + out.stderr
