"""A full session table is shared fairly between clients: the session a new one replaces is
taken from the client holding the most (its OAuth caller, else its address), so a client
opening thousands of sessions pushes out its own before an honest client's subscriptions;
and a client holding far more than its share gives up a recent session it does not use, so
it cannot keep a newcomer from being kept. Before, the least recently used idle session went,
whoever held it: an attacker refreshing its own sessions pushed out every idle honest one."""

from __future__ import annotations

import json
import socket
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.serve.conftest import http_server, server_env
from tests.serve.test_resource_notifications import touch, write_config
from toolhost.serve.http_state import Session
from toolhost.serve.resource_watch import INTERVAL_ENV
from toolhost.serve.session_table import SessionsFull, SessionTable, holder_of

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"}}}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def held(holder: str) -> Session:
    return Session(holder=holder)


def test_the_client_holding_the_most_sessions_loses_one_first() -> None:
    clock, forgotten = Clock(), []
    table = SessionTable(4, 60, forgotten.append, clock)
    table.add("honest", held("10.0.0.2"))
    clock.now += 1
    for name in ("a1", "a2", "a3"):
        table.add(name, held("10.0.0.1"))
    clock.now += 120  # everyone idle; the honest session is the least recently used
    table.add("a4", held("10.0.0.1"))
    assert forgotten == ["a1"] and "honest" in table
    table.add("n1", held("10.0.0.3"))  # a newcomer too: the attacker still holds the most
    assert forgotten == ["a1", "a2"] and "honest" in table


def test_a_client_holding_far_more_than_its_share_gives_up_a_recent_unused_session() -> None:
    clock, forgotten = Clock(), []
    table = SessionTable(5, 600, forgotten.append, clock)
    busy = held("10.0.0.1")
    busy.running["x"] = object()  # type: ignore[assignment]  # a call runs in it
    table.add("a0", busy)
    for name in ("a1", "a2", "a3", "a4"):
        table.add(name, held("10.0.0.1"))
    table.add("honest", held("10.0.0.2"))  # nobody idle: a1, not a0 (in use), goes
    assert forgotten == ["a1"]
    with pytest.raises(SessionsFull):  # the same client's newcomer waits for idle ones
        table.add("a5", held("10.0.0.1"))
    for name in ("n1", "n2"):  # other clients each get a place
        table.add(name, held(f"10.0.1.{name[1]}"))
    assert forgotten == ["a1", "a2", "a3"] and "honest" in table
    table.add("n3", held("10.0.0.9"))  # its last session not in use
    assert forgotten[-1] == "a4"
    with pytest.raises(SessionsFull):  # one each now (the attacker's in use): none idle
        table.add("n4", held("10.0.0.10"))


def test_a_session_is_held_by_its_caller_else_its_address_an_ipv6_one_by_its_64() -> None:
    assert holder_of("iss sub", ("10.0.0.1", 5)) == "caller iss sub"
    assert holder_of("", ("10.0.0.1", 5)) == "10.0.0.1"
    assert holder_of("", ["2001:db8::1", 5]) == holder_of("", ("2001:db8::ffff:2", 6))
    assert holder_of("", ("2001:db8::1", 5)) != holder_of("", ("2001:db8:0:1::1", 5))
    assert holder_of("", ("::ffff:10.0.0.1", 5)) == "10.0.0.1"
    assert holder_of("", None) == ""


def _second_loopback() -> str:
    """127.0.0.2, where this machine lets a client send from it (Linux does)."""
    try:
        with socket.socket() as sock:
            sock.bind(("127.0.0.2", 0))
    except OSError:
        pytest.skip("cannot send from 127.0.0.2 here")
    return "127.0.0.2"


def _post(client: httpx.Client, url: str, body: dict[str, Any], session: str | None = None
          ) -> httpx.Response:
    headers = {**HEADERS, **({"mcp-session-id": session} if session else {})}
    return client.post(url, content=json.dumps(body), headers=headers)


def _subscribed(client: httpx.Client, url: str, uri: str) -> str:
    session = _post(client, url, INIT).headers["mcp-session-id"]
    answer = _post(client, url, {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe",
                                 "params": {"uri": uri}}, session)
    assert answer.status_code == 200 and "error" not in answer.text, answer.text
    return session


def test_many_sessions_of_one_client_leave_another_clients_subscription(tmp_path: Path
                                                                       ) -> None:
    honest_address = _second_loopback()
    config = write_config(tmp_path)
    argv = [sys.executable, "-m", "toolhost", "serve", str(config), "--transport", "http",
            "--port", "0", "--max-sessions", "20", "--session-idle", "1"]
    env = {**server_env(), INTERVAL_ENV: "0.1"}
    with http_server(argv, tmp_path / "server.log", env=env) as url, \
            httpx.Client(timeout=20) as attacker, httpx.Client(timeout=20, transport=(
                httpx.HTTPTransport(local_address=honest_address))) as honest:
        listed = _post(attacker, url, INIT)
        uri = next(r["uri"] for r in _post(attacker, url, {
            "jsonrpc": "2.0", "id": 3, "method": "resources/list"},
            listed.headers["mcp-session-id"]).json()["result"]["resources"]
            if "runbook" in r["uri"])
        kept = _subscribed(honest, url, uri)
        time.sleep(1.5)  # the honest client is idle now, and the least recently used
        for _ in range(60):  # another client opens sessions in a loop, 3x the table
            _subscribed(attacker, url, uri)
        with honest.stream("GET", url, headers={"accept": "text/event-stream",
                                                "mcp-session-id": kept}) as stream:
            assert stream.status_code == 200
            touch(tmp_path / "runbook.md", "# Deploy v2\n")
            lines = stream.iter_lines()
            heard = next(line for line in lines if "notifications/resources/updated" in line)
        assert uri in heard
    log = (tmp_path / "server.log").read_text()
    assert f"forgot session …{kept[-12:]}" not in log and "Traceback" not in log


def test_the_subscription_budget_counts_a_clients_sessions_as_one() -> None:
    from toolhost.mcp import McpServer
    from toolhost.serve.http import HttpServer

    core = McpServer("demo", "1", [])
    server = HttpServer(core)
    server.sessions.table.add("s1", held("10.0.0.1"))
    server.sessions.table.add("s2", held("10.0.0.1"))
    server.sessions.table.add("s3", held("10.0.0.2"))
    holder = core._content.table.holder_of
    assert holder is not None
    assert holder("s1") == holder("s2") != holder("s3")
    assert holder("gone") == "gone"  # a peer of no kept session is a client of its own
