"""Tools that log through ``ctx.log`` (the MCP logging capability)."""

from __future__ import annotations

import anyio

from toolhost.backends.base import CallContext


async def chatty(*, ctx: CallContext) -> str:
    """Log at four levels from an async tool, with pauses between."""
    ctx.log.debug("starting %s", "work")
    await anyio.sleep(0.01)
    ctx.log.info("halfway")
    ctx.log("notice", "a notice")
    await anyio.sleep(0.01)
    ctx.log.warning("almost done")
    return "done"


def chatty_sync(*, ctx: CallContext) -> str:
    """The same from a sync tool (a worker thread)."""
    ctx.log.info("from a thread")
    ctx.log("error", "x" * 50_000)
    return "done"
