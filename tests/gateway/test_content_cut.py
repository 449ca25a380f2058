"""An upstream's resources/read and prompts/get answers are cut like a tool's answer
(40,000 characters in all, with the output-cut note; a blob that does not fit whole becomes a
note) when served through ``toolhost serve`` to the official client; and the cut itself, as
a table of shapes."""

from __future__ import annotations

import base64
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from toolhost.gateway.content_cut import MAX_CHARS, cut_contents, cut_messages

from .conftest import UPSTREAM

NOTE = "[toolhost: output cut"


def _config(tmp_path: Path) -> StdioServerParameters:
    path = tmp_path / "big.yaml"
    path.write_text(f"""\
toolhost: 1
servers:
  notes:
    mcp:
      command: [{sys.executable}, {UPSTREAM}, stdio]
      env: {{UPSTREAM_CONTENT: "1", UPSTREAM_BIG: "1"}}
permissions: {{default: allow}}
""")
    return StdioServerParameters(command=sys.executable, env=dict(os.environ),
                                 args=["-m", "toolhost", "serve", str(path)])


@pytest.mark.anyio
async def test_an_upstream_read_and_prompt_are_cut_at_the_output_limit(tmp_path: Path) -> None:
    """One serve, probed at each size (under, at and just over the limit, and far over)."""
    async with Client(_config(tmp_path), mode="legacy") as client:
        for size in (10, MAX_CHARS, MAX_CHARS + 1, 200_000, 2_000_000):
            [text] = (await client.read_resource(f"notes://big/{size}")).contents
            got = await client.get_prompt("long", {"n": str(size), "parts": "3"})
            blob = (await client.read_resource(f"notes://blob/{size}")).contents
            _check_cut(size, text.text, [m.content.text for m in got.messages], blob)


def _check_cut(size: int, shown: str, texts: list[str], blob: Any) -> None:
    if size <= MAX_CHARS:
        assert shown == "B" * size and NOTE not in shown, size
    else:
        assert shown.startswith("B" * 1000) and NOTE in shown, size
        assert shown.count("B") == MAX_CHARS and len(shown) < MAX_CHARS + 500, size
    if 3 * (size + 1) <= MAX_CHARS:
        assert len(texts) == 3 and NOTE not in "".join(texts), size
    else:
        assert NOTE in texts[-1] and "".join(texts).count("P") < MAX_CHARS, size
    encoded = (size + 2) // 3 * 4
    if encoded <= MAX_CHARS:
        assert base64.b64decode(blob[0].blob) == b"\x00" * size, size
    else:
        assert NOTE in blob[0].text and "left out" in blob[0].text, size


def _contents(*sizes: tuple[str, int]) -> list[dict[str, Any]]:
    return [{"uri": f"x://{i}", "mimeType": "text/plain", kind: "A" * n}
            for i, (kind, n) in enumerate(sizes)]


@pytest.mark.parametrize(("sizes", "kept_chars", "noted"), [
    ((("text", 100),), 100, False),
    ((("text", MAX_CHARS),), MAX_CHARS, False),
    ((("text", MAX_CHARS + 1),), MAX_CHARS, True),
    ((("text", 30_000), ("text", 30_000)), MAX_CHARS, True),
    ((("text", 30_000), ("blob", 30_000)), 30_000, True),
    ((("blob", 50_000),), 0, True),
    ((("blob", 100), ("text", 100)), 200, False),
    ((("text", 10), ("text", 10), ("text", 10)), 30, False),
])
def test_cut_contents(sizes: tuple[tuple[str, int], ...], kept_chars: int,
                      noted: bool) -> None:
    out = cut_contents(_contents(*sizes), "x://0")
    joined = "".join(str(e.get("text", "")) + str(e.get("blob", "")) for e in out)
    assert joined.count("A") == kept_chars
    assert (NOTE in joined) is noted
    assert all(e["uri"].startswith("x://") for e in out)


def _messages(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"description": "d", "messages": [
        {"role": "user" if i % 2 == 0 else "assistant", "content": b}
        for i, b in enumerate(blocks)]}


@pytest.mark.parametrize(("blocks", "kept_chars", "kept_messages", "noted"), [
    (({"type": "text", "text": "A" * 10},), 10, 1, False),
    (({"type": "text", "text": "A" * (MAX_CHARS + 5)},), MAX_CHARS, 1, True),
    (({"type": "text", "text": "A" * 30_000}, {"type": "text", "text": "A" * 30_000},
      {"type": "text", "text": "A" * 30_000}), MAX_CHARS, 2, True),
    (({"type": "image", "data": "A" * 50_000, "mimeType": "image/png"},), 0, 1, True),
    (({"type": "text", "text": "A" * 100},
      {"type": "audio", "data": "A" * 100, "mimeType": "audio/wav"}), 200, 2, False),
    (({"type": "resource", "resource": {"uri": "x://r", "text": "A" * 60_000}},),
     MAX_CHARS, 1, True),
    (({"type": "text", "text": "A" * 39_990},
      {"type": "resource", "resource": {"uri": "x://r", "blob": "A" * 100}},
      {"type": "text", "text": "A"}), 39_990, 2, True),
])
def test_cut_messages(blocks: tuple[dict[str, Any], ...], kept_chars: int,
                      kept_messages: int, noted: bool) -> None:
    answer = _messages(*blocks)
    out = cut_messages(answer)
    assert out["description"] == "d"
    assert len(out["messages"]) == kept_messages
    joined = str(out["messages"])
    assert joined.count("A") == kept_chars
    assert (NOTE in joined) is noted
    assert [m["role"] for m in out["messages"]] == \
        [m["role"] for m in answer["messages"]][:kept_messages]
    if not noted:
        assert out == answer
