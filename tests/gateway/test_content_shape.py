"""What surrounds the texts of an upstream's resource read or prompt is bounded too: a
content's ``mimeType`` and ``_meta``, a prompt message's content ``_meta``, an embedded
resource's ``uri`` and ``mimeType``, a resource link's fields (before, an upstream
sent megabytes of them to the client beside a one-letter text the 40,000-character cut
measured)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio

from toolhost.backends.base import CallContext
from toolhost.gateway.client import UpstreamConnection
from toolhost.gateway.passthrough import UpstreamPrompt, _read
from toolhost.gateway.spec import UpstreamSpec

from .conftest import HOSTILE

N = 300_000  # characters of each field around a text


def _connection() -> UpstreamConnection:
    spec = UpstreamSpec(command=(sys.executable, str(HOSTILE)), connect_timeout=20.0,
                        env={"HOSTILE_MODE": "own_scheme,fat_read", "HOSTILE_N": str(N)})
    return UpstreamConnection(spec, "h")


def test_a_reads_contents_keep_only_what_mcp_defines_bounded(tmp_path: Path) -> None:
    upstream = _connection()
    try:
        contents = anyio.run(_read, upstream, "x://t/ok")
    finally:
        upstream.close()
    assert len(json.dumps(contents)) < 3_000  # before: over 900,000
    [content] = contents
    assert content["text"] == "t" and set(content) == {"uri", "mimeType", "text"}
    assert content["uri"].startswith("x://t/okUUU") and len(content["mimeType"]) < 300


def test_a_prompts_messages_keep_only_what_mcp_defines_bounded(tmp_path: Path) -> None:
    upstream = _connection()
    try:
        answer = anyio.run(UpstreamPrompt(upstream, "p", {"name": "p"}).get, {},
                           CallContext())
    finally:
        upstream.close()
    assert len(json.dumps(answer)) < 10_000  # before: over 2,400,000
    assert set(answer) == {"description", "messages"}
    text, embedded, link = answer["messages"]
    assert text == {"role": "user", "content": {"type": "text", "text": "t"}}
    assert embedded["content"]["resource"]["text"] == "t"
    assert set(embedded["content"]) == {"type", "resource"}
    assert set(embedded["content"]["resource"]) == {"uri", "mimeType", "text"}
    assert link["content"]["type"] == "resource_link"
    assert all(len(str(v)) < 2_100 for v in link["content"].values())
