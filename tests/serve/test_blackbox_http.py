"""Streamable HTTP edge cases found by black-box testing a real server process.

- an ``Accept`` that admits neither JSON nor SSE is 406; a JSON-only client never gets an
  SSE response (its call's notifications are dropped); an SSE-only client gets SSE;
- a body that is not ``application/json`` is 415;
- ``DELETE`` without ``Mcp-Session-Id`` is 400 (nothing to end), an unknown one 404;
- a legacy call cancelled with ``notifications/cancelled`` ends its POST with JSON-RPC
  error -32800 as ``application/json`` (before: a bodiless 204 the official client logged
  as "Unexpected content type").
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.serve.conftest import fixture_http_argv, http_server
from tests.serve.routing import routing

BOTH = "application/json, text/event-stream"
MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("http") / "server.log"
    with http_server(fixture_http_argv(), log) as found:
        yield found


def slow_call(request_id: int, steps: int, *, token: bool = True,
              pause: float = 0.01) -> dict[str, Any]:
    meta: dict[str, Any] = dict(MODERN_META)
    if token:
        meta["progressToken"] = "p"
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": "slow", "arguments": {"steps": steps, "pause": pause},
                       "_meta": meta}}


def test_accept_admitting_neither_json_nor_sse_is_406(url: str) -> None:
    answer = httpx.post(url, json=slow_call(1, 1), headers={"accept": "text/html"})
    assert answer.status_code == 406
    assert "Not Acceptable" in answer.json()["error"]["message"]
    refused = httpx.post(url, json=slow_call(1, 1),
                         headers={"accept": "application/json;q=0, text/html"})
    assert refused.status_code == 406


def test_json_only_client_gets_json_even_when_the_call_reports_progress(url: str) -> None:
    answer = httpx.post(url, json=slow_call(2, 3),
                         headers={"accept": "application/json", **routing(slow_call(2, 3))})
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    assert answer.json()["result"]["content"][0]["text"] == "done after 3 steps"


def test_sse_only_client_gets_the_answer_as_an_event(url: str) -> None:
    answer = httpx.post(url, json=slow_call(3, 1, token=False),
                        headers={"accept": "text/event-stream", **routing(slow_call(3, 1))})
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/event-stream")
    assert answer.text.startswith("event: message\ndata: ")
    assert '"done after 1 steps"' in answer.text


def test_progress_and_answer_as_sse_for_a_client_accepting_both(url: str) -> None:
    answer = httpx.post(url, json=slow_call(4, 2),
                         headers={"accept": BOTH, **routing(slow_call(4, 2))})
    assert answer.headers["content-type"].startswith("text/event-stream")
    assert answer.text.count("notifications/progress") == 2
    assert '"done after 2 steps"' in answer.text


def test_body_that_is_not_json_media_is_415(url: str) -> None:
    answer = httpx.post(url, content=b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}',
                        headers={"accept": BOTH, "content-type": "text/plain"})
    assert answer.status_code == 415
    ok = httpx.post(url, content=b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}',
                    headers={"accept": BOTH, "content-type": "application/json; charset=utf-8"})
    assert ok.status_code == 200 and ok.json()["result"] == {}


def test_delete_needs_a_session_id(url: str) -> None:
    assert httpx.delete(url).status_code == 400
    assert httpx.delete(url, headers={"mcp-session-id": "nope"}).status_code == 404


def test_get_stream_needs_sse_in_accept(url: str) -> None:
    init = httpx.post(url, headers={"accept": BOTH}, json={
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "0"}}})
    session = init.headers["mcp-session-id"]
    answer = httpx.get(url, headers={"mcp-session-id": session, "accept": "application/json"})
    assert answer.status_code == 406
    assert httpx.delete(url, headers={"mcp-session-id": session}).status_code == 204


def test_legacy_cancelled_call_ends_with_a_json_rpc_error(url: str, tmp_path: Path) -> None:
    init = httpx.post(url, headers={"accept": BOTH}, json={
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "0"}}})
    headers = {"accept": BOTH, "mcp-session-id": init.headers["mcp-session-id"]}
    marker = tmp_path / "marker"
    answers: list[httpx.Response] = []

    def call() -> None:
        answers.append(httpx.post(url, headers=headers, timeout=30, json={
            "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "slow", "arguments": {"steps": 1000, "pause": 0.05,
                                                     "marker": str(marker)}}}))

    caller = threading.Thread(target=call)
    caller.start()
    try:
        for _ in range(200):  # until the call is running
            cancelled = httpx.post(url, headers=headers, json={
                "jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 2, "reason": "test"}})
            assert cancelled.status_code == 202
            caller.join(0.05)
            if not caller.is_alive():
                break
    finally:
        caller.join(30)
    (answer,) = answers
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    assert answer.json() == {"jsonrpc": "2.0", "id": 2,
                             "error": {"code": -32800, "message": "Request cancelled"}}
    assert marker.read_text() == "cancelled"
