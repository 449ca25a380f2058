"""The sending half of a control session: the lines toolhost writes to the CLI, and its
own requests (``initialize``, ``interrupt``, ``mcp_message`` notifications and requests),
matched to the CLI's answers by ``request_id`` (``Outbox``).

``ControlSender`` is the base of ``ControlSession`` (``toolhost.protocol.session``): what a
caller sends on a running session is defined here.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import anyio
import anyio.abc

from toolhost.protocol.framing import LineWriter
from toolhost.protocol.outbox import Outbox
from toolhost.protocol.tasks import RequestTasks

__all__ = ["ControlSender"]

log = logging.getLogger("toolhost.protocol")


class ControlSender:
    """Write lines to the CLI and send it requests, over an anyio byte stream."""

    def __init__(self, send: anyio.abc.ByteSendStream) -> None:
        self._writer = LineWriter(send)
        self._tasks = RequestTasks()  # incoming requests being served, by request_id
        self._outbox = Outbox(self._writer)  # our requests, matched to their answers

    async def _write(self, obj: Any) -> None:
        try:
            await self._writer.send(obj)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            log.debug("control session: dropped an outgoing line, the CLI is gone (%r)", exc)

    def _send_later(self, data: bytes) -> None:
        # a CLI slow to read: sent by a task of its own when it can (if the session runs)
        if self._tasks.running:
            self._tasks.start(lambda: self._send_line(data))

    async def _send_line(self, data: bytes) -> None:
        try:
            await self._writer.send_bytes(data)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            log.debug("control session: dropped an outgoing line, the CLI is gone (%r)", exc)

    async def request(self, subtype: str, **fields: Any) -> dict[str, Any]:
        """Send a control request and return the ``response`` of its success answer.

        Raises ``ProtocolError`` if the CLI answers with an error or the session ends
        first. Wrap it in ``anyio.fail_after`` for a deadline.
        """
        return await self._outbox.request(subtype, **fields)

    async def initialize(self, **fields: Any) -> dict[str, Any]:
        """Send ``initialize`` (``hooks`` defaults to None; pass ``sdkMcpServers`` etc.)."""
        fields.setdefault("hooks", None)
        return await self.request("initialize", **fields)

    async def interrupt(self) -> dict[str, Any]:
        """Ask the CLI to stop the current turn (it cancels running tool calls)."""
        return await self.request("interrupt")

    async def send_message(self, obj: Mapping[str, Any]) -> None:
        """Write one conversation message (e.g. a user turn) to the CLI."""
        await self._writer.send(obj)

    async def notify_tools_changed(self, server_name: str) -> None:
        """Send ``notifications/tools/list_changed`` for a server; the CLI re-lists."""
        await self.request("mcp_message", server_name=server_name,
                           message={"jsonrpc": "2.0",
                                    "method": "notifications/tools/list_changed"})

    async def mcp_request(self, server_name: str, method: str,
                          params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Send a JSON-RPC request to the CLI as the MCP server ``server_name``.

        The CLI acks the control request and later sends the JSON-RPC response back as an
        ``mcp_message`` of its own; this returns that response message.
        """
        return await self._outbox.mcp_request(server_name, method, params)
