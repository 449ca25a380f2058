"""The MCP server ``toolhost serve`` exposes: chosen servers of a config as one McpServer.

With one server selected its tools keep their names; with several, each is exposed as
``<server>__<tool>`` so names stay unique. Permission rules still see the config's own
names (``mcp__<server>__<tool>``). Besides the core's methods this layer serves
``subscriptions/listen`` (2026-07-28: the stream that carries ``tools/list_changed`` to a
modern client) and announces a swapped tool set on every channel a client can hear.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import anyio

from toolhost.compile.tool import CompiledTool
from toolhost.mcp import McpServer
from toolhost.mcp.server import Notify

__all__ = ["SEPARATOR", "ServedServer", "expose"]

log = logging.getLogger("toolhost.serve")

SEPARATOR = "__"
SUBSCRIPTION_ID_META_KEY = "io.modelcontextprotocol/subscriptionId"
SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"
LIST_CHANGED = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}

Broadcast = Callable[[dict[str, Any]], Awaitable[None]]


def expose(servers: Mapping[str, Sequence[CompiledTool]], selected: Sequence[str]
           ) -> tuple[list[CompiledTool], dict[str, str]]:
    """The tools to serve and, per exposed name, the config's wire name for permissions."""
    tools: list[CompiledTool] = []
    wire_names: dict[str, str] = {}
    for server in selected:
        for tool in servers.get(server, ()):
            exposed = tool if len(selected) == 1 else dataclasses.replace(
                tool, name=f"{server}{SEPARATOR}{tool.name}")
            tools.append(exposed)
            wire_names[exposed.name] = tool.wire_name
    return tools, wire_names


@dataclasses.dataclass
class _Listener:
    notify: Notify
    tools: bool
    done: anyio.Event = dataclasses.field(default_factory=anyio.Event)


class ServedServer:
    """An McpServer plus what a standalone server needs: listen streams and announcements.

    ``broadcast`` is how the transport reaches legacy clients (stdio: the one peer, once it
    sent ``initialize``; HTTP: every legacy ``GET`` stream).
    """

    def __init__(self, core: McpServer, wire_names: Mapping[str, str]) -> None:
        self.core = core
        self.wire_names: Mapping[str, str] = dict(wire_names)
        self.broadcast: Broadcast | None = None
        self.legacy_peer = False  # an initialize went through (stdio: the peer is legacy)
        self._listeners: dict[Any, _Listener] = {}
        from toolhost.serve.telemetry import Telemetry

        self.telemetry = Telemetry.maybe()  # spans and metrics per tools/call (extra otel)

    def wire_name(self, tool: CompiledTool) -> str:
        """The name permission rules use for ``tool`` (``mcp__<server>__<tool>``)."""
        return self.wire_names.get(tool.name, tool.wire_name)

    async def handle(self, message: Mapping[str, Any], *,
                     notify: Notify | None = None) -> dict[str, Any] | None:
        method = message.get("method")
        if method == "initialize":
            self.legacy_peer = True
        if method == "subscriptions/listen" and "id" in message and notify is not None:
            return await self._listen(message, notify)
        if self.telemetry is not None and method == "tools/call":
            return await self.telemetry.around(message, self.core.handle, notify=notify)
        return await self.core.handle(message, notify=notify)

    async def swap(self, tools: Sequence[CompiledTool], wire_names: Mapping[str, str]) -> bool:
        """Replace the tool set atomically; announce it if tools/list changed."""
        self.wire_names = dict(wire_names)
        changed = self.core.set_tools(tools)
        if changed:
            await self.announce()
        return changed

    async def announce(self) -> None:
        """Send ``notifications/tools/list_changed`` to every client that can hear it."""
        if self.broadcast is not None:
            try:
                await self.broadcast(dict(LIST_CHANGED))
            except Exception:
                log.exception("could not announce the new tool list")
        for request_id, listener in list(self._listeners.items()):
            if listener.tools:
                note = dict(LIST_CHANGED, params={"_meta": {SUBSCRIPTION_ID_META_KEY: request_id}})
                try:
                    await listener.notify(note)
                except Exception:
                    log.debug("listen stream %r is gone", request_id, exc_info=True)

    def close(self) -> None:
        """End every listen stream gracefully (server shutdown)."""
        for listener in self._listeners.values():
            listener.done.set()

    async def _listen(self, message: Mapping[str, Any], notify: Notify) -> dict[str, Any]:
        request_id = message["id"]
        params = message.get("params")
        wanted = params.get("notifications") if isinstance(params, Mapping) else None
        tools = isinstance(wanted, Mapping) and bool(wanted.get("toolsListChanged"))
        listener = _Listener(notify, tools)
        honored = {"toolsListChanged": True} if tools else {}
        self._listeners[request_id] = listener
        try:
            await notify({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                          "params": {"_meta": {SUBSCRIPTION_ID_META_KEY: request_id},
                                     "notifications": honored}})
            await listener.done.wait()
        finally:
            self._listeners.pop(request_id, None)
        return {"jsonrpc": "2.0", "id": request_id, "result": {
            "resultType": "complete",
            "_meta": {SUBSCRIPTION_ID_META_KEY: request_id,
                      SERVER_INFO_META_KEY: self.core.server_info}}}

