"""A legacy session belongs to the caller that started it (``--auth-issuer``): another caller,
even with a good token of its own, finds the id unknown (404) on every method and on every
replica, so a leaked id lets nobody answer the session's asks, cancel its calls, hear its
stream or end it. A real ``toolhost serve`` per replica, a local issuer, raw HTTP."""

from __future__ import annotations

import http.client
import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.serve.conftest import HERE, http_server
from tests.serve.test_auth import AUD, Issuer
from toolhost.permissions.callers.identity import Caller
from toolhost.serve.sessions import SessionTokens, owner_of

CONFIG = """\
toolhost: 1
servers:
  db:
    tools:
      echo: {python: "blackbox_tools:echo"}
      hang: {python: "blackbox_tools:hang"}
      migrate: {python: "blackbox_tools:echo"}
permissions:
  default: deny
  allow: [mcp__db__echo, mcp__db__hang]
  ask: [mcp__db__migrate]
"""
LEGACY = "2025-11-25"


class Replicas(list[str]):
    """The replicas' MCP URLs, and their log files (``logs``)."""

    logs: list[Path]


@pytest.fixture(scope="module")
def replicas(issuer: Issuer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replicas]:
    """Two replicas of one config (their session keys agree: derived from the config)."""
    tmp = tmp_path_factory.mktemp("owner")
    config = tmp / "db.yaml"
    config.write_text(CONFIG)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(HERE), str(HERE.parent.parent), os.environ.get("PYTHONPATH")) if p)}
    env.pop("TOOLHOST_SESSION_SECRET", None)
    argv = [sys.executable, "-m", "toolhost", "serve", str(config), "--transport", "http",
            "--port", "0", "--auth-issuer", issuer.url, "--auth-audience", AUD]
    with http_server(argv, tmp / "one.log", env=env) as one, \
            http_server(argv, tmp / "two.log", env=env) as two:
        urls = Replicas([one, two])
        urls.logs = [tmp / "one.log", tmp / "two.log"]
        yield urls


def request(url: str, method: str, token: str, body: Any = None, session: str | None = None,
            timeout: float = 20) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    headers = {"authorization": f"Bearer {token}", "content-type": "application/json",
               "accept": "application/json, text/event-stream"}
    if session is not None:
        headers["mcp-session-id"] = session
    try:
        conn.request(method, parts.path, json.dumps(body).encode() if body is not None
                     else None, headers)
        answer = conn.getresponse()
        data = answer.read() if method != "GET" or answer.status != 200 else b""
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, data
    finally:
        conn.close()


def start(url: str, token: str) -> str:
    status, headers, _ = request(url, "POST", token, {
        "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": LEGACY, "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "t", "version": "1"}}})
    assert status == 200
    return headers["mcp-session-id"]


def call(name: str, request_id: Any = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": {"text": "hi"}}}


# what another caller may try with a session it did not start; each must be 404
OTHERS_TRIES: list[tuple[str, str, Any]] = [
    ("a call", "POST", call("echo", 7)),
    ("a list", "POST", {"jsonrpc": "2.0", "id": 8, "method": "tools/list"}),
    ("an answer to a question of ours", "POST",
     {"jsonrpc": "2.0", "id": "toolhost-1", "result": {"action": "accept", "content": {}}}),
    ("a cancellation", "POST", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                "params": {"requestId": 1}}),
    ("a log level", "POST", {"jsonrpc": "2.0", "id": 9, "method": "logging/setLevel",
                             "params": {"level": "debug"}}),
    ("the GET stream", "GET", None),
    ("the end of it", "DELETE", None),
]


@pytest.mark.parametrize(("what", "method", "body"), OTHERS_TRIES, ids=[t[0] for t in OTHERS_TRIES])
@pytest.mark.parametrize("replica", [0, 1], ids=["same replica", "other replica"])
def test_another_caller_finds_the_session_unknown(issuer: Issuer, replicas: Replicas, what: str,
                                                  method: str, body: Any, replica: int) -> None:
    alice = issuer.token("alice")
    sid = start(replicas[0], alice)
    seen = len(replicas.logs[replica].read_text())
    for other in ("bob", "Alice", "alice ", "alice\u0000"):  # each another subject
        status, _, data = request(replicas[replica], method, issuer.token(other), body, sid)
        assert status == 404, (what, other, status, data)
    # each refusal is recorded where it happened, naming who asked
    logged = replicas.logs[replica].read_text()[seen:]
    assert logged.count("refused session") == 4, logged
    assert "(asked by subject 'bob' of 'http" in logged and r"'alice\x00'" in logged, logged
    # the session is still alice's, whole, on both replicas
    for url in replicas:
        status, _, data = request(url, "POST", alice, call("echo", 2), sid)
        assert status == 200 and json.loads(data)["result"]["content"][0]["text"] == "hi"


def test_the_same_caller_with_a_new_token_keeps_the_session(issuer: Issuer,
                                                            replicas: list[str]) -> None:
    sid = start(replicas[0], issuer.token("alice"))
    time.sleep(1.1)  # another token: other iat and exp, same issuer and subject
    fresh = issuer.token("alice", groups=("platform",))
    for url in replicas:
        status, _, _ = request(url, "POST", fresh, call("echo"), sid)
        assert status == 200
    assert request(replicas[1], "DELETE", fresh, None, sid)[0] == 204


def test_another_caller_cannot_answer_an_ask(issuer: Issuer, replicas: list[str]) -> None:
    """The person asked is the session's: bob's "accept" to alice's question is refused,
    and alice's own "decline" decides."""
    alice, bob = issuer.token("alice"), issuer.token("bob")
    sid = start(replicas[0], alice)
    parts = urlsplit(replicas[0])
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    conn.request("POST", parts.path, json.dumps(call("migrate")).encode(), {
        "authorization": f"Bearer {alice}", "content-type": "application/json",
        "accept": "application/json, text/event-stream", "mcp-session-id": sid})
    answer = conn.getresponse()
    assert answer.getheader("content-type", "").startswith("text/event-stream")
    events: list[dict[str, Any]] = []
    got_question = threading.Event()

    def read() -> None:
        for line in answer:
            if line.startswith(b"data: "):
                events.append(json.loads(line[6:]))
                got_question.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert got_question.wait(20)
    question = events[0]
    assert question["method"] == "elicitation/create"
    accept = {"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept",
                                                                  "content": {}}}
    for url in replicas:
        assert request(url, "POST", bob, accept, sid)[0] == 404
    decline = {"jsonrpc": "2.0", "id": question["id"], "result": {"action": "decline"}}
    assert request(replicas[0], "POST", alice, decline, sid)[0] == 202
    reader.join(20)
    conn.close()
    assert events[-1]["id"] == 1 and events[-1]["result"]["isError"] is True, events


def test_without_callers_sessions_are_shared_as_before() -> None:
    tokens = SessionTokens("k")
    sid = tokens.issue(LEGACY, {})
    claims = tokens.check(sid)
    assert claims is not None and claims.owner == ""
    assert len(sid) < 150


@given(st.text(max_size=40), st.text(max_size=40), st.text(max_size=40), st.text(max_size=40))
def test_owners_differ_exactly_when_issuer_or_subject_does(iss1: str, sub1: str, iss2: str,
                                                          sub2: str) -> None:
    one = owner_of(Caller(sub1, issuer=iss1))
    two = owner_of(Caller(sub2, issuer=iss2))
    assert (one == two) == ((iss1, sub1) == (iss2, sub2))
    assert owner_of(Caller(sub1, issuer=iss1, groups=frozenset({"g"}))) == one
    assert one != owner_of(None) == ""


def test_the_owner_is_signed_with_the_rest() -> None:
    tokens = SessionTokens("k")
    alice = owner_of(Caller("alice", issuer="https://i"))
    sid = tokens.issue(LEGACY, {}, owner=alice)
    claims = tokens.check(sid)
    assert claims is not None and claims.owner == alice
    import base64

    payload, signature = sid.split(".")
    body = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    for forged in ({**body, "u": owner_of(Caller("bob", issuer="https://i"))},
                   {k: v for k, v in body.items() if k != "u"}, {**body, "u": 5}):
        text = base64.urlsafe_b64encode(json.dumps(forged).encode()).rstrip(b"=").decode()
        assert tokens.check(f"{text}.{signature}") is None
