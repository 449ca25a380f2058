"""Requests in flight are bounded per client (``--max-in-flight``, ``--max-in-flight-bytes``):
the excess gets a "server busy" error at once, every accepted call is still answered, and a
flood of slow calls leaves the process small (real processes, stdio and HTTP)."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.serve.conftest import http_server, server_env

from .gate_tools import release, wait_entered
from .stdio_peer import stdio_peer

CONFIG = """\
toolhost: 1
servers:
  calc:
    tools:
      slow: {python: "toolhost.demo:slow_count"}
      add: {python: "toolhost.demo:add"}
      held: {python: "tests.serve.gate_tools:held"}
permissions:
  default: allow
"""
HTTP_HEADERS = {"accept": "application/json, text/event-stream",
                "content-type": "application/json"}


def held(request_id: Any, gate: Path, pad: int = 0) -> dict[str, Any]:
    """A call that runs until ``release(gate)`` (tests/serve/gate_tools.py)."""
    params: dict[str, Any] = {"name": "held", "arguments": {"gate": str(gate)}}
    if pad:
        params["_meta"] = {"pad": "x" * pad}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def slow(request_id: Any, delay: float, pad: int = 0) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "slow", "arguments": {"to": 1, "delay": delay}}
    if pad:
        params["_meta"] = {"pad": "x" * pad}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "calc.yaml"
    path.write_text(CONFIG)
    return path


@pytest.fixture
def gate(tmp_path: Path) -> Path:
    path = tmp_path / "gate"
    path.mkdir()
    return path


def test_stdio_past_the_limit_is_busy_and_accepted_calls_are_answered(config: Path,
                                                                      gate: Path) -> None:
    with stdio_peer(config, "--max-in-flight", "5") as peer:
        for i in range(8):
            peer.send(held(i, gate))
        busy = [peer.wait_for(i, timeout=30) for i in (5, 6, 7)]
        for answer in busy:
            assert answer["error"]["code"] == -32000
            message = answer["error"]["message"]
            assert "Server busy" in message and "5 requests" in message
            assert "--max-in-flight" in message
        pong = peer.ask("ping", "ping")  # refused while full: still an answer
        assert pong["error"]["code"] == -32000
        release(gate)
        for i in range(5):  # nothing accepted is lost
            assert peer.wait_for(i)["result"]["isError"] is False
        assert peer.ask("ping-2", "ping")["result"] == {}
        assert peer.ask("add", "tools/call", {"name": "add",
                                              "arguments": {"a": 1, "b": 2}})["result"]


def test_stdio_bytes_in_flight_are_bounded(config: Path, gate: Path) -> None:
    with stdio_peer(config, "--max-in-flight-bytes", "64KiB") as peer:
        peer.send(held("big-1", gate, pad=40_000))
        peer.send(held("big-2", gate, pad=40_000))
        refused = peer.wait_for("big-2", timeout=30)
        assert refused["error"]["code"] == -32000 and "65,536 bytes" in \
            refused["error"]["message"]
        release(gate)
        assert peer.wait_for("big-1")["result"]["isError"] is False
        # alone, a message over the byte budget is still taken
        assert peer.ask("big-3", "tools/call", slow("x", 0.01, pad=100_000)["params"])["result"]


def test_a_flood_of_slow_calls_keeps_the_process_small(config: Path) -> None:
    n = 20_000
    with stdio_peer(config) as peer:
        assert peer.proc.stdin is not None
        lines = b"".join(json.dumps(slow(i, 600)).encode() + b"\n" for i in range(n))
        peer.proc.stdin.write(lines)
        peer.proc.stdin.flush()
        busy = 0
        for i in range(1000, n):
            answer = peer.wait_for(i, timeout=60)
            busy += answer["error"]["code"] == -32000
        assert busy == n - 1000
        status = Path(f"/proc/{peer.proc.pid}/status").read_text()
        peak = next(int(line.split()[1]) for line in status.splitlines()
                    if line.startswith("VmHWM:")) / 1024
        assert peak < 300, f"peak RSS {peak:.0f} MB"
        # the 1000 accepted calls are still there: cancel them, the server answers on
        for i in range(1000):
            peer.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"requestId": i}})
        assert peer.ask("ping", "ping", timeout=30)["result"] == {}
        assert "Traceback" not in peer.log() and "MemoryError" not in peer.log()


def test_http_a_session_is_bounded_and_others_are_not_affected(config: Path, tmp_path: Path,
                                                               gate: Path) -> None:
    argv = [sys.executable, "-m", "toolhost", "serve", str(config),
            "--transport", "http", "--port", "0", "--max-in-flight", "3"]
    with http_server(argv, tmp_path / "server.log", env=server_env()) as url, \
            httpx.Client(timeout=30) as client:
        def session() -> dict[str, str]:
            init = client.post(url, headers=HTTP_HEADERS, json={
                "jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "t", "version": "1"}}})
            return {**HTTP_HEADERS, "mcp-session-id": init.headers["mcp-session-id"]}

        a, b = session(), session()
        answers: dict[int, dict[str, Any]] = {}

        def call(i: int) -> None:
            with httpx.Client(timeout=30) as own:
                answers[i] = own.post(url, headers=a, json=held(i, gate)).json()

        threads = [threading.Thread(target=call, args=(i,)) for i in range(3)]
        for thread in threads:
            thread.start()
        wait_entered(gate, 3)  # the three calls are in flight
        extra = client.post(url, headers=a, json=slow(99, 0.01)).json()
        assert extra["error"]["code"] == -32000, (extra, answers)
        assert "in this session" in extra["error"]["message"]
        other = client.post(url, headers=b, json={"jsonrpc": "2.0", "id": 1,
                                                  "method": "ping"}).json()
        assert other["result"] == {}  # session B is not affected
        release(gate)
        for thread in threads:
            thread.join(30)
        assert all(answers[i]["result"]["isError"] is False for i in range(3))


def test_http_unkept_sessions_are_bounded_and_ids_in_use_refused(config: Path, tmp_path: Path,
                                                                 gate: Path) -> None:
    """A session served without being kept (the table full of sessions in use) shares one
    --max-in-flight budget over its requests, and a legacy session refuses an id it is still
    answering (-32600, as stdio does), kept or not. One process probed both ways."""
    argv = [sys.executable, "-m", "toolhost", "serve", str(config), "--transport", "http",
            "--port", "0", "--max-in-flight", "2", "--max-sessions", "1"]
    with http_server(argv, tmp_path / "server.log", env=server_env()) as url, \
            httpx.Client(timeout=30) as client:
        def session() -> dict[str, str]:
            init = client.post(url, headers=HTTP_HEADERS, json={
                "jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "t", "version": "1"}}})
            return {**HTTP_HEADERS, "mcp-session-id": init.headers["mcp-session-id"]}

        answers: dict[tuple[str, int], dict[str, Any]] = {}

        def call(name: str, headers: dict[str, str], i: int) -> None:
            with httpx.Client(timeout=30) as own:
                answers[name, i] = own.post(url, headers=headers, json=held(i, gate)).json()

        kept = session()
        threads = [threading.Thread(target=call, args=("kept", kept, 1))]
        threads[0].start()
        wait_entered(gate, 1)  # the kept session's call is running: the table is full
        unkept = session()
        threads += [threading.Thread(target=call, args=("unkept", unkept, i)) for i in (1, 2)]
        for thread in threads[1:]:
            thread.start()
        wait_entered(gate, 3)  # its two calls are in flight
        extra = client.post(url, headers=unkept, json=slow(99, 0.01)).json()
        assert extra["error"]["code"] == -32000, extra
        assert "in this session" in extra["error"]["message"]
        for headers in (kept, unkept):
            again = client.post(url, headers=headers, json=slow(1, 0.01)).json()
            assert again["error"]["code"] == -32600, again
            assert "already in use" in again["error"]["message"]
        release(gate)
        for thread in threads:
            thread.join(30)
        assert {key: answer["result"]["isError"] for key, answer in answers.items()} == {
            ("kept", 1): False, ("unkept", 1): False, ("unkept", 2): False}
        # answered: the ids are free again and the unkept session's budget is back
        for headers in (kept, unkept):
            assert client.post(url, headers=headers, json=slow(1, 0.01)).json()[
                "result"]["isError"] is False
