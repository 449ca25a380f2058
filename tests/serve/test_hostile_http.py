"""``toolhost serve --transport http`` against hostile requests (a real process, raw sockets).

Every fault gets a JSON answer with a 4xx status (never a 500, never a traceback), the
next honest call is answered, half-sent requests are closed after their deadline, and the
process stays small.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.mcp.test_mcp_hostile import fields as jsonrpc_messages
from tests.serve.conftest import http_server

from .hostile_corpus import FAULTS, MIB, SERVE_LIMITS, call, honest, write_config

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
BOTH = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
TIMEOUTS = ["--header-timeout", "2", "--body-timeout", "2", "--max-connections", "100"]


def env() -> dict[str, str]:
    paths = [str(HERE), str(ROOT), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p),
            "TOOLHOST_DEBUG": ""}


class Served:
    def __init__(self, url: str, log: Path) -> None:
        self.url = url
        self.log = log
        parts = urlsplit(url)
        self.addr = (parts.hostname or "127.0.0.1", parts.port or 80)
        # A fresh connection per request: the server closes an idle kept-alive connection
        # after --header-timeout, and a request racing that close would fail in the client
        # (as with any server's keep-alive timeout), which is not what these tests measure.
        self.client = httpx.Client(timeout=15, limits=httpx.Limits(max_keepalive_connections=0))

    def post(self, body: bytes, headers: dict[str, str] | None = None) -> httpx.Response:
        return self.client.post(self.url, content=body, headers={**BOTH, **(headers or {})})

    def honest(self, n: int) -> None:
        response = self.post(honest(n))
        assert response.status_code == 200, response.text[:500]
        assert answer_of(response)["result"]["content"][0]["text"] == f"honest-{n}"

    def connect(self) -> socket.socket:
        return socket.create_connection(self.addr, timeout=15)

    def quiet(self) -> None:
        text = self.log.read_text(errors="replace")
        assert "Traceback" not in text, text[-3000:]

    def pid(self) -> int:
        for line in self.log.read_text().splitlines():
            if line.startswith("pid "):
                return int(line.split()[1])
        raise AssertionError("no pid line")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("http")
    config = write_config(tmp / "bb.yaml")
    log = tmp / "server.log"
    # The shell prints the server's pid (exec keeps it) so the test can read its memory.
    argv = ["sh", "-c", 'echo "pid $$" >&2; exec "$@"', "sh", sys.executable, "-m", "toolhost",
            "serve", str(config), "--transport", "http", "--port", "0", *SERVE_LIMITS,
            *TIMEOUTS]
    with http_server(argv, log, env=env()) as url:
        the = Served(url, log)
        try:
            yield the
        finally:
            the.client.close()


def read_all(sock: socket.socket, limit: float = 15.0) -> bytes:
    """Everything the server sends until it closes the connection (or ``limit`` seconds)."""
    sock.settimeout(limit)
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except (ConnectionResetError, TimeoutError):
        pass
    return data


def answer_of(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC answer of a response: its JSON body, or the SSE event with an id (a
    call that logged on the way answers as an event stream)."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        events = [json.loads(line[len("data: "):]) for line in response.text.splitlines()
                  if line.startswith("data: ")]
        for event in events:
            assert "Traceback" not in json.dumps(event)
        answers = [e for e in events if "id" in e]
        assert len(answers) == 1, events
        return answers[0]
    answer: dict[str, Any] = response.json()
    return answer


def status_of(raw: bytes) -> int:
    return int(raw.split(b" ", 2)[1]) if raw.startswith(b"HTTP/1.1 ") else 0


@pytest.mark.parametrize("name,fault", FAULTS, ids=[n for n, _ in FAULTS])
def test_fault_then_an_honest_call(served: Served, name: str, fault: bytes) -> None:
    response = served.post(fault)
    # (409: an answer no question waits for)
    assert response.status_code in (200, 202, 400, 404, 409), (response.status_code,
                                                               response.text[:300])
    if response.content:
        answer = answer_of(response)
        assert len(response.content) < 150_000
        if "error" in answer:
            assert len(answer["error"]["message"]) < 1000
    served.honest(FAULTS.index((name, fault)))
    served.quiet()


def test_an_oversize_body_is_refused_before_it_is_read(served: Served) -> None:
    with served.connect() as sock:
        sock.sendall(f"POST /mcp HTTP/1.1\r\nHost: {served.addr[0]}\r\n"
                     "Content-Type: application/json\r\nContent-Length: 400000000\r\n\r\n{"
                     .encode())
        raw = read_all(sock)
    assert status_of(raw) == 413, raw[:300]
    assert b"the body is 400,000,000 bytes; the limit is 4,194,304" in raw
    served.honest(7000)


def test_a_streamed_body_over_the_limit_is_cut_off(served: Served) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(12):
            yield b" " * MIB

    response = served.client.post(served.url, content=chunks(), headers=BOTH)
    assert response.status_code == 413
    assert "over 4,194,304" in response.json()["error"]["message"]
    served.honest(7001)


def test_an_argument_over_the_limit_is_invalid_params(served: Served) -> None:
    response = served.post(call("echo", {"text": "a" * (2 * MIB)}, request_id="big"))
    assert response.json()["error"]["code"] == -32602
    assert "the limit is 1,048,576" in response.json()["error"]["message"]


def test_a_huge_wrong_argument_is_not_echoed(served: Served) -> None:
    response = served.post(call("echo", {"text": ["q" * 900_000]}, request_id="w"))
    text = response.json()["result"]["content"][0]["text"]
    assert "more characters" in text and len(text) < 1000
    assert len(response.content) < 5000


def test_a_body_sent_too_slowly_gets_408(served: Served) -> None:
    with served.connect() as sock:
        sock.sendall(f"POST /mcp HTTP/1.1\r\nHost: {served.addr[0]}\r\n"
                     "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a\""
                     .encode())
        raw = read_all(sock)
    assert status_of(raw) == 408, raw[:300]
    served.honest(7002)


def test_half_sent_headers_are_closed_after_the_deadline_and_others_are_served(
        served: Served) -> None:
    slow = []
    for i in range(80):
        sock = served.connect()
        sock.sendall(f"POST /mcp HTTP/1.1\r\nHost: {served.addr[0]}\r\nX-Slow-{i}: ".encode())
        slow.append(sock)
    try:
        served.honest(7003)  # while 80 half-sent requests are open
        for sock in slow:  # the deadline is 2 s; allow the shared machine a lot more
            sock.settimeout(15.0)
            with contextlib.suppress(ConnectionResetError):  # a reset is closed too
                assert sock.recv(1024) == b""  # closed by the server, nothing said
    finally:
        for sock in slow:
            sock.close()
    served.honest(7004)


def test_over_the_connection_limit_is_503_until_connections_close(served: Served) -> None:
    idle = [served.connect() for _ in range(110)]
    try:
        time.sleep(0.5)
        refused = served.client.post(served.url, content=honest(7005), headers=BOTH)
        assert refused.status_code == 503
    finally:
        for sock in idle:
            sock.close()
    deadline = time.monotonic() + 10
    while True:
        response = served.post(honest(7006))
        if response.status_code == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert response.status_code == 200


def test_a_header_flood_is_refused(served: Served) -> None:
    with served.connect() as sock:
        headers = "".join(f"X-Flood-{i}: {'v' * 100}\r\n" for i in range(2000))
        # Refused while still sending (a reset) is as good as a 400.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(f"POST /mcp HTTP/1.1\r\nHost: {served.addr[0]}\r\n{headers}"
                         "Content-Length: 2\r\n\r\n{}".encode())
        raw = read_all(sock)
    assert raw == b"" or status_of(raw) in (400, 431), raw[:200]
    served.honest(7007)


@pytest.mark.parametrize("host,origin,status", [
    ("evil.example.com", None, 421),
    ("evil.example.com:8765", None, 421),
    ("localhost:{port}", None, 200),
    ("127.0.0.1:{port}", None, 200),
    ("[::1]:{port}", None, 200),
    ("localhost:{port}", "http://evil.example.com", 403),
    ("localhost:{port}", "null", 403),
    ("localhost:{port}", "http://localhost:3000", 200),
])
def test_host_and_origin_are_both_checked(served: Served, host: str, origin: str | None,
                                          status: int) -> None:
    headers = {"host": host.format(port=served.addr[1])}
    if origin is not None:
        headers["origin"] = origin
    response = served.post(honest(7100), headers)
    assert response.status_code == status, response.text[:300]
    if status != 200:
        assert "error" in response.json()


def test_wrong_content_type_accept_and_session(served: Served) -> None:
    assert served.post(honest(1), {"content-type": "text/plain"}).status_code == 415
    assert served.post(honest(1), {"accept": "text/html"}).status_code == 406
    unknown = served.post(honest(1), {"mcp-session-id": "s" * 5000})
    assert unknown.status_code == 404 and len(unknown.content) < 1000
    assert served.client.get(served.url, headers={"accept": "text/event-stream"}
                             ).status_code == 405
    assert served.client.delete(served.url, headers={"mcp-session-id": "nope"}
                                ).status_code == 404


@pytest.mark.parametrize("coding", ["gzip", "deflate", "br", "gzip, identity"])
def test_a_compressed_body_is_refused_by_name(served: Served, coding: str) -> None:
    # a gzip bomb never inflates: compressed bodies are refused before they are read
    bomb = gzip.compress(b" " * (8 * MIB))
    response = served.post(bomb, {"content-encoding": coding})
    assert response.status_code == 415, response.text[:300]
    assert response.headers["accept-encoding"] == "identity"
    assert f"Content-Encoding {coding!r}" in response.json()["error"]["message"]
    assert served.post(honest(5), {"content-encoding": "identity"}).status_code == 200
    served.honest(6)


def test_the_process_stays_small_and_quiet(served: Served) -> None:
    served.honest(7200)
    served.quiet()
    status = Path(f"/proc/{served.pid()}/status").read_text()
    peak_kb = next(int(line.split()[1]) for line in status.splitlines()
                   if line.startswith("VmHWM:"))
    assert peak_kb < 500 * 1024




header_text = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126),
                      max_size=60).map(str.strip)
bodies = (jsonrpc_messages.map(lambda m: json.dumps(m).encode()) | st.binary(max_size=300)
          | st.integers(min_value=1, max_value=5000).map(lambda n: b"[" * n + b"]" * n))
headers = st.fixed_dictionaries({}, optional={
    "content-type": st.sampled_from(["application/json", "text/plain", "application/x+json",
                                     ""]) | header_text,
    "accept": st.sampled_from(["application/json", "text/event-stream", "*/*", "text/html",
                               "application/json;q=0"]) | header_text,
    "mcp-protocol-version": st.sampled_from(["2026-07-28", "2025-11-25"]) | header_text,
    "mcp-method": st.sampled_from(["tools/call", "ping"]) | header_text,
    "mcp-name": header_text, "mcp-session-id": header_text, "origin": header_text,
    "authorization": header_text})


@settings(max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                  HealthCheck.too_slow])
@given(body=bodies, extra=headers)
def test_property_any_post_is_answered_and_the_next_call_too(served: Served, body: bytes,
                                                             extra: dict[str, str]) -> None:
    response = served.client.post(served.url, content=body, headers=extra)
    assert response.status_code in (200, 202, 400, 403, 404, 406, 409, 413, 415), (
        response.status_code, response.text[:300])
    if response.content and response.status_code != 202:
        answer = answer_of(response)
        assert answer["jsonrpc"] == "2.0"
        if "error" in answer:
            assert len(answer["error"]["message"]) < 1000
    served.honest(9999)
