"""URIs no text of UTF-8 can be: a lone surrogate (JSON can spell one, ``"\\ud800"``, no URI
can carry it) and percent-escapes that are not UTF-8 (``t://%ff``: decoded leniently, ``%FF``
and ``%FE`` both became U+FFFD, two URIs read as one value: one rule's decision, one backend
argument). Each is -32602 naming the field (and the escapes), never -32603 "Internal error"
with an ERROR line per request, never a read of U+FFFD."""

from __future__ import annotations

import logging
from typing import Any

import anyio
import pytest

from toolhost.mcp import McpServer
from toolhost.serve.served import ServedServer

from .mcp_testtools import DOCS_CONFIG, MODERN_META, ask, content_server

CONFIG = DOCS_CONFIG + """\
      t: {uri: "t://{id}", python: "uri_mod:fetch", complete: {id: [a, b]}}
      p: {uri: "p://{+path}", python: "uri_mod:fetch"}
    prompts:
      r: {template: "{{ who }}", arguments: {who: {complete: [a, b]}}}
"""
MODULE = "def fetch(id: str = '', path: str = '') -> str:\n    return id + path\n"
S = "\ud800"
T_ID = {"type": "ref/resource", "uri": "t://{id}"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    root = tmp_path_factory.mktemp("uris")
    (root / "docs").mkdir()
    (root / "docs" / "\u00e9.md").write_text("accent")
    return content_server(root, CONFIG, {"uri_mod": MODULE})


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


@pytest.mark.parametrize(("uri", "text"), [("t://%C3%A9", "\u00e9"),
                                           ("t://%e2%82%ac", "\u20ac"),
                                           ("docs://kb/%C3%A9.md", "accent"),
                                           ("t://%25ff", "%ff")])
def test_escapes_of_utf8_are_read(server: McpServer, uri: str, text: str) -> None:
    answer = ask(server, "resources/read", {"uri": uri})
    assert answer["result"]["contents"][0]["text"] == text, answer


def listened(server: McpServer, uris: list[str]) -> dict[str, Any]:
    """The answer to a listen stream asking for ``uris``' changes (no stream may open)."""
    served = ServedServer(server, {})

    async def notify(message: dict[str, Any]) -> None:
        raise AssertionError("no stream opens")

    async def go() -> dict[str, Any] | None:
        return await served.handle({
            "jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": {
                "_meta": MODERN_META, "notifications": {"resourceSubscriptions": uris}}},
            notify=notify)
    answer = anyio.run(go)
    assert answer is not None
    return answer


@pytest.mark.parametrize(("uri", "named"), [(f"t://{S}", "\\ud800"), ("t://%ff", "%ff")])
def test_a_listen_stream_with_an_unreadable_uri_is_refused(server: McpServer, uri: str,
                                                            named: str) -> None:
    answer = listened(server, ["t://a", uri])
    assert answer["error"]["code"] == -32602, answer
    assert "resourceSubscriptions[1]" in answer["error"]["message"]
    assert named in answer["error"]["message"]
