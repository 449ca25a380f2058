"""A URI (or a value a URI is made of) holding a lone surrogate: JSON can spell one
(``"\\ud800"``), no URI can carry it. It is -32602 saying which field, never -32603
"Internal error" with an ERROR line in the server's log per request."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from toolhost.mcp import McpServer

from .mcp_testtools import MODERN_META, ask, content_server

CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      docs: {directory: docs, uri: "docs://kb"}
      t: {uri: "t://{id}", python: "lone_mod:fetch", complete: {id: [a, b]}}
      p: {uri: "p://{+path}", python: "lone_mod:fetch"}
    prompts:
      r: {template: "{{ who }}", arguments: {who: {complete: [a, b]}}}
"""
MODULE = "def fetch(id: str = '', path: str = '') -> str:\n    return id + path\n"
S = "\ud800"
T_ID = {"type": "ref/resource", "uri": "t://{id}"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    root = tmp_path_factory.mktemp("lone")
    (root / "docs").mkdir()
    return content_server(root, CONFIG, {"lone_mod": MODULE})


@pytest.mark.parametrize(("method", "params", "field"), [
    ("resources/read", {"uri": f"t://{S}"}, "uri"),
    ("resources/read", {"uri": f"docs://kb/{S}.md"}, "uri"),
    ("resources/read", {"uri": f"p://a/b{S}"}, "uri"),
    ("resources/read", {"uri": f"docs://kb/%41{S[0]}"}, "uri"),
    ("resources/subscribe", {"uri": f"docs://kb/{S}"}, "uri"),
    ("resources/subscribe", {"uri": f"t://{S}"}, "uri"),
    ("resources/unsubscribe", {"uri": "t://\udfff"}, "uri"),
    ("completion/complete", {"ref": T_ID, "argument": {"name": "id", "value": S}},
     "argument.value"),
    ("completion/complete", {"ref": {"type": "ref/resource", "uri": f"t://{S}"},
                             "argument": {"name": "id", "value": ""}}, "ref.uri"),
    ("completion/complete", {"ref": {"type": "ref/prompt", "name": "r"},
                             "argument": {"name": "who", "value": f"x{S}"}},
     "argument.value"),
    ("completion/complete", {"ref": T_ID, "argument": {"name": "id", "value": ""},
                             "context": {"arguments": {"id": S}}}, "context.arguments.id"),
])
def test_a_lone_surrogate_is_invalid_params(server: McpServer,
                                            caplog: pytest.LogCaptureFixture, method: str,
                                            params: dict[str, Any], field: str) -> None:
    with caplog.at_level(logging.WARNING):
        answer = ask(server, method, params)
    assert answer["error"]["code"] == -32602, answer
    assert repr(field) in answer["error"]["message"]
    assert "\\ud800" in answer["error"]["message"] or "\\udfff" in answer["error"]["message"]
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    # the same server still answers (and a surrogate pair, a real character, is fine)
    assert "result" in ask(server, "resources/read", {"uri": "t://\U0001f600"})


def test_a_listen_stream_with_a_lone_surrogate_is_refused(server: McpServer) -> None:
    import anyio

    from toolhost.serve.served import ServedServer

    served = ServedServer(server, {})

    async def notify(message: dict[str, Any]) -> None:
        raise AssertionError("no stream opens")

    async def go() -> dict[str, Any] | None:
        return await served.handle({
            "jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": {
                "_meta": MODERN_META,
                "notifications": {"resourceSubscriptions": ["t://a", f"t://{S}"]}}},
            notify=notify)
    answer = anyio.run(go)
    assert answer is not None and answer["error"]["code"] == -32602, answer
    assert "resourceSubscriptions[1]" in answer["error"]["message"]
