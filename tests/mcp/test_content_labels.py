"""``resources/read`` answers with contents labelled with the URI that was read (and decided
by the rules): what a backend labels with another URI (``file:///etc/passwd`` for
``notes://a``, another declared resource, a non-string, a huge one), or with none, or with
another spelling of the same URI, reaches the client labelled with the URI read."""

from __future__ import annotations

import pytest

from toolhost.mcp import McpServer

from .mcp_testtools import content_server, read

MODULE = '''\
from toolhost.results import ToolResult


def labelled(id: str) -> ToolResult:
    uri = {"passwd": "file:///etc/passwd", "other": "notes://b", "none": None,
           "same": "notes://same", "spelled": "NOTES://%73pelled", "list": ["x"],
           "huge": "notes://" + "a" * 200_000}[id]
    inner = {"mimeType": "text/plain", "text": "root:x:0:0"}
    if uri is not None:
        inner["uri"] = uri
    return ToolResult(content=[{"type": "text", "text": "first"},
                               {"type": "resource", "resource": inner}])
'''
CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      notes: {uri: "notes://{id}", python: "labelmod:labelled"}
      other: {file: other.md, uri: "notes://b"}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    root = tmp_path_factory.mktemp("labels")
    (root / "other.md").write_text("other\n")
    return content_server(root, CONFIG, {"labelmod": MODULE})


@pytest.mark.parametrize("label", ["passwd", "other", "list", "huge", "none", "same",
                                   "spelled"])
def test_contents_carry_the_uri_read(server: McpServer, label: str) -> None:
    answer = read(server, f"notes://{label}")
    contents = answer["result"]["contents"]
    assert [c["uri"] for c in contents] == [f"notes://{label}"] * 2
    assert contents[1]["text"] == "root:x:0:0"
    assert "etc/passwd" not in str(answer) and "aaaa" not in str(answer)
