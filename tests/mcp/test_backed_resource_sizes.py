"""A resource a python function (or any backend) produces is read whole up to the
resource's ``max_bytes`` (default 1,000,000), not cut at a tool's 40,000 characters with a
note telling the model to "call the tool again"; past ``max_bytes`` the read is refused,
never answered with the head of the function's JSON as an error message."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from toolhost.mcp import McpServer

from .mcp_testtools import content_server, read

MODULE = '''\
def text(x: str) -> str:
    return "x" * int(x)

def listed(x: str) -> list:
    return ["y" * 10] * (int(x) // 14)

def wide(x: str) -> str:
    return "\u00e9" * int(x)  # two bytes each in UTF-8
'''


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    return content_server(tmp_path_factory.mktemp("backedsizes"), """\
toolhost: 1
servers:
  kb:
    resources:
      text: {uri: "text://{x}", python: "backedsizes:text"}
      listed: {uri: "listed://{x}", python: "backedsizes:listed"}
      small: {uri: "small://{x}", python: "backedsizes:text", max_bytes: 50000}
      smallist: {uri: "smallist://{x}", python: "backedsizes:listed", max_bytes: 50000}
      wide: {uri: "wide://{x}", python: "backedsizes:wide", max_bytes: 50000}
""", {"backedsizes": MODULE})


@pytest.mark.parametrize("uri", ["text://100000", "listed://280000", "small://50000",
                                 "smallist://49000", "wide://25000"])
def test_a_backed_resource_is_read_whole_up_to_max_bytes(server: McpServer, uri: str) -> None:
    [entry] = read(server, uri)["result"]["contents"]
    assert "toolhost: output cut" not in entry["text"]
    assert len(entry["text"]) >= int(uri.rsplit("/", 1)[1]) * 0.9


@pytest.mark.parametrize("uri", ["small://50001", "small://200000", "smallist://60000",
                                 "smallist://2000000",
                                 "wide://25001"])  # 25,001 characters, 50,002 bytes
def test_past_max_bytes_the_read_is_refused(server: McpServer, uri: str) -> None:
    error = read(server, uri)["error"]
    assert error["code"] == -32603
    assert error["message"] == (f"{uri} is larger than its limit of 50,000 bytes (raise the "
                                "resource's max_bytes)")


def test_a_function_returning_json_is_labelled_json(tmp_path: Path) -> None:
    """A dict or a list a python function returns is read as its JSON text, labelled
    application/json (text/plain for a string; the config's mime_type wins)."""
    server = content_server(tmp_path, """\
toolhost: 1
servers:
  kb:
    resources:
      obj: {uri: "obj://{x}", python: "jsonlabel:obj"}
      lst: {uri: "lst://{x}", python: "jsonlabel:lst"}
      txt: {uri: "txt://{x}", python: "jsonlabel:txt"}
      own: {uri: "own://{x}", python: "jsonlabel:obj", mime_type: application/vnd.x+json}
      pdf: {uri: "pdf://{x}", python: "jsonlabel:pdf", mime_type: application/x-thing}
      raw: {uri: "raw://{x}", python: "jsonlabel:pdf"}
      png: {uri: "png://{x}", python: "jsonlabel:png", mime_type: application/pdf}
""", {"jsonlabel": "def obj(x: str):\n    return {'x': x}\n\n"
                   "def lst(x: str):\n    return [x]\n\ndef txt(x: str):\n    return x\n\n"
                   "def pdf(x: str) -> bytes:\n    return b'TH1\\x00\\xff'\n\n"
                   "def png(x: str) -> bytes:\n"
                   "    return b'\\x89PNG\\r\\n\\x1a\\n' + bytes(8)\n"})
    shown = {uri: read(server, uri)["result"]["contents"][0]
             for uri in ("obj://a", "lst://a", "txt://a", "own://a")}
    assert shown["obj://a"]["mimeType"] == "application/json"
    assert json.loads(shown["obj://a"]["text"]) == {"x": "a"}
    assert shown["lst://a"]["mimeType"] == "application/json"
    assert shown["txt://a"] == {"uri": "txt://a", "mimeType": "text/plain", "text": "a"}
    assert shown["own://a"]["mimeType"] == "application/vnd.x+json"
    # bytes nothing recognised are what the config's mime_type says (they were
    # application/octet-stream whatever it said); bytes that show their type keep it
    binary = {uri: read(server, uri)["result"]["contents"][0]
              for uri in ("pdf://a", "raw://a", "png://a")}
    assert binary["pdf://a"]["mimeType"] == "application/x-thing"
    assert base64.b64decode(binary["pdf://a"]["blob"]) == b"TH1\x00\xff"
    assert binary["raw://a"]["mimeType"] == "application/octet-stream"
    assert binary["png://a"]["mimeType"] == "image/png"
