"""When the issuer's key set cannot be fetched, a token cannot be checked: that is the
server's trouble, not the token's, so the answer is 503 with ``Retry-After`` and no
``error="invalid_token"`` (a client would throw its good token away); a bad token is still
401 (a real ``toolhost serve`` over HTTP, a local issuer whose JWKS endpoint is down)."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.serve.conftest import HERE, http_server
from tests.serve.test_auth import AUD, CONFIG, call


@pytest.fixture(scope="module", params=["html", "500"])
def broken_issuer(request: pytest.FixtureRequest) -> Iterator[str]:
    mode = request.param

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            if self.path == "/.well-known/openid-configuration":
                status, body = 200, json.dumps({"issuer": url, "jwks_uri": f"{url}/jwks"})
            elif mode == "html":
                status, body = 200, "<html>maintenance</html>"
            else:
                status, body = 500, "down"
            data = body.encode()
            self.send_response(status)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield url
    server.shutdown()
    server.server_close()


def test_an_unreachable_key_set_is_503_not_invalid_token(broken_issuer: str,
                                                         tmp_path: Path) -> None:
    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa

    config = tmp_path / "db.yaml"
    config.write_text(CONFIG.replace("AUDIT", str(tmp_path / "audit.jsonl")))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(HERE), str(HERE.parent.parent), os.environ.get("PYTHONPATH")) if p)}
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    token = jwt.encode({"iss": broken_issuer, "aud": AUD, "sub": "alice", "exp": 2**31},
                       key, algorithm="RS256", headers={"kid": "k1"})
    with http_server([sys.executable, "-m", "toolhost", "serve", str(config), "--transport",
                      "http", "--port", "0", "--auth-issuer", broken_issuer,
                      "--auth-audience", AUD], tmp_path / "server.log", env=env) as url:
        for _ in range(2):  # the first fetch, then the remembered failure
            status, body, headers = call(url, "mcp__db__echo", token)
            assert status == 503, (status, body)
            lowered = {k.lower(): v for k, v in headers.items()}
            assert "retry-after" in lowered
            assert "invalid_token" not in lowered.get("www-authenticate", "")
            assert body["error"]["message"].startswith("Service unavailable")
        status, _body, headers = call(url, "mcp__db__echo", None)  # no token: still 401
        assert status == 401
    assert "Traceback" not in (tmp_path / "server.log").read_text()
