"""A browser page named with ``--allow-origin`` can call ``toolhost serve``: its preflight is
answered without the token, and every answer names its origin and exposes ``Mcp-Session-Id``;
other origins get no CORS (a loopback page still passes the Origin check outside a browser,
anything else stays 403). A real process, httpx."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

import httpx
import pytest

from tests.serve.conftest import http_server

from .hostile_corpus import honest, write_config
from .test_hostile_http import env

APP = "https://app.example"
INSPECTOR = "http://localhost:6274"
TOKEN = "cors-test-token"
BOTH = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "page", "version": "1"}}})


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("cors")
    config = write_config(tmp / "bb.yaml")
    argv = [sys.executable, "-m", "toolhost", "serve", str(config), "--transport", "http",
            "--port", "0", "--token-env", "CORS_TOKEN", "--allow-origin", APP,
            "--allow-origin", INSPECTOR]
    with http_server(argv, tmp / "server.log", env={**env(), "CORS_TOKEN": TOKEN}) as found:
        yield found
    assert "Traceback" not in (tmp / "server.log").read_text(errors="replace")


def preflight(url: str, origin: str | None, **headers: str) -> httpx.Response:
    asked = {"access-control-request-method": "POST",
             "access-control-request-headers": "content-type, authorization, mcp-session-id"}
    if origin is not None:
        asked["origin"] = origin
    return httpx.options(url, headers={**asked, **headers}, timeout=15)


@pytest.mark.parametrize("origin", [APP, INSPECTOR])
def test_a_page_of_a_named_origin_can_call(url: str, origin: str) -> None:
    answer = preflight(url, origin)  # no token: a browser sends none on a preflight
    assert answer.status_code == 204, answer.text
    assert answer.headers["access-control-allow-origin"] == origin
    assert "POST" in answer.headers["access-control-allow-methods"]
    assert "mcp-session-id" in answer.headers["access-control-allow-headers"]
    headers = {**BOTH, "origin": origin, "authorization": f"Bearer {TOKEN}"}
    started = httpx.post(url, content=INITIALIZE, headers=headers, timeout=15)
    assert started.status_code == 200, started.text
    assert started.headers["access-control-allow-origin"] == origin
    assert "mcp-session-id" in started.headers["access-control-expose-headers"]
    assert started.headers["mcp-session-id"]
    called = httpx.post(url, content=honest(1), headers=headers, timeout=15)
    assert called.status_code == 200 and "honest-1" in called.text
    assert called.headers["access-control-allow-origin"] == origin
    refused = httpx.post(url, content=honest(2), headers={**headers, "authorization": "x"},
                         timeout=15)  # the page reads why: 401 with the origin named
    assert refused.status_code == 401
    assert refused.headers["access-control-allow-origin"] == origin


@pytest.mark.parametrize("origin,status", [
    ("https://evil.example", 403), ("null", 403), (None, 200),
    ("http://localhost:3000", 200), ("http://127.0.0.1:8080", 200)])  # loopback: not named
def test_other_origins_get_no_cors(url: str, origin: str | None, status: int) -> None:
    answer = preflight(url, origin)
    assert answer.status_code == 403, answer.text
    assert "access-control-allow-origin" not in answer.headers
    headers = {**BOTH, "authorization": f"Bearer {TOKEN}"}
    called = httpx.post(url, content=honest(3), timeout=15,
                        headers={**headers, "origin": origin} if origin else headers)
    assert called.status_code == status, called.text
    assert "access-control-allow-origin" not in called.headers


@pytest.mark.parametrize("method", ["PUT", "TRACE", "CONNECT", "PATCH", "post", "FOO", ""])
def test_a_preflight_for_a_method_mcp_does_not_use_is_refused(url: str, method: str) -> None:
    """Even from a named origin: a plain 403 saying so, not a 204 granting what the browser
    must then read out of Access-Control-Allow-Methods."""
    answer = preflight(url, APP, **{"access-control-request-method": method})
    assert answer.status_code == 403, answer.text
    assert "access-control-allow-origin" not in answer.headers
    assert "may send GET, POST, DELETE here" in answer.json()["error"]["message"]
    for served in ("GET", "POST", "DELETE"):
        assert preflight(url, APP, **{"access-control-request-method": served}
                         ).status_code == 204


def test_a_preflight_to_a_name_not_served_is_misdirected(url: str) -> None:
    assert preflight(url, APP, host="evil.example").status_code == 421


@pytest.mark.parametrize("origin", ["http://localhost:3000", "http://127.0.0.1:8080", APP])
def test_a_page_cannot_post_blind_without_a_content_type(
        url: str, origin: str) -> None:
    """A page's ``fetch(url, {method: "POST", mode: "no-cors", body: new Blob([json])})``
    sends no Content-Type: a "simple" request, sent without a preflight. A loopback page
    passes the Origin check, so it ran a tool (its answer unread, the tool run all the
    same). Now 415: with ``application/json`` the browser asks first, and only the pages of
    ``--allow-origin`` are let through (a named origin's page sends JSON anyway)."""
    call = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "echo", "arguments": {"text": "blind"}}})
    headers = {"origin": origin, "accept": "*/*", "authorization": f"Bearer {TOKEN}"}
    with httpx.Client(timeout=15) as client:
        request = client.build_request("POST", url, content=call.encode(), headers=headers)
        request.headers.pop("content-type", None)
        answer = client.send(request)
        assert answer.status_code == 415, answer.text
        assert "blind" not in answer.text
        assert "Content-Type: application/json" in answer.json()["error"]["message"]
        # the same call from outside a browser (no Origin) is served as before
        headers.pop("origin")
        plain = client.build_request("POST", url, content=call.encode(), headers=headers)
        plain.headers.pop("content-type", None)
        assert client.send(plain).status_code == 200
