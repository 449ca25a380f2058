"""A forged pagination cursor of any size and shape is refused with -32602 whose message
quotes at most its start, on every paginated list."""

from __future__ import annotations

import base64
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.mcp.mcp_testtools import make_tool
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
    # digits to str.isdigit() that int() refuses (were -32603 and an ERROR log line each)
    base64.urlsafe_b64encode("toolhost-page:\u00b2".encode()).decode(),
    base64.urlsafe_b64encode("toolhost-page:prompts:\u00b2".encode()).decode(),
    base64.urlsafe_b64encode("toolhost-page:prompts:\u0663".encode()).decode(),  # Arabic 3
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


def test_a_cursor_is_only_a_cursor_of_its_own_list() -> None:
    prompts = {name: _Prompt(name) for name in ("a", "b", "c")}
    tools = [make_tool(name) for name in ("t1", "t2", "t3")]  # a second page of its own
    core = McpServer("kb", "1", tools, page_size=1, content=ServerContent(prompts=prompts))

    async def go() -> tuple[Any, ...]:
        first = await core.handle({"jsonrpc": "2.0", "id": 1, "method": "prompts/list"})
        assert first is not None
        cursor = first["result"]["nextCursor"]
        again = await core.handle({"jsonrpc": "2.0", "id": 2, "method": "prompts/list",
                                   "params": {"cursor": cursor}})
        other = [await core.handle({"jsonrpc": "2.0", "id": 3, "method": method,
                                    "params": {"cursor": cursor}})
                 for method in ("tools/list", "resources/list", "resources/templates/list")]
        return again, other
    again, other = anyio.run(go)
    assert [p["name"] for p in again["result"]["prompts"]] == ["b"]
    for answer in other:
        assert answer["error"]["code"] in (-32602, -32601), answer
