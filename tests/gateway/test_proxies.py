"""Requests to an upstream go where the config says: a Streamable HTTP upstream and an
OpenAPI ``url:`` document ignore the proxy variables (as the http backend does), and the
document is never taken from another host a redirect names."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from .conftest import HOSTILE, http_upstream, tarpit
from .openapi_service import PetService

PROXY_VARIABLES = ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY",
                   "all_proxy"]


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k.upper() not in ("NO_PROXY",)}
    return subprocess.run([sys.executable, "-m", "toolhost", *args], capture_output=True,
                          text=True, timeout=120, env={**clean, **env})


def test_a_streamable_http_upstream_ignores_the_proxy_variables(tmp_path: Path) -> None:
    """Every variable at once, each naming the tarpit: whichever one the HTTP client would
    read (it reads them in an order of its own), the request would go there."""
    with http_upstream(HOSTILE) as port, tarpit() as (proxy, got):
        config = tmp_path / "p.yaml"
        config.write_text(f"""\
toolhost: 1
servers:
  r:
    mcp:
      url: "http://127.0.0.1:{port}/mcp"
      headers: {{X-Api-Key: "MCPSECRET777abc"}}
      connect_timeout: 20s
permissions:
  default: allow
""")
        done = run("tools", str(config), **{variable: f"http://127.0.0.1:{proxy}"
                                             for variable in PROXY_VARIABLES})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "mcp__r__echo" in done.stdout
    assert got == []


class Redirecting:
    """A local server answering every GET with a redirect to ``target`` (a URL; ``SELF`` is
    its own host:port), but ``/doc.yaml`` with ``body``."""

    def __init__(self, target: str, body: str = "") -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path == "/doc.yaml":
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body.encode())))
                    self.end_headers()
                    self.wfile.write(body.encode())
                    return
                self.send_response(302)
                self.send_header("Location", target.replace("SELF", f"127.0.0.1:{port()}"))
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]

        def port() -> int:
            return self.port

        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()


@contextmanager
def redirecting(target: str, body: str = "") -> Iterator[Redirecting]:
    server = Redirecting(target, body)
    try:
        yield server
    finally:
        server.server.shutdown()
        server.server.server_close()


def openapi_config(tmp_path: Path, url: str) -> Path:
    config = tmp_path / "o.yaml"
    config.write_text(f"toolhost: 1\nservers:\n  pets:\n    openapi: {{url: '{url}'}}\n"
                      "permissions:\n  default: allow\n")
    return config


@pytest.mark.parametrize("target", [
    "http://127.0.0.1:{other}/openapi.yaml", "http://localhost:{other}/openapi.yaml",
    "http://u:p@127.0.0.1:{other}/openapi.yaml", "//127.0.0.1:{other}/openapi.yaml",
    "http://SELF@127.0.0.1:{other}/openapi.yaml",
])
def test_a_document_redirected_to_another_host_is_refused(tmp_path: Path,
                                                          target: str) -> None:
    with PetService() as other, \
            redirecting(target.replace("{other}", str(other.port))) as first:
        url = f"http://127.0.0.1:{first.port}/openapi.yaml?key=DOCKEY1234"
        done = run("validate", str(openapi_config(tmp_path, url)),
                   TOOLHOST_CACHE=str(tmp_path / "cache"))
        assert done.returncode == 1, done.stdout + done.stderr
        assert "cannot fetch the OpenAPI document" in done.stderr
        assert "redirected to another host" in done.stderr
        assert "Traceback" not in done.stderr and "DOCKEY1234" not in done.stderr
        assert other.fetched == 0


def test_a_redirect_within_the_host_is_followed(tmp_path: Path) -> None:
    with PetService() as service, \
            redirecting("http://SELF/doc.yaml", service.document()) as server:
        url = f"http://127.0.0.1:{server.port}/openapi.yaml"
        done = run("validate", str(openapi_config(tmp_path, url)),
                   TOOLHOST_CACHE=str(tmp_path / "cache"))
        assert done.returncode == 0, done.stderr


def test_a_document_fetch_ignores_the_proxy_variables(tmp_path: Path) -> None:
    with PetService() as service, tarpit() as (proxy, got):  # every variable at once
        url = f"http://127.0.0.1:{service.port}/openapi.yaml"
        done = run("validate", str(openapi_config(tmp_path, url)),
                   TOOLHOST_CACHE=str(tmp_path / "cache"),
                   **{variable: f"http://127.0.0.1:{proxy}" for variable in PROXY_VARIABLES})
        assert done.returncode == 0, done.stderr
        assert service.fetched == 1 and got == []
