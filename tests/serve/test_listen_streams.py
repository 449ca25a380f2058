"""Listen streams cannot hurt other clients: a stream never counts against the in-flight
byte budget once acknowledged (its request is small: at most 1 MiB), a stream whose client
does not read is ended instead of holding up every notification, and the resource watcher
shares its budget among clients instead of keeping the first URIs in sort order."""

from __future__ import annotations

import itertools
import json
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlparse

import anyio
import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.modern import modern_meta
from tests.serve.conftest import http_server
from tests.serve.kb_config import KB_HEAD
from tests.serve.routing import routing

MODERN = modern_meta()
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json",
           "mcp-protocol-version": "2026-07-28"}
CONFIG = KB_HEAD + """\
    resources:
      deploy: {file: deploy.md}
permissions:
  default: allow
"""


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    (tmp_path / "deploy.md").write_text("# Deploy\n")
    (tmp_path / "kb.yaml").write_text(CONFIG)
    argv = [sys.executable, "-m", "toolhost", "serve", str(tmp_path / "kb.yaml"),
            "--transport", "http", "--port", "0", "--max-in-flight-bytes", "2000000",
            "--shutdown-grace", "2"]
    with http_server(argv, tmp_path / "server.log") as the_url:
        yield the_url


def _held_listen(url: str, pad: int) -> socket.socket:
    """A listen request padded to ``pad`` bytes on a raw connection kept open, unread."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {
        "notifications": {"toolsListChanged": True}, "_meta": {**MODERN, "pad": "x" * pad}}
    }).encode()
    where = urlparse(url)
    sock = socket.create_connection((where.hostname, where.port))
    head = "".join(f"{k}: {v}\r\n" for k, v in HEADERS.items())
    head += "mcp-method: subscriptions/listen\r\n"
    try:
        sock.sendall(f"POST {where.path} HTTP/1.1\r\nhost: {where.netloc}\r\n{head}"
                     f"content-length: {len(body)}\r\n\r\n".encode() + body)
        sock.settimeout(10)
        assert b" 200 " in sock.recv(200)  # acknowledged: the stream is open
    except BaseException:
        sock.close()
        raise
    return sock


def _post(url: str, message: dict[str, Any]) -> httpx.Response:
    return httpx.post(url, json=message, headers={**HEADERS, **routing(message)}, timeout=10)


def test_open_listen_streams_do_not_hold_the_byte_budget(url: str) -> None:
    held: list[socket.socket] = []
    try:
        for _ in range(3):  # 2.7 MB > the 2 MB budget
            held.append(_held_listen(url, 900_000))
        for n in range(3):
            answer = _post(url, {"jsonrpc": "2.0", "id": n, "method": "server/discover",
                                 "params": {"_meta": MODERN}})  # (2026-07-28 has no ping)
            assert answer.status_code == 200, answer.text
    finally:
        for sock in held:
            sock.close()


@pytest.mark.parametrize("params, fragment", [
    ({"notifications": {"toolsListChanged": True}, "_meta": {**MODERN, "pad": "x" * 1_100_000}},
     "at most 1,048,576 bytes"),
    ({"notifications": {"resourceSubscriptions": ["toolhost://kb/deploy"] * 1001},
      "_meta": MODERN}, "at most 1,000"),
    ({"notifications": {"resourceSubscriptions": ["toolhost://kb/deploy" + "x" * 8000] * 40},
      "_meta": MODERN}, "at most 262,144"),
])
def test_an_oversized_listen_is_refused(url: str, params: dict[str, Any],
                                        fragment: str) -> None:
    answer = _post(url, {"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
                         "params": params})
    error = answer.json()["error"]
    assert error["code"] == -32602 and fragment in error["message"], error


pytestmark = pytest.mark.anyio


async def test_a_stream_that_is_not_read_is_dropped_and_others_still_hear() -> None:
    from toolhost.mcp import McpServer
    from toolhost.serve.served import LISTEN_QUEUE, ServedServer

    served = ServedServer(McpServer("kb", "1.0.0", []), {})
    stuck_started = anyio.Event()
    heard: list[dict[str, Any]] = []

    async def stuck(note: dict[str, Any]) -> None:  # a client whose socket never drains
        stuck_started.set()
        await anyio.sleep_forever()

    async def reader(note: dict[str, Any]) -> None:
        heard.append(note)

    listen = {"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
              "params": {"notifications": {"toolsListChanged": True}, "_meta": MODERN}}
    answers: list[Any] = []
    async with anyio.create_task_group() as tg:
        async def open_stream(notify: Any) -> None:
            answers.append(await served.handle(listen, notify=notify))

        tg.start_soon(open_stream, stuck)
        tg.start_soon(open_stream, reader)
        with anyio.fail_after(10):
            await stuck_started.wait()
            while not heard:
                await anyio.sleep(0.01)
            for _ in range(LISTEN_QUEUE + 10):  # never waits on the stuck stream
                await served.announce()
                await anyio.sleep(0)
            while len(answers) < 1:  # the stuck stream was ended
                await anyio.sleep(0.01)
            while len(heard) < LISTEN_QUEUE + 11:
                await anyio.sleep(0.01)
        served.close()
    assert all(a["result"]["resultType"] == "complete" for a in answers)


def test_the_watcher_shares_its_budget_among_clients(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    from toolhost.serve import resource_watch

    monkeypatch.setattr(resource_watch, "MAX_WATCHED", 50)
    (tmp_path / "f").write_text("x")
    resource = SimpleNamespace(file_of=lambda uri, values: str(tmp_path / "f"))
    content = SimpleNamespace(find=lambda uri: (resource, {}))
    hogs = [[f"a://{c}/{i:04}" for i in range(1000)] for c in range(10)]
    served = SimpleNamespace(core=SimpleNamespace(content=content),
                             subscriptions_by_client=lambda: [*hogs, ["z://victim"]])
    watch = resource_watch.ResourceWatch(served)  # type: ignore[arg-type]
    start = time.perf_counter()
    wanted = watch.wanted()
    assert "z://victim" in wanted and len(wanted) == 50
    assert time.perf_counter() - start < 1.0


@settings(max_examples=200, deadline=None)
@given(clients=st.lists(st.lists(st.text("abc", min_size=1, max_size=3), max_size=8),
                        max_size=8), budget=st.integers(0, 30))
def test_in_turn_gives_every_client_its_share(clients: list[list[str]], budget: int) -> None:
    from toolhost.serve.resource_watch import in_turn

    taken = list(itertools.islice(in_turn(clients), budget))
    assert len(taken) == len(set(taken))
    assert set(taken) <= {u for uris in clients for u in uris}
    if budget >= len({u for uris in clients for u in uris}):
        assert set(taken) == {u for uris in clients for u in uris}
    share = budget // max(1, len(clients))
    for uris in clients:  # each client's first `share` URIs are in (or another's)
        assert set(uris[:share]) <= set(taken)


async def test_a_reload_that_denies_a_uri_a_stream_subscribed_to_ends_that_subscription(
        tmp_path: Path) -> None:
    """Hearing of a resource's changes is a read too: a reload (new content, new rules) that
    denies a URI a listen stream subscribed to ends that subscription, as it ends a legacy
    ``resources/subscribe``; a rule check that fails counts as a deny."""
    from toolhost.compile import compile_tools
    from toolhost.config import load_config
    from toolhost.mcp import McpServer
    from toolhost.serve.served import ServedServer

    (tmp_path / "docs").mkdir()
    for name in ("open.md", "secret.md", "odd.md"):
        (tmp_path / "docs" / name).write_text(name)
    (tmp_path / "kb.yaml").write_text("toolhost: 1\nservers:\n  kb:\n    resources:\n"
                                      "      docs: {directory: docs, uri: \"docs://kb\"}\n")
    compiled = compile_tools(load_config(tmp_path / "kb.yaml", layers=False))
    content = compiled.content["kb"]
    served = ServedServer(McpServer("kb", "1", compiled.servers["kb"], content=content), {})
    denied: set[str] = set()

    def visible(uri: str) -> bool:
        if uri.endswith("odd.md") and denied:
            raise RuntimeError("the policy broke")
        return uri not in denied
    served.core.read_visible = visible
    uris = [f"docs://kb/{name}" for name in ("open.md", "secret.md", "odd.md")]
    listen = {"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
              "params": {"notifications": {"resourceSubscriptions": uris}, "_meta": MODERN}}
    heard: list[dict[str, Any]] = []

    async def reader(note: dict[str, Any]) -> None:
        heard.append(note)

    async def open_stream() -> None:
        await served.handle(listen, notify=reader)

    async with anyio.create_task_group() as tg:
        tg.start_soon(open_stream)
        with anyio.fail_after(10):
            while not heard:  # acknowledged
                await anyio.sleep(0.01)
            await served.set_content(content)  # the same rules: every URI kept
            assert served.subscribed_uris() == set(uris)
            denied.add("docs://kb/secret.md")
            await served.set_content(content)
            assert served.subscribed_uris() == {"docs://kb/open.md"}
            for uri in uris:
                await served.resource_updated(uri)
            while len(heard) < 2:
                await anyio.sleep(0.01)
            await anyio.sleep(0.05)
        served.close()
    updated = [note["params"]["uri"] for note in heard
               if note["method"] == "notifications/resources/updated"]
    assert updated == ["docs://kb/open.md"]
