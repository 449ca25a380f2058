"""A forged pagination cursor of any size and shape is refused with -32602 whose message
quotes at most its start, on every paginated list."""

from __future__ import annotations

import base64
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.mcp.test_prompt_guard import _Prompt
from toolhost.compile.content import ServerContent
from toolhost.mcp.server import McpServer

LISTS = ["tools/list", "prompts/list"]


def _core() -> McpServer:
    return McpServer("kb", "1", [],
                     content=ServerContent(prompts={"p": _Prompt("p")}))


def _answer(core: McpServer, method: str, cursor: Any) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        out = await core.handle({"jsonrpc": "2.0", "id": 1, "method": method,
                                 "params": {"cursor": cursor}})
        assert out is not None
        return out
    return anyio.run(go)


FORGED = [
    "x" * 1_000_000,
    base64.urlsafe_b64encode(b"A" * 600_000).decode(),
    base64.urlsafe_b64encode(b"toolhost-page:" + b"9" * 100_000).decode(),
    "\u00e9" * 100_000,
    "=" * 5000,
]


@pytest.mark.parametrize("method", LISTS)
@pytest.mark.parametrize("cursor", FORGED, ids=range(len(FORGED)))
def test_a_forged_cursor_is_refused_briefly(method: str, cursor: str) -> None:
    answer = _answer(_core(), method, cursor)
    assert answer["error"]["code"] == -32602, str(answer)[:300]
    assert len(answer["error"]["message"]) < 400


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=101, max_size=3000))
def test_property_no_cursor_is_echoed_whole(cursor: str) -> None:
    core = _core()
    for method in LISTS:
        answer = _answer(core, method, cursor)
        assert len(answer.get("error", {}).get("message", "")) < 400
