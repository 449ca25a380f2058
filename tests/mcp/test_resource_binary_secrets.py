"""A resource read as a blob (an image, a binary file) whose bytes hold a secret is hidden
whole: its base64 was left as it was, and a client read the secret in it (secrets16)."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.compile import compile_tools
from toolhost.config import load_config
from toolhost.mcp import McpServer
from toolhost.redaction import remember

SECRET = "sk-live-9f8e7d6c5b4a3921"
PNG = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR" + bytes(13)


@pytest.mark.parametrize(("name", "data", "hidden"), [
    ("pic.png", PNG + b"\0\0\0\x1ftEXtComment\0token=" + SECRET.encode(), True),
    ("dump.bin", b"\xff\xfe\0" + SECRET.encode() + b"\0\x01", True),
    ("pic2.png", PNG + b"\0\0\0\0IEND", False),
])
def test_a_blob_holding_a_secret_is_read_as_a_note(tmp_path: Path, name: str, data: bytes,
                                                   hidden: bool) -> None:
    remember({SECRET})
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / name).write_bytes(data)
    (tmp_path / "kb.yaml").write_text("toolhost: 1\nservers:\n  kb:\n    resources:\n"
                                      "      docs: {directory: root/, uri: \"docs://kb\"}\n")
    compiled = compile_tools(load_config(tmp_path / "kb.yaml", layers=False))
    server = McpServer("kb", "1", compiled.servers["kb"], content=compiled.content["kb"])

    async def go() -> Any:
        return await server.handle({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
                                    "params": {"uri": f"docs://kb/{name}"}})
    [entry] = anyio.run(go)["result"]["contents"]
    assert entry["uri"] == f"docs://kb/{name}"
    if hidden:
        assert entry == {"uri": f"docs://kb/{name}", "mimeType": "text/plain",
                         "text": "*** (this blob held a secret: hidden)"}
    else:
        assert base64.b64decode(entry["blob"]) == data  # other bytes as they were
