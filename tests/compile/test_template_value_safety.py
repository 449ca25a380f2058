"""A URI template's values are decoded before a backend gets them, so a client can hand
``{name}`` a path (``notes://..%2Fsecret`` gives ``../secret``). A value that climbs out with
``..``, is absolute, or holds a NUL names no resource (-32002 saying which value and why):
the backend (a command ``cat notes/{{ name }}.md``) never runs with it."""

from __future__ import annotations

import pytest

from toolhost.compile.resource_uri import unsafe_value
from toolhost.mcp import McpServer

from ..mcp.mcp_testtools import content_server, read


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    root = tmp_path_factory.mktemp("values")
    (root / "notes").mkdir()
    (root / "notes" / "a.md").write_text("note a\n")
    (root / "secret.md").write_text("SECRET\n")
    config = f"""\
toolhost: 1
servers:
  kb:
    resources:
      note:
        uri: "notes://{{name}}"
        command: [cat, "{root}/notes/{{{{ name }}}}.md"]
      deep:
        uri: "deep://x/{{+path}}"
        command: [cat, "{root}/notes/{{{{ path }}}}"]
      show:
        uri: "show://{{a}}"
        python: "valuesafety:show"
      all:
        uri: "all://{{+a}}"
        python: "valuesafety:show"
permissions:
  default: allow
"""
    return content_server(root, config, {"valuesafety": "def show(a: str) -> str:\n"
                                                        "    return 'got ' + repr(a)\n"})


@pytest.mark.parametrize("uri, name, why", [
    ("notes://..%2Fsecret", "name", "climbs out"),
    ("notes://%2E%2E%2Fsecret", "name", "climbs out"),
    ("notes://a%2F..%2F..%2Fsecret", "name", "climbs out"),
    ("notes://..%5Csecret", "name", "climbs out"),
    ("notes://%2Fetc%2Fpasswd", "name", "absolute"),
    ("show://..", "a", "climbs out"),
    ("show://%00x", "a", "NUL"),
    ("show://%5C%5Chost%5Cshare", "a", "absolute"),
    ("show://C%3A%5Cwindows", "a", "absolute"),
])
def test_a_value_leaving_its_place_names_no_resource(server: McpServer, uri: str, name: str,
                                                     why: str) -> None:
    error = read(server, uri)["error"]
    assert error["code"] == -32002
    assert f"the value of '{name}' is refused" in error["message"] and why in error["message"]
    assert "SECRET" not in error["message"]


@pytest.mark.parametrize("uri, text", [
    ("notes://a", "note a"),
    ("deep://x/a.md", "note a"),
    ("show://a%2Fb", "got 'a/b'"),          # a "/" alone is a value like any other
    ("show://1.0..2.0", "got '1.0..2.0'"),  # ".." inside a segment climbs nowhere
    ("show://a%2F..%2Fb", "got 'a/../b'"),  # nor one that stays below where it starts
    ("all://%2Fetc%2Fhosts", "got '/etc/hosts'"),  # {+p}: the rest of the URI
])
def test_a_value_staying_in_place_is_read(server: McpServer, uri: str, text: str) -> None:
    assert text in read(server, uri)["result"]["contents"][0]["text"]


@pytest.mark.parametrize("value, refused", [
    ("a", False), ("a/b", False), ("a/./b", False), ("a/../b", False), ("..a", False),
    ("a..", False), ("", False), ("..", True), ("../a", True), ("a/../..", True),
    ("a\\..\\..\\b", True), ("/a", True), ("\\a", True), ("c:a", True), ("a\0", True),
])
def test_unsafe_value(value: str, refused: bool) -> None:
    assert (unsafe_value(value) is not None) is refused


@pytest.mark.parametrize("value, refused", [
    ("/a", False), ("\\a", False), ("c:a", False), ("/a/../..", True), ("a\0", True)])
def test_a_reserved_value_may_be_absolute(value: str, refused: bool) -> None:
    assert (unsafe_value(value, reserved=True) is not None) is refused
