"""A lone surrogate (``"\\ud800"`` in JSON, which Python reads as text) in what would go to an
upstream: a call's arguments, a resource's URI, a prompt's arguments. The mcp client cannot
write it, and its transport failed while sending: the whole connection went down
("Connection closed"), with every call under way on it, and a stdio upstream was stopped and
started again. Now it is refused in one line naming its place, nothing is sent, and the
connection (the same upstream process) answers the next call."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.compile.content_kinds import PromptError, ResourceError
from toolhost.gateway.client import UpstreamConnection
from toolhost.gateway.passthrough import UpstreamPrompt, _read
from toolhost.gateway.spec import UpstreamSpec

from .conftest import HOSTILE, http_upstream


@contextmanager
def _connection(kind: str, log: Path) -> Iterator[UpstreamConnection]:
    env = {"HOSTILE_LOG": str(log), "HOSTILE_MODE": "own_scheme"}
    if kind == "stdio":
        spec = UpstreamSpec(command=(sys.executable, str(HOSTILE)), env=env,
                            connect_timeout=20.0)
        connection = UpstreamConnection(spec, "h")
        try:
            yield connection
        finally:
            connection.close()
        return
    with http_upstream(HOSTILE, **env) as port:
        connection = UpstreamConnection(
            UpstreamSpec(url=f"http://127.0.0.1:{port}/mcp", connect_timeout=20.0), "h")
        try:
            yield connection
        finally:
            connection.close()


def _methods(log: Path) -> list[str]:
    return [json.loads(line)["method"] for line in log.read_text().splitlines()]


def _text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


BAD = {
    "value": ({"text": "r\ud800m"}, "the value at text holds a lone surrogate (\\ud800)"),
    "nested": ({"text": "ok", "opts": {"tags": ["a", "\udfff"]}},
               "the value at opts.tags[1] holds a lone surrogate (\\udfff)"),
    "key": ({"text": "ok", "opts": {"k\udc00": 1}},
            "the key at opts holds a lone surrogate (\\udc00)"),
}


@pytest.mark.parametrize("kind", ["stdio", "http"])
@pytest.mark.parametrize(("arguments", "said"), list(BAD.values()), ids=list(BAD))
def test_a_lone_surrogate_in_a_call_is_refused_and_the_connection_kept(
        tmp_path: Path, kind: str, arguments: dict[str, Any], said: str) -> None:
    log = tmp_path / "log"
    with _connection(kind, log) as upstream:
        first = upstream.call_tool("echo", {"text": "a"}, 20)
        refused = upstream.call_tool("echo", arguments, 20)
        after = upstream.call_tool("echo", {"text": "b"}, 20)
    assert first.get("isError") is not True and after.get("isError") is not True
    assert refused["isError"] is True
    assert _text(refused) == (f"the call of 'echo' cannot be sent to upstream server 'h': "
                              f"{said}, which JSON text cannot carry (nothing was sent)")
    assert _methods(log).count("initialize") == 1  # before: 2, the first connection gone
    assert _methods(log).count("tools/call") == 2


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_a_lone_surrogate_in_a_read_or_a_prompt_is_refused_and_the_connection_kept(
        tmp_path: Path, kind: str) -> None:
    log = tmp_path / "log"
    with _connection(kind, log) as upstream:
        upstream.call_tool("echo", {"text": "a"}, 20)
        with pytest.raises(ResourceError, match=r"lone surrogate \(\\ud800\)"):
            anyio.run(_read, upstream, "x://t/\ud800")
        prompt = UpstreamPrompt(upstream, "p", {"name": "p"})
        with pytest.raises(PromptError, match=r"the value at a holds a lone surrogate") as got:
            anyio.run(prompt.get, {"a": "\ud800"}, CallContext())
        assert got.value.invalid
        read = anyio.run(_read, upstream, "x://t/ok")
        after = upstream.call_tool("echo", {"text": "b"}, 20)
    assert read[0]["text"] == "read x://t/ok"
    assert after.get("isError") is not True
    assert _methods(log).count("initialize") == 1


def test_a_uri_with_a_lone_surrogate_is_never_subscribed_upstream() -> None:
    from toolhost.gateway.updates import ResourceUpdates

    updates = ResourceUpdates("h")
    updates.want(["x://t/a\ud800", "x://t/b"], lambda uri: None, wake=False)
    assert updates.wanted == frozenset({"x://t/b"})
