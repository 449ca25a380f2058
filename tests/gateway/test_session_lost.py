"""An HTTP upstream that no longer knows toolhost's session (HTTP 404 to its id: it expired
the session, or restarted without a GET stream to say so) gets a new session at once and the
request again, once; one that never keeps a session fails the request in one line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from toolhost.gateway.client import UpstreamConnection, UpstreamError
from toolhost.gateway.spec import UpstreamSpec

from .conftest import HOSTILE, http_upstream


@contextmanager
def _connection(mode: str, log: Path) -> Iterator[UpstreamConnection]:
    with http_upstream(HOSTILE, HOSTILE_MODE=mode, HOSTILE_LOG=str(log)) as port:
        connection = UpstreamConnection(
            UpstreamSpec(url=f"http://127.0.0.1:{port}/mcp", connect_timeout=20.0), "up")
        try:
            yield connection
        finally:
            connection.close()


def _initializes(log: Path) -> int:
    return sum(json.loads(line)["method"] == "initialize" for line in log.read_text().splitlines())


def _text(result: dict[str, object]) -> str:
    content = result["content"]
    assert isinstance(content, list)
    return str(content[0]["text"])


def test_a_lost_session_is_started_again_and_every_request_answered(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    log = tmp_path / "log"
    with _connection("forgetful", log) as upstream:
        assert [t["name"] for t in upstream.list_tools()] == ["echo"]
        assert "forget" in _text(upstream.call_tool("echo", {"text": "forget"}, 10))
        again = upstream.call_tool("echo", {"text": "after"}, 10)  # was: "Session terminated"
        assert again.get("isError") is not True and "after" in _text(again)
        assert _initializes(log) == 2
        upstream.call_tool("echo", {"text": "forget"}, 10)
        assert [t["name"] for t in upstream.list_tools()] == ["echo"]  # a listing, too
        assert _initializes(log) == 3
    assert "no longer knows its session (HTTP 404)" in caplog.text


def test_an_upstream_that_never_keeps_a_session_fails_in_one_line(tmp_path: Path) -> None:
    log = tmp_path / "log"
    with _connection("amnesiac", log) as upstream:
        for use in (upstream.list_tools, lambda: upstream.call_tool("echo", {}, 10)):
            with pytest.raises(UpstreamError, match=r"^upstream server 'up' no longer knows "
                                                    r"the session .*\(HTTP 404\)$"):
                use()
        assert _initializes(log) == 4  # each request: its session, and one more: no loop
