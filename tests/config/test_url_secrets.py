"""A credential in a URL's query, under a credential's name (``?apikey=``, ``&access_token=``,
``X-Amz-Signature=``), is a secret like a URL's userinfo, whatever the variable it came from
is called (``toolhost.config.url_secrets``)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from toolhost.config.loader import load_config
from toolhost.config.url_secrets import url_credentials
from toolhost.redaction import active

KEY = "k3y-0f-the-service-77"


@pytest.mark.parametrize("url", [
    f"https://mcp.example.com/mcp?apikey={KEY}",
    f"https://api.example.com/v1/x?format=json&api_key={KEY}#top",
    f"https://h/x?access_token={KEY}",
    f"https://bucket.s3.amazonaws.com/o?X-Amz-Signature={KEY}&X-Amz-Expires=60",
    f"postgres://db/x?sslmode=require;password={KEY}",
    f"https://h/x?key={KEY.replace('-', '%2D')}",
])
def test_a_query_value_under_a_credentials_name_is_a_secret(url: str) -> None:
    assert KEY in url_credentials({"servers": {"s": {"url": url}}}, 4)


@pytest.mark.parametrize("url", [
    "https://h/search?q=keyboards&page=2",  # names that are not a credential's
    "https://h/x?token={{ token }}",  # a template: a call's argument
    "https://h/x?key=abc",  # too short to hide
])
def test_other_query_values_are_not(url: str) -> None:
    assert url_credentials([url], 4) == set()


class _Echo(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # an upstream whose error names the request it refused
        body = f"403 forbidden: {self.path}".encode()
        self.send_response(403)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def echo_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_an_upstreams_error_echoing_the_query_hides_the_key(
        tmp_path: Path, echo_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # SVC_KEY is no secret by its name, nor under headers/env/auth: only the query's name
    # (apikey) says what it is
    config = tmp_path / "t.yaml"
    config.write_text("toolhost: 1\npermissions: {default: allow}\nservers:\n  api:\n"
                      "    tools:\n      get:\n"
                      f"        http: {{method: GET, url: '{echo_url}/x?apikey=${{SVC_KEY}}'}}\n")
    env = {**os.environ, "SVC_KEY": KEY}
    out = subprocess.run([sys.executable, "-m", "toolhost", "call", "--no-layers", str(config),
                          "api.get"], capture_output=True, text=True, timeout=60, env=env)
    assert "403" in out.stdout + out.stderr and "apikey=***" in out.stdout + out.stderr
    assert KEY not in out.stdout + out.stderr
    monkeypatch.setenv("SVC_KEY", KEY)
    load_config(config, layers=False)
    assert active().redact(f"GET /x?apikey={KEY}") == "GET /x?apikey=***"
