"""Requests the server sends to the client: ``elicitation/create`` and ``sampling/createMessage``.

A transport that can carry them (``toolhost serve`` over stdio, and over HTTP for sessions of
the 2025 revisions, on the POST's event stream) opens a :class:`ClientChannel` around each
request it hands to the core, with :func:`client_channel`; the core gives python tools
``ctx.elicit`` and ``ctx.sample`` bound to it. The client's answers come back as JSON-RPC
responses, which the transport gives to :meth:`Pending.resolve`.

A stateless 2026-07-28 request cannot carry a request to the client: there the core uses a
:class:`RoundTrip` instead (the client is asked through ``InputRequiredResult``). Where
there is no channel (``toolhost run``: the Claude CLI's control protocol has no such request
for SDK servers; an HTTP client of the 2025 revisions that accepts JSON only) or the client
did not declare the capability, the tool gets :class:`ClientRequestError`, which its error
result names.
"""
from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolhost.mcp.client_errors import DEFAULT_TIMEOUT, ClientRequestError, check_key, sendable
from toolhost.mcp.input_required import InputRequired, RoundTrip, input_required_in
from toolhost.mcp.pending import Alive, Pending, Send

__all__ = ["CURRENT", "DEFAULT_TIMEOUT", "CallChannel", "Channel", "ClientChannel",
           "ClientRequestError", "InputRequired", "Pending", "RoundTrip", "client_channel",
           "current_channel", "input_required_in", "sendable"]


@dataclass(frozen=True)
class ClientChannel:
    """What a request being handled can send to its client: the client's declared
    capabilities, the send for this request's stream, and the connection's pending map."""

    capabilities: Mapping[str, Any]
    send: Send
    pending: Pending = field(default_factory=Pending)
    # why the request was cancelled, once the transport knows, and whether its client is
    # still there (Pending.request)
    ended: Callable[[], str | None] | None = None
    alive: Alive | None = None

    def supports(self, capability: str) -> bool:
        return isinstance(self.capabilities.get(capability), Mapping)

    async def request(self, capability: str, method: str, params: Mapping[str, Any], *,
                      timeout: float = DEFAULT_TIMEOUT, key: str | None = None
                      ) -> Mapping[str, Any]:
        check_key(key)  # (a request sent now is named by its JSON-RPC id)
        if not self.supports(capability):
            raise ClientRequestError(
                f"cannot send {method}: the MCP client did not declare the "
                f"'{capability}' capability")
        return await self.pending.request(self.send, method, params, timeout=timeout,
                                          ended=self.ended, alive=self.alive)


class CallChannel:
    """``ctx.elicit``'s (``ctx.sample``'s, ``ctx.roots``') way to the client for one request:
    the transport's channel until the request is answered (``close``), then none. A task the
    tool left running, or a sync tool's thread past its timeout, would otherwise put a
    question to the person for a call that is over, outside any request it could relate to
    (and that its permission decision covered)."""

    __slots__ = ("_channel", "_open")

    def __init__(self, channel: ClientChannel) -> None:
        self._channel, self._open = channel, True

    def supports(self, capability: str) -> bool:
        return self._channel.supports(capability)

    @property
    def capabilities(self) -> Mapping[str, Any]:
        return self._channel.capabilities

    async def request(self, capability: str, method: str, params: Mapping[str, Any], *,
                      timeout: float = DEFAULT_TIMEOUT, key: str | None = None
                      ) -> Mapping[str, Any]:
        if not self._open:
            raise ClientRequestError(f"cannot send {method}: the request it would be part "
                                     "of was answered already")
        return await self._channel.request(capability, method, params, timeout=timeout,
                                           key=key)

    def close(self) -> None:
        """The request is answered: nothing more is sent through this channel."""
        self._open = False


Channel = ClientChannel | RoundTrip | CallChannel
"""Where requests to the client go: sent now (2025 revisions) or asked for (2026-07-28)."""

CURRENT: contextvars.ContextVar[Channel | None] = contextvars.ContextVar(
    "toolhost_client_channel", default=None)


@contextlib.contextmanager
def client_channel(channel: Channel | None) -> Iterator[None]:
    """Make ``channel`` the one the request handled inside this block can use."""
    token = CURRENT.set(channel)
    try:
        yield
    finally:
        CURRENT.reset(token)


def current_channel() -> Channel | None:
    """The channel of the request being handled (None: nothing can be sent to the client)."""
    return CURRENT.get()
