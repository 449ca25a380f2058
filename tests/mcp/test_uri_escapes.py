"""A URI whose percent-escapes are not UTF-8 (``t://%ff``): decoded leniently both ``%FF``
and ``%FE`` became U+FFFD, two URIs read as one value (one rule's decision, one backend
argument). It is -32602 naming the URI and the escapes, never a read of U+FFFD."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from toolhost.mcp import McpServer
from toolhost.serve.served import ServedServer

from .mcp_testtools import MODERN_META, ask, content_server

CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      docs: {directory: docs, uri: "docs://kb"}
      t: {uri: "t://{id}", python: "esc_mod:fetch"}
      p: {uri: "p://{+path}", python: "esc_mod:fetch"}
"""
MODULE = "def fetch(id: str = '', path: str = '') -> str:\n    return 'got ' + id + path\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    root = tmp_path_factory.mktemp("esc")
    (root / "docs").mkdir()
    (root / "docs" / "\u00e9.md").write_text("accent")
    return content_server(root, CONFIG, {"esc_mod": MODULE})


# a lone byte, a cut character, a continuation with no lead, an overlong "/", an encoded
# surrogate, a valid character followed by a bad byte
BAD = [("%ff", "%ff"), ("%FE", "%FE"), ("a%C3", "%C3"), ("%80b", "%80"), ("%C0%AF", "%C0%AF"),
       ("%ED%A0%80", "%ED%A0%80"), ("%C3%A9%FF", "%C3%A9%FF"), ("%C3x%A9", "%C3")]


@pytest.mark.parametrize("method", ["resources/read", "resources/subscribe"])
@pytest.mark.parametrize("template", ["t://{}", "p://a/{}", "docs://kb/{}"])
@pytest.mark.parametrize(("value", "named"), BAD)
def test_escapes_that_are_not_utf8_are_invalid_params(server: McpServer, method: str,
                                                      template: str, value: str,
                                                      named: str) -> None:
    uri = template.format(value)
    answer = ask(server, method, {"uri": uri})
    assert answer.get("error", {}).get("code") == -32602, answer
    assert repr(uri) in answer["error"]["message"]
    assert named in answer["error"]["message"]


@pytest.mark.parametrize(("uri", "text"), [("t://%C3%A9", "got \u00e9"),
                                           ("t://%e2%82%ac", "got \u20ac"),
                                           ("docs://kb/%C3%A9.md", "accent"),
                                           ("t://%25ff", "got %ff")])
def test_escapes_of_utf8_are_read(server: McpServer, uri: str, text: str) -> None:
    answer = ask(server, "resources/read", {"uri": uri})
    assert answer["result"]["contents"][0]["text"] == text, answer


def test_a_listen_stream_with_an_escape_that_is_not_utf8_is_refused(server: McpServer
                                                                     ) -> None:
    served = ServedServer(server, {})

    async def notify(message: dict[str, Any]) -> None:
        raise AssertionError("no stream opens")

    async def go() -> dict[str, Any] | None:
        return await served.handle({
            "jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": {
                "_meta": MODERN_META,
                "notifications": {"resourceSubscriptions": ["t://a", "t://%ff"]}}},
            notify=notify)
    answer = anyio.run(go)
    assert answer is not None and answer["error"]["code"] == -32602, answer
    assert "resourceSubscriptions[1]" in answer["error"]["message"]
    assert "%ff" in answer["error"]["message"]
