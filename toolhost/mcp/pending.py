"""A connection's questions to its client (``elicitation/create``, ``sampling/createMessage``)
sent and not answered yet: each answer goes to the call that asked, once; an answer no
question waits for is refused saying why; questions and remembered ends are bounded."""

from __future__ import annotations

import contextlib
import itertools
import os
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio

from toolhost.excerpt import cut
from toolhost.mcp.client_errors import DEFAULT_TIMEOUT, ClientRequestError, sendable

__all__ = ["Alive", "Pending", "Send"]

CANCEL_NOTICE_SECONDS = 2.0  # at most this long telling the client a request was abandoned
CHECK_SECONDS = 1.0  # at most this long finding out whether an answer's call is still there
MAX_PENDING = 1_000  # per connection: requests the client never answers cannot pile up
MAX_ENDED = 256  # per connection: requests remembered once over (why a late answer is refused)

Send = Callable[[dict[str, Any]], Awaitable[None]]
Alive = Callable[[], Awaitable[bool]]


class Pending:
    """The server's requests a connection's client has not answered yet."""

    def __init__(self, prefix: str = "toolhost") -> None:
        self._ids = itertools.count(1)
        # A part of its own in every id: an HTTP session revived from its signed id (after
        # an eviction, or on another replica) gets a new Pending, whose ids must not be the
        # old one's, or a late answer to the old question would reach the new call
        # os.urandom, not ``secrets``: that imports hmac and OpenSSL (~2.5 ms of start-up)
        self._prefix = f"{prefix}-{os.urandom(4).hex()}"
        self._waiting: dict[str, tuple[anyio.Event, list[Mapping[str, Any]]]] = {}
        # the ids no longer waited for, newest last (bounded), and why: an answer to one is
        # refused saying so, never dropped without a word
        self._ended: OrderedDict[str, str] = OrderedDict()
        # how to find out, before an answer is handed over, whether the call waiting for it
        # is still there (its client may be gone without the server knowing yet)
        self._alive: dict[str, tuple[Alive, Callable[[], str | None] | None]] = {}

    def __len__(self) -> int:
        return len(self._waiting)

    def resolve(self, message: Mapping[str, Any]) -> bool:
        """Hand a JSON-RPC response to the request it answers; False if it answers none of
        ours (an unknown or repeated id: ``refusal`` says why)."""
        return self.refusal(message) is None

    def refusal(self, message: Mapping[str, Any]) -> str | None:
        """Hand a JSON-RPC response to the request it answers (None), or say why it answers
        none waiting: the call that asked ended first (cancelled, timed out, its session
        ended), it was answered already, or no such request was sent."""
        request_id = message.get("id")
        shown = cut(repr(request_id), 80)
        if not isinstance(request_id, str):  # every id we send is a string
            return f"the server sent no request with the id {shown} to this client"
        entry = self._waiting.pop(request_id, None)
        if entry is None:
            ended = self._ended.get(request_id)
            if ended is not None:
                return f"the server's request {shown} is no longer waiting for an answer: {ended}"
            return f"the server sent no request with the id {shown} to this client"
        self._end(request_id, "it was answered already")
        event, box = entry
        box.append(message)
        event.set()
        return None

    async def deliver(self, message: Mapping[str, Any]) -> str | None:
        """``refusal``, once the call waiting for the answer is known to be still there: a
        call whose client is gone (found out now, within CHECK_SECONDS) is cancelled, and
        the answer refused saying so, instead of reaching a tool whose result nobody reads."""
        request_id = message.get("id")
        check = self._alive.get(request_id) if isinstance(request_id, str) else None
        if check is not None and isinstance(request_id, str):
            alive, ended = check
            with anyio.move_on_after(CHECK_SECONDS):
                if not await alive() and self._waiting.pop(request_id, None) is not None:
                    why = ended() if ended is not None else None
                    self._end(request_id, f"the call that sent it was cancelled"
                              f"{f' ({why})' if why else ''} before the answer came")
        return self.refusal(message)

    def _end(self, request_id: str, why: str) -> None:
        self._alive.pop(request_id, None)
        self._ended[request_id] = why
        self._ended.move_to_end(request_id)
        while len(self._ended) > MAX_ENDED:
            self._ended.popitem(last=False)

    def fail_all(self, reason: str) -> None:
        """Answer every request still waiting with an error saying ``reason`` (the client
        ended its session: no answer can come now, and the calls need not wait for one)."""
        waiting, self._waiting = self._waiting, {}
        for request_id, (event, box) in waiting.items():
            self._end(request_id, f"it failed at once: {reason}")
            box.append({"error": {"code": -32603, "message": reason}})
            event.set()

    async def request(self, send: Send, method: str, params: Mapping[str, Any], *,
                      timeout: float = DEFAULT_TIMEOUT,
                      ended: Callable[[], str | None] | None = None,
                      alive: Alive | None = None) -> Mapping[str, Any]:
        """Send ``method`` and wait for its ``result``; errors, silence and garbage raise
        ``ClientRequestError``. Cancelling the wait tells the client (notifications/cancelled).
        ``ended``: why the call was cancelled, when the transport knows (its client closed
        the response), told to a late answer; ``alive``: whether the call's client is still
        there, asked before an answer is handed over (``deliver``)."""
        if len(self._waiting) >= MAX_PENDING:
            raise ClientRequestError(f"cannot ask the client: {MAX_PENDING} of this "
                                     "connection's requests are still unanswered")
        params = sendable(method, params)
        request_id = f"{self._prefix}-{next(self._ids)}"
        event, box = anyio.Event(), list[Mapping[str, Any]]()
        self._waiting[request_id] = (event, box)
        if alive is not None:
            self._alive[request_id] = (alive, ended)
        try:
            await send({"jsonrpc": "2.0", "id": request_id, "method": method,
                        "params": params})
            with anyio.move_on_after(timeout) as waited:
                await event.wait()
            if waited.cancelled_caught:
                self._end(request_id, f"it was given up after {timeout:g} s without one")
                raise ClientRequestError(f"got no answer to {method} from the client within "
                                         f"{timeout:g} s")
        except anyio.get_cancelled_exc_class():
            if request_id in self._waiting:
                why = ended() if ended is not None else None
                self._end(request_id, f"the call that sent it was cancelled"
                          f"{f' ({why})' if why else ''} before the answer came")
            # Shielded so the client hears it, but bounded: a client that stopped reading
            # must not hold the cancelled call (and its caller) forever.
            with anyio.move_on_after(CANCEL_NOTICE_SECONDS, shield=True), \
                    contextlib.suppress(Exception):
                await send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                            "params": {"requestId": request_id, "reason": "the call ended"}})
            raise
        finally:
            if self._waiting.pop(request_id, None) is not None and request_id not in self._ended:
                self._end(request_id, "the call that sent it ended before the answer came")
            self._alive.pop(request_id, None)
        answer = box[0]
        error = answer.get("error")
        if error is not None:
            text = error.get("message") if isinstance(error, Mapping) else error
            if text is None:  # a JSON-RPC error has a message; say what there is
                code = error.get("code") if isinstance(error, Mapping) else None
                text = f"error {cut(repr(code), 40)} without a message"
            raise ClientRequestError(f"sent {method}, which the client refused: "
                                     f"{cut(str(text), 300)}")
        result = answer.get("result")
        if not isinstance(result, Mapping):
            raise ClientRequestError(f"got an answer to {method} that is not an object")
        return result
