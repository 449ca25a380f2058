"""Many HTTP sessions do not evict other sessions' state: past ``--max-sessions`` a new
session replaces only the least recently used one idle longer than ``--session-idle``, and is
otherwise served without being kept (its calls answered, its settings forgotten, no GET
stream; a log line) while every kept session keeps its settings."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.serve.conftest import HERE, http_server
from toolhost.serve.http_state import Session
from toolhost.serve.session_table import SessionsFull, SessionTable

CONFIG = """\
toolhost: 1
servers:
  logs:
    tools:
      chatty: {python: "logging_tools:chatty"}
permissions: {default: allow}
"""
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_full_table_replaces_the_least_recently_used_idle_session() -> None:
    clock, forgotten = Clock(), []
    table = SessionTable(3, 60, forgotten.append, clock)
    for name in ("a", "b", "c"):
        table.add(name, Session())
        clock.now += 1
    with pytest.raises(SessionsFull, match="--max-sessions"):
        table.add("d", Session())  # nobody idle for 60 s: the new one is refused
    assert len(table) == 3 and not forgotten
    clock.now += 120
    table.get("a")  # a is used again: b is now the least recently used
    table.add("d", Session())
    assert forgotten == ["b"] and "a" in table and "b" not in table
    busy = table.get("c")
    assert busy is not None
    busy.running["x"] = object()  # type: ignore[assignment]  # a call still running
    clock.now += 120
    table.get("a")
    table.get("d")
    with pytest.raises(SessionsFull):
        table.add("e", Session())  # c is idle by time, but a call runs in it
    busy.running.clear()
    table.add("e", Session())
    assert forgotten == ["b", "c"]
    assert table.pop("e") is not None and forgotten[-1] == "e"


def test_a_session_not_kept_is_taken_in_once_there_is_room() -> None:
    """Decided: a session served without being kept is taken into the table by its first
    request once there is room (and no request of it is still being answered: those share
    the unkept one), with the client capabilities its signed id carries."""
    import dataclasses

    from toolhost.limits import DEFAULT_LIMITS
    from toolhost.serve.http_sessions import LegacySessions
    from toolhost.serve.sessions import SessionTokens

    sessions = LegacySessions(SessionTokens("s3cret"), dataclasses.replace(
        DEFAULT_LIMITS, max_sessions=1, session_idle=600), None)
    first_id, first = sessions.start("2025-11-25", {}, "")
    second_id, second = sessions.start("2025-11-25", {"elicitation": {}}, "")
    assert first.kept and not second.kept and second.capabilities == {}
    assert sessions.find(second_id, unkept=True) is second  # a request of it still runs
    sessions.done_unkept(second)
    sessions.done_unkept(second)
    again = sessions.find(second_id, unkept=True)  # no room: a fresh unkept one
    assert again is not None and again is not second and not again.kept
    sessions.done_unkept(again)
    sessions.end(first_id)
    taken = sessions.find(second_id, unkept=True)
    assert taken is not None and taken.kept and taken.capabilities == {"elicitation": {}}
    assert sessions.find(second_id) is taken


def _post(client: httpx.Client, url: str, message: dict[str, Any],
          session: str | None = None) -> httpx.Response:
    headers = {**HEADERS, **({"mcp-session-id": session} if session else {})}
    return client.post(url, headers=headers, json=message)


def _initialize(client: httpx.Client, url: str) -> httpx.Response:
    return _post(client, url, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}})


def _log_lines(client: httpx.Client, url: str, session: str) -> int:
    """How many log notifications a call of the chatty tool brings this session."""
    answer = _post(client, url, {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                                 "params": {"name": "chatty", "arguments": {}}}, session)
    assert answer.status_code == 200 and '"done"' in answer.text, answer.text
    return answer.text.count("notifications/message")


def test_many_sessions_do_not_evict_an_active_sessions_settings(tmp_path: Path) -> None:
    config = tmp_path / "logs.yaml"
    config.write_text(CONFIG)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(HERE), str(HERE.parent.parent), os.environ.get("PYTHONPATH")) if p)}
    argv = [sys.executable, "-m", "toolhost", "serve", str(config), "--transport", "http",
            "--port", "0", "--max-sessions", "20", "--session-idle", "20"]
    log = tmp_path / "server.log"
    with http_server(argv, log, env=env) as url, httpx.Client(timeout=30) as client:
        honest = _initialize(client, url).headers["mcp-session-id"]
        assert _log_lines(client, url, honest) == 3  # info, notice, warning
        assert _post(client, url, {"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel",
                                   "params": {"level": "error"}}, honest).status_code == 200
        assert _log_lines(client, url, honest) == 0
        opened = []
        # a client opening sessions (and levels) in a loop, past the table's 20 (25 times, well
        # within --session-idle on a loaded machine too: none of them is idle meanwhile)
        for _ in range(25):
            answer = _initialize(client, url)
            assert answer.status_code == 200, answer.text  # answered, kept or not
            opened.append(answer.headers["mcp-session-id"])
            assert _post(client, url, {"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel",
                                       "params": {"level": "debug"}}, opened[-1]
                         ).status_code == 200
            # the honest session stays active (on a loaded machine the loop outlasts
            # --session-idle, and an idle honest session was rightly replaced)
            assert _post(client, url, {"jsonrpc": "2.0", "id": 2, "method": "ping"},
                         honest).status_code == 200
        assert _log_lines(client, url, honest) == 0  # its level is still its own
        last = opened[-1]  # the table was full of sessions in use: not kept, yet answered
        assert _log_lines(client, url, last) == 3  # its level was not kept
        stream = client.get(url, headers={"accept": "text/event-stream",
                                          "mcp-session-id": last})
        assert stream.status_code == 503  # a GET stream needs a kept session
        assert "--max-sessions" in stream.json()["error"]["message"]
        assert _log_lines(client, url, honest) == 0  # its level is still its own
        time.sleep(20.5)  # everyone is idle now: a new session replaces the oldest idle one
        assert _log_lines(client, url, honest) == 0  # (and the honest one is used again)
        newcomer = _initialize(client, url)
        assert newcomer.status_code == 200, newcomer.text
        assert _log_lines(client, url, honest) == 0
        assert _log_lines(client, url, newcomer.headers["mcp-session-id"]) == 3
    text = log.read_text()
    assert "serving sessions without keeping them" in text and "Traceback" not in text
