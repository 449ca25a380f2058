"""``MCP-Protocol-Version`` header games over HTTP: a version neither era knows is 400 on
every method (the spec's MUST), and a header naming the stateless revision on a request
whose body names no version is invalid params (400, -32602: the body lacks what that revision
requires), and a modern body with another version is a header/body mismatch (400, -32020). A
POST whose header and body both name an unknown version is -32022 with the versions served;
every POST refusal carries the request's id. Known versions that agree are served as before.
A real HTTP server (the fixture server) and raw requests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.modern import modern_meta
from tests.serve.conftest import fixture_http_argv, http_server
from toolhost.mcp.jsonrpc import HANDSHAKE_VERSIONS, MODERN_VERSIONS
from toolhost.serve.headers import unsupported_version_header

BOTH = "application/json, text/event-stream"
MODERN = modern_meta()
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"}}}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("version") / "server.log"
    with http_server(fixture_http_argv(), log) as found:
        yield found


@pytest.fixture(scope="module")
def session(url: str) -> str:
    answer = httpx.post(url, json=INIT, headers={"accept": BOTH})
    assert answer.status_code == 200
    return answer.headers["mcp-session-id"]


def listing(modern: bool) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/list",
            "params": {"_meta": MODERN} if modern else {}}


UNKNOWN = ["garbage", "", "2025-11-26", "2026-07-28x", "2024-11-05;", "1", "é", "x" * 500]


@pytest.mark.parametrize("version", UNKNOWN)
@pytest.mark.parametrize("what", ["initialize", "legacy list", "modern list", "session list",
                                  "GET stream", "DELETE"])
def test_an_unknown_version_is_400_on_every_method(url: str, session: str, version: str,
                                                   what: str) -> None:
    headers: dict[str, Any] = {"accept": BOTH, "mcp-protocol-version": version.encode()}
    if what == "GET stream":
        answer = httpx.get(url, headers={**headers, "mcp-session-id": session})
    elif what == "DELETE":
        answer = httpx.delete(url, headers={**headers, "mcp-session-id": session})
    else:
        body = {"initialize": INIT, "legacy list": listing(False),
                "modern list": listing(True), "session list": listing(False)}[what]
        if what == "session list":
            headers["mcp-session-id"] = session
        answer = httpx.post(url, json=body, headers=headers)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    if what == "modern list":  # the body names 2026-07-28: the header disagrees with it
        assert error["code"] == -32020 and "MCP-Protocol-Version" in error["message"]
    else:
        assert error["code"] == -32600 and "unsupported MCP-Protocol-Version" in error["message"]
    if what not in ("GET stream", "DELETE"):  # a POST's refusal names its request
        assert answer.json()["id"] == body["id"]
    assert len(error["message"]) < 400


@pytest.mark.parametrize(("header", "modern", "status", "code"), [
    ("2026-07-28", False, 400, -32602),  # the stateless revision, a body without _meta
    ("2025-06-18", True, 400, -32020),  # and the other way round (as before)
    ("2025-11-25", False, 200, None),
    ("2024-11-05", False, 200, None),
    ("2026-07-28", True, 200, None),
    (None, False, 200, None),
    (None, True, 200, None),
])
def test_header_and_body_must_agree(url: str, header: str | None, modern: bool, status: int,
                                    code: int | None) -> None:
    headers = {"accept": BOTH, "mcp-method": "tools/list"}
    if header is not None:
        headers["mcp-protocol-version"] = header
    answer = httpx.post(url, json=listing(modern), headers=headers)
    assert answer.status_code == status, answer.text
    if code is not None:
        assert answer.json()["error"]["code"] == code


def test_an_unknown_version_in_header_and_body_is_unsupported_with_the_versions_served(
        url: str) -> None:
    body = {"jsonrpc": "2.0", "id": 301, "method": "server/discover", "params": {"_meta": {
        **MODERN, "io.modelcontextprotocol/protocolVersion": "v999.0.0",
        "io.modelcontextprotocol/clientCapabilities": {}}}}
    answer = httpx.post(url, json=body, headers={
        "accept": BOTH, "mcp-protocol-version": "v999.0.0", "mcp-method": "server/discover"})
    assert answer.status_code == 400, answer.text
    assert answer.json()["id"] == 301
    error = answer.json()["error"]
    assert error["code"] == -32022
    assert error["data"] == {"supported": list(MODERN_VERSIONS), "requested": "v999.0.0"}


def test_a_2025_notification_or_answer_with_a_modern_header_is_still_taken(url: str) -> None:
    headers = {"accept": BOTH, "mcp-protocol-version": "2026-07-28"}
    taken = httpx.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                       headers=headers)
    assert taken.status_code == 202
    # an answer passes the header too: it is refused only as no question waits for it
    answer = httpx.post(url, json={"jsonrpc": "2.0", "id": "toolhost-9", "result": {}},
                        headers=headers)
    assert answer.status_code == 409 and "only within a session" in answer.text


@given(st.text(max_size=40))
def test_only_known_versions_pass(version: str) -> None:
    known = version in HANDSHAKE_VERSIONS or version in MODERN_VERSIONS
    assert (unsupported_version_header({"mcp-protocol-version": version}) is None) == known
    assert unsupported_version_header({}) is None
