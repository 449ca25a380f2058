"""Over HTTP each client's state is its own (a real server): one session can neither fill,
change nor end another's subscriptions, log level or listen stream, and ``DELETE`` ends a
session for good."""

from __future__ import annotations

import json
import os
import queue
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.modern import modern_meta
from tests.serve.conftest import HERE, http_server, server_env

MODERN = modern_meta()
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def write_config(tmp_path: Path) -> Path:
    (tmp_path / "runbook.md").write_text("# Deploy\n")
    config = tmp_path / "kb.yaml"
    config.write_text("""\
toolhost: 1
servers:
  kb:
    tools:
      chatty: {python: "logging_tools:chatty"}
    resources:
      runbook: {file: runbook.md}
      word:
        uri: "w://{id}"
        command: [echo, "{{ id }}"]
permissions:
  default: allow
""")
    return config


def touch(path: Path, text: str) -> None:
    path.write_text(text)
    stamp = os.stat(path).st_mtime_ns + 2_000_000_000  # a coarse clock still sees a change
    os.utime(path, ns=(stamp, stamp))


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    config = write_config(tmp_path)
    env = server_env()
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env["PYTHONPATH"]])
    env["TOOLHOST_RESOURCE_WATCH_INTERVAL"] = "0.1"  # the watcher looks 10 times a second
    argv = [sys.executable, "-m", "toolhost", "serve", str(config), "--transport", "http",
            "--port", "0", "--shutdown-grace", "3"]
    with http_server(argv, tmp_path / "server.log", env=env) as the_url:
        yield the_url


class Events:
    """The SSE events of one streamed response, read by a thread."""

    def __init__(self, method: str, url: str, headers: dict[str, str],
                 body: Any = None) -> None:
        self.items: queue.Queue[dict[str, Any]] = queue.Queue()
        self.ended = threading.Event()
        self._args = (method, url, headers, body)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        method, url, headers, body = self._args
        try:
            with httpx.stream(method, url, headers=headers, json=body, timeout=60) as answer:
                for line in answer.iter_lines():
                    if line.startswith("data: "):
                        self.items.put(json.loads(line[6:]))
        except httpx.HTTPError:
            pass
        self.ended.set()

    def methods(self, wait: float) -> list[str]:
        """The methods of the notifications heard within ``wait`` seconds."""
        out, deadline = [], time.monotonic() + wait
        while (left := deadline - time.monotonic()) > 0:
            try:
                out.append(str(self.items.get(timeout=left).get("method")))
            except queue.Empty:
                break
        return out

    def wait_for(self, method: str, timeout: float = 20) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                item = self.items.get(timeout=left)
            except queue.Empty:
                break
            if item.get("method") == method:
                return item
        raise AssertionError(f"no {method} within {timeout}s")


def session(client: httpx.Client, url: str) -> dict[str, str]:
    init = client.post(url, headers=HEADERS, json={
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}})
    return {**HEADERS, "mcp-session-id": init.headers["mcp-session-id"]}


def rpc(client: httpx.Client, url: str, headers: dict[str, str], method: str,
        params: Any = None, request_id: int = 1) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        body["params"] = params
    answer = client.post(url, headers=headers, json=body)
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        events = [json.loads(line[6:]) for line in answer.text.splitlines()
                  if line.startswith("data: ")]
        return {"answer": events[-1], "notes": events[:-1]}
    return {"answer": answer.json(), "notes": []}


def pipelined(url: str, headers: dict[str, str], bodies: list[dict[str, Any]]
              ) -> list[dict[str, Any]]:
    """The JSON answers to ``bodies`` POSTed on one connection, all written before any
    answer is read (HTTP/1.1 pipelining: answered in order), so a thousand cost one round
    trip instead of a thousand."""
    where = urlsplit(url)
    with socket.create_connection((where.hostname, where.port), timeout=30) as sock:
        sent = []
        for body in bodies:
            data = json.dumps(body).encode()
            lines = [f"POST {where.path} HTTP/1.1", f"host: {where.netloc}",
                     f"content-length: {len(data)}", *(f"{k}: {v}" for k, v in headers.items())]
            sent.append(("\r\n".join(lines) + "\r\n\r\n").encode() + data)
        sock.sendall(b"".join(sent))
        reader = sock.makefile("rb")
        answers = []
        for _ in bodies:
            status = reader.readline()
            assert status.startswith(b"HTTP/1.1 200"), status
            length = None
            while (line := reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            assert length is not None, "a pipelined answer without Content-Length"
            answers.append(json.loads(reader.read(length)))
        return answers


def test_subscriptions_are_per_session(url: str, tmp_path: Path) -> None:
    with httpx.Client(timeout=30) as client:
        a, b, c = session(client, url), session(client, url), session(client, url)
        b_stream = Events("GET", url, b)
        c_stream = Events("GET", url, c)
        runbook = "toolhost://kb/runbook"
        assert rpc(client, url, b, "resources/subscribe", {"uri": runbook})["answer"][
            "result"] == {}
        # A fills its own 1,000 subscriptions and unsubscribes B's URI: B is untouched
        answers = pipelined(url, a, [{"jsonrpc": "2.0", "id": i, "method": "resources/subscribe",
                                      "params": {"uri": f"w://{i}"}} for i in range(1000)])
        assert all(answer.get("result") == {} for answer in answers), answers[:3]
        full = rpc(client, url, a, "resources/subscribe", {"uri": "w://x"})["answer"]
        assert "at most 1,000 subscriptions" in full["error"]["message"]
        assert rpc(client, url, b, "resources/subscribe", {"uri": "w://b"})["answer"][
            "result"] == {}
        assert rpc(client, url, a, "resources/unsubscribe", {"uri": runbook})["answer"][
            "result"] == {}
        time.sleep(0.3)  # the watcher (every 0.1 s here) notes the file first
        touch(tmp_path / "runbook.md", "# Deploy v2\n")
        note = b_stream.wait_for("notifications/resources/updated")
        assert note["params"]["uri"] == runbook
        # C never asked: had it been told, it would have been told with B
        assert "notifications/resources/updated" not in c_stream.methods(0.5)


def test_log_levels_are_per_session(url: str) -> None:
    with httpx.Client(timeout=30) as client:
        a, b = session(client, url), session(client, url)
        call = {"name": "chatty", "arguments": {}}
        heard = rpc(client, url, b, "tools/call", call)["notes"]
        assert any(n["params"]["data"] == "halfway" for n in heard)  # info, the default
        assert rpc(client, url, a, "logging/setLevel", {"level": "emergency"})["answer"][
            "result"] == {}
        heard = rpc(client, url, b, "tools/call", call)["notes"]
        assert any(n["params"]["data"] == "halfway" for n in heard)  # B still hears info
        assert not rpc(client, url, a, "tools/call", call)["notes"]  # A hears nothing
        rpc(client, url, a, "logging/setLevel", {"level": "debug"})
        heard = rpc(client, url, b, "tools/call", call)["notes"]
        assert not any("starting" in str(n["params"]["data"]) for n in heard)


def test_listen_streams_of_one_id_are_separate(url: str, tmp_path: Path) -> None:
    runbook = "toolhost://kb/runbook"
    listen = {"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": [runbook]}, "_meta": MODERN}}
    headers = {**HEADERS, "mcp-protocol-version": "2026-07-28",
               "mcp-method": "subscriptions/listen"}
    victim = Events("POST", url, headers, listen)
    victim.wait_for("notifications/subscriptions/acknowledged")
    other = Events("POST", url, headers, listen)  # any client may number its listen 1
    other.wait_for("notifications/subscriptions/acknowledged")
    # the other client leaves: its stream ends, the victim's must not
    with httpx.stream("POST", url, headers=headers, json=listen, timeout=10) as gone:
        next(gone.iter_lines())
    time.sleep(0.3)  # the watcher (every 0.1 s here) notes the file first
    touch(tmp_path / "runbook.md", "# Deploy v2\n")
    note = victim.wait_for("notifications/resources/updated")
    assert note["params"]["uri"] == runbook
    assert note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 1
    other.wait_for("notifications/resources/updated")  # and the other stream too


def test_delete_ends_the_session(url: str) -> None:
    with httpx.Client(timeout=30) as client:
        a = session(client, url)
        stream = Events("GET", url, a)
        time.sleep(0.5)
        assert client.delete(url, headers=a).status_code == 204
        assert stream.ended.wait(10), "the session's GET stream stayed open"
        after = client.post(url, headers=a, json={"jsonrpc": "2.0", "id": 2,
                                                  "method": "ping"})
        assert after.status_code == 404 and "session" in after.json()["error"]["message"]
        assert client.delete(url, headers=a).status_code == 404
        assert client.get(url, headers=a).status_code == 404
        b = session(client, url)  # other sessions go on
        assert rpc(client, url, b, "ping")["answer"]["result"] == {}
