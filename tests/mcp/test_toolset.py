"""tools/list pages across a reload: a cursor names the tool its page follows, so a reload
that adds or removes tools before the point a client reached neither skips nor repeats a
tool (the cursor was a bare offset: a tool added at the front pushed one past the client
unseen). A cursor of a list that shrank past it is -32602, as before."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.mcp import McpServer

from .mcp_testtools import make_tool

pytestmark = pytest.mark.anyio


def tools(*names: str) -> list[Any]:
    return [make_tool(name) for name in names]


async def listed(server: McpServer, cursor: str | None, modern: bool = False
                 ) -> dict[str, Any]:
    params: dict[str, Any] = {} if cursor is None else {"cursor": cursor}
    if modern:
        from tests.modern import modern_meta

        params["_meta"] = modern_meta()
    out = await server.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                               "params": params})
    assert out is not None
    return out


@pytest.mark.parametrize("modern", [False, True])
@pytest.mark.parametrize("after, rest", [
    (("new", "a", "b", "c", "d"), ["c", "d"]),     # one added before the point reached
    (("b", "c", "d"), ["c", "d"]),                 # one removed before it
    (("a", "b", "c", "d"), ["c", "d"]),            # nothing changed (the built page)
    (("a", "b", "x", "c", "d"), ["x", "c"]),       # one added after it: it is seen
    (("a", "c", "d"), ["d"]),  # the tool named is gone: the offset, as resources/list
])
async def test_a_reload_between_pages_skips_and_repeats_no_tool(
        after: tuple[str, ...], rest: list[str], modern: bool) -> None:
    server = McpServer("demo", "1", tools("a", "b", "c", "d"), page_size=2)
    first = (await listed(server, None, modern))["result"]
    assert [t["name"] for t in first["tools"]] == ["a", "b"]
    server.set_tools(tools(*after))
    second = await listed(server, first["nextCursor"], modern)
    assert [t["name"] for t in second["result"]["tools"]] == rest
    assert ("resultType" in second["result"]) is modern


async def test_a_cursor_past_a_shrunk_list_is_invalid_params() -> None:
    server = McpServer("demo", "1", tools("a", "b", "c", "d"), page_size=2)
    cursor = (await listed(server, None))["result"]["nextCursor"]
    server.set_tools(tools("c"))
    out = await listed(server, cursor)
    assert out["error"]["code"] == -32602 and "cursor" in out["error"]["message"]
