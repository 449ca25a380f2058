"""Requests toolhost sends the CLI, matched to the answers that come back.

Control requests (``initialize``, ``interrupt``, ``mcp_message`` notifications) are matched
by ``request_id``; JSON-RPC requests an MCP server sends its client through the CLI
(``mcp_request``: elicitation, sampling, roots) by server and JSON-RPC id, their responses
arriving later as ``mcp_message``s of the CLI's own. When the session ends, everything still
waiting fails with ``ProtocolError``.
"""

from __future__ import annotations

import itertools
import logging
import os
from collections.abc import Mapping
from typing import Any

import anyio

from toolhost.errors import ProtocolError
from toolhost.mcp import Notify
from toolhost.protocol.framing import LineWriter

__all__ = ["Outbox"]

log = logging.getLogger("toolhost.protocol")


class _Waiter:
    __slots__ = ("event", "payload")

    def __init__(self) -> None:
        self.event = anyio.Event()
        self.payload: Mapping[str, Any] | BaseException | None = None

    def resolve(self, payload: Mapping[str, Any] | BaseException) -> None:
        if self.payload is None:
            self.payload = payload
            self.event.set()


class Outbox:
    """Sends our requests on ``writer`` and resolves them as the answers are read.

    The ids of notifications not yet acknowledged are kept so that their acks are consumed
    quietly; only the latest ``MAX_UNACKED`` are (a CLI that never acks, or a tool reporting
    progress for hours, must not grow the table without end): an ack for an older one is
    logged as an answer to an unknown request.
    """

    MAX_UNACKED = 4096

    def __init__(self, writer: LineWriter) -> None:
        self._writer = writer
        self._pending: dict[str, _Waiter | None] = {}  # our request_id -> waiter (None: ignore)
        self._mcp_pending: dict[tuple[str, Any], _Waiter] = {}  # our JSON-RPC requests
        self._ids = itertools.count(1)
        self._id_salt = os.urandom(4).hex()
        self._notifiers: dict[str, Notify] = {}
        self._unacked = 0  # None entries in _pending (notifications not acknowledged)
        self.closed = False

    def _forget_oldest_unacked(self) -> None:
        # dicts keep insertion order: the oldest notification ids come first
        for request_id, waiter in self._pending.items():
            if waiter is None:
                del self._pending[request_id]
                self._unacked -= 1
                return

    def _new_id(self) -> str:
        return f"req_{next(self._ids)}_{self._id_salt}"

    async def request(self, subtype: str, **fields: Any) -> dict[str, Any]:
        """Send a control request; the ``response`` of its success answer (see
        ``ControlSession.request``)."""
        if self.closed:
            raise ProtocolError(f"cannot send {subtype!r}: the control session has ended")
        request_id = self._new_id()
        waiter = _Waiter()
        self._pending[request_id] = waiter
        try:
            await self._writer.send({"type": "control_request", "request_id": request_id,
                                     "request": {"subtype": subtype, **fields}})
            await waiter.event.wait()
        finally:
            self._pending.pop(request_id, None)
        payload = waiter.payload
        if isinstance(payload, BaseException):
            raise ProtocolError(f"control request {subtype!r} failed: {payload}")
        assert payload is not None
        answer = payload.get("response")
        return dict(answer) if isinstance(answer, Mapping) else {}

    async def request_nowait(self, subtype: str, **fields: Any) -> None:
        """Fire and forget: the CLI's ack is consumed (an error logged) when it comes."""
        request_id = self._new_id()
        self._pending[request_id] = None
        self._unacked += 1
        if self._unacked > self.MAX_UNACKED:
            self._forget_oldest_unacked()
        try:
            await self._writer.send({"type": "control_request", "request_id": request_id,
                                     "request": {"subtype": subtype, **fields}})
        except (anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            if request_id in self._pending:
                del self._pending[request_id]
                self._unacked -= 1
            log.debug("control session: dropped an outgoing line, the CLI is gone (%r)", exc)

    async def mcp_request(self, server_name: str, method: str,
                          params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Send a JSON-RPC request as ``server_name``; its response message."""
        jsonrpc_id = f"toolhost-{next(self._ids)}"
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": jsonrpc_id, "method": method}
        if params is not None:
            message["params"] = dict(params)
        waiter = _Waiter()
        key = (server_name, jsonrpc_id)
        self._mcp_pending[key] = waiter
        try:
            await self.request("mcp_message", server_name=server_name, message=message)
            await waiter.event.wait()
        finally:
            self._mcp_pending.pop(key, None)
        if isinstance(waiter.payload, BaseException):
            raise ProtocolError(f"MCP request {method!r} failed: {waiter.payload}")
        assert waiter.payload is not None
        return dict(waiter.payload)

    def notifier(self, server_name: str) -> Notify:
        """What a server's notifications (progress, logging, list_changed) are sent with."""
        notify = self._notifiers.get(server_name)
        if notify is None:
            async def notify(message: dict[str, Any]) -> None:
                await self.request_nowait("mcp_message", server_name=server_name,
                                          message=message)
            self._notifiers[server_name] = notify
        return notify

    # -- answers, as the session reads them ------------------------------------------------

    def on_response(self, response: Any) -> None:
        """A ``control_response`` line's ``response``."""
        if not isinstance(response, Mapping):
            log.warning("control session: control_response without a 'response' object")
            return
        request_id = response.get("request_id")
        if not isinstance(request_id, str) or request_id not in self._pending:
            log.debug("control session: answer to unknown request %r", request_id)
            return
        waiter = self._pending.pop(request_id)
        if waiter is None:
            self._unacked -= 1
            if response.get("subtype") == "error":
                log.warning("the CLI refused a notification: %s", response.get("error"))
            return
        if response.get("subtype") == "error":
            waiter.resolve(ProtocolError(str(response.get("error") or "unknown error")))
        else:
            waiter.resolve(response)

    def resolve_mcp(self, server_name: str, message: Mapping[str, Any]) -> None:
        """The JSON-RPC response to one of our ``mcp_request``s (unknown ones are dropped)."""
        waiter = self._mcp_pending.pop((server_name, message.get("id")), None)
        if waiter is not None:
            waiter.resolve(message)

    def fail_all(self, why: str) -> None:
        """Everything still waiting for an answer fails: ``no answer: {why}``."""
        pending = [w for w in self._pending.values() if w is not None]
        pending += self._mcp_pending.values()
        self._pending.clear()
        self._unacked = 0
        self._mcp_pending.clear()
        for waiter in pending:
            waiter.resolve(ProtocolError(f"no answer: {why}"))
