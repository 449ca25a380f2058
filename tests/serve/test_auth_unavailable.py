"""When the issuer's key set cannot be fetched, a token cannot be checked: that is the
server's trouble, not the token's, so the answer is 503 with ``Retry-After`` and no
``error="invalid_token"`` (a client would throw its good token away); a bad token is still
401 (a real ``toolhost serve`` over HTTP, a local issuer whose JWKS endpoint is down)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.serve.conftest import HERE, http_server
from tests.serve.local_issuer import LocalIssuer, local_issuer
from tests.serve.test_auth import AUD, CONFIG, call


@pytest.fixture(scope="module", params=["html", "500"])
def broken_issuer(request: pytest.FixtureRequest) -> Iterator[LocalIssuer]:
    """An issuer whose discovery document is fine but whose key set is not."""
    with local_issuer() as made:
        made.status, made.body = ((200, b"<html>maintenance</html>") if request.param == "html"
                                  else (500, b"down"))
        yield made


def test_an_unreachable_key_set_is_503_not_invalid_token(broken_issuer: LocalIssuer,
                                                         tmp_path: Path) -> None:
    config = tmp_path / "db.yaml"
    config.write_text(CONFIG.replace("AUDIT", str(tmp_path / "audit.jsonl")))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(HERE), str(HERE.parent.parent), os.environ.get("PYTHONPATH")) if p)}
    token = broken_issuer.sign({"iss": broken_issuer.url, "aud": AUD, "sub": "alice",
                                "exp": 2**31})
    with http_server([sys.executable, "-m", "toolhost", "serve", str(config), "--transport",
                      "http", "--port", "0", "--auth-issuer", broken_issuer.url,
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
