"""An upstream's tool list, every page of it, within one deadline and bounded: at most
MAX_TOOLS tools from MAX_PAGES pages (the rest are left out, with a warning), so an upstream
listing without end cannot hold the start or fill memory."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import anyio

from toolhost.gateway.upstream_errors import TimedOut, UpstreamError

__all__ = ["MAX_PAGES", "MAX_TOOLS", "list_all_tools"]

log = logging.getLogger("toolhost.gateway")
MAX_TOOLS = 10_000  # tools taken from one upstream (the rest are left out, with a warning)
MAX_PAGES = 100  # pages of one listing followed (likewise)


async def list_all_tools(client: Any, server: str, seconds: float,
                         failed: Callable[[Exception, str], UpstreamError]
                         ) -> list[dict[str, Any]]:
    """The tools of upstream ``server`` (its mcp ``client``) as plain dicts, every page
    within ``seconds`` (its connect_timeout). ``TimedOut`` past it; what the client raised
    otherwise is read by ``failed`` (the connection's one reading of a failed request)."""
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    deadline = anyio.current_time() + seconds
    for _ in range(MAX_PAGES):
        try:
            with anyio.fail_after(deadline - anyio.current_time()):
                page = await client.list_tools(cursor=cursor, cache_mode="bypass")
        except TimeoutError:
            raise TimedOut(f"upstream server '{server}' did not list its tools within "
                           f"{seconds:g}s (connect_timeout)") from None
        except Exception as exc:
            raise failed(exc, f"upstream server '{server}' could not list its tools") from None
        room = MAX_TOOLS - len(tools)
        tools += [t.model_dump(by_alias=True, exclude_none=True) for t in page.tools[:room]]
        cursor = page.next_cursor
        if len(page.tools) > room or (cursor and len(tools) >= MAX_TOOLS):
            log.warning("upstream server '%s' lists more than %s tools; the rest are left "
                        "out", server, f"{MAX_TOOLS:,}")
            break
        if not cursor:
            break
    else:
        log.warning("upstream server '%s' lists its tools on more than %d pages; the rest are "
                    "left out", server, MAX_PAGES)
    return tools
