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
import itertools
import os
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio

from toolhost.backends.base import ToolFailure
from toolhost.excerpt import cut

__all__ = ["CURRENT", "DEFAULT_TIMEOUT", "CallChannel", "Channel", "ClientChannel",
           "ClientRequestError", "InputRequired", "Pending", "RoundTrip", "client_channel",
           "current_channel", "input_required_in", "sendable"]

DEFAULT_TIMEOUT = 600.0  # seconds: a person may be answering; the call's own timeout still rules
CANCEL_NOTICE_SECONDS = 2.0  # at most this long telling the client a request was abandoned
CHECK_SECONDS = 1.0  # at most this long finding out whether an answer's call is still there
MAX_PENDING = 1_000  # per connection: requests the client never answers cannot pile up
MAX_ENDED = 256  # per connection: requests remembered once over (why a late answer is refused)
MAX_ROUND = 64  # questions one 2026-07-28 round asks at once

Send = Callable[[dict[str, Any]], Awaitable[None]]
Alive = Callable[[], Awaitable[bool]]


class ClientRequestError(ToolFailure):
    """The client could not be asked, refused, or answered something unusable."""


_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def sendable(method: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` as a dict, once it is known JSON can carry them: a NaN, an infinity or an
    object JSON has no form for (in an elicitation schema's default, say) raises
    ``ClientRequestError`` to the tool here. Sent as it was, the transport could not write
    the request: the client got an error "answer" to a request it never sent, and the tool
    waited for an answer that never came (its call was never answered)."""
    from toolhost.mcp.wire import encode

    params = dict(params)
    try:
        encode(params)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ClientRequestError(f"cannot send {method}: its params are not valid JSON "
                                 f"({cut(str(exc), 120)})") from None
    return params


def check_key(key: object) -> None:
    """A tool's own name for a question (``ctx.elicit(..., key="user_name")``): 1-64
    letters, digits, ``_.-``, not of toolhost's own ``toolhost-N`` form."""
    if key is None:
        return
    if not isinstance(key, str) or not _KEY.fullmatch(key) or key.startswith("toolhost-"):
        raise ClientRequestError(
            f"was given the key {cut(repr(key), 80)}: a key is 1-64 letters, digits, "
            "'_', '.' or '-', starting with a letter or digit, and not 'toolhost-...'")


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


class InputRequired(BaseException):
    """Raised out of a tool in the stateless era: the client must answer ``request`` (and
    repeat the call). A BaseException, so ``except Exception`` in a tool does not catch it."""

    toolhost_control = True  # the host's, not the tool's failure (python_calls)

    def __init__(self, key: str, request: dict[str, Any], answered: dict[str, Any],
                 requests: Mapping[str, dict[str, Any]] | None = None) -> None:
        super().__init__(key)
        self.key, self.request, self.answered = key, request, answered
        # every question of this round: those the tool asked at once (a task group) too
        self.requests = dict(requests) if requests else {key: request}


def input_required_in(exc: BaseException) -> InputRequired | None:
    """The ``InputRequired`` that ``exc`` is or holds: a tool asking several questions at
    once (a task group) stops with an exception group of them, not with one."""
    if isinstance(exc, InputRequired):
        return exc
    if isinstance(exc, BaseExceptionGroup):  # noqa: F821 (a builtin since 3.11)
        for inner in exc.exceptions:
            found = input_required_in(inner)
            if found is not None:
                return found
    return None


class RoundTrip:
    """The 2026-07-28 way to ask a client (``InputRequiredResult``): no request is sent.

    The call runs until it needs an answer it does not have; then it stops
    (``InputRequired``) and the core answers ``resultType: input_required`` with the request.
    The client asks its person or model and repeats the call with ``inputResponses``, the
    answers so far travelling in ``requestState``; the call runs again from the start, and
    this time the ``n``-th question of the run finds its answer. So a tool that asks must ask
    the same questions in the same order when run again (it runs once per answer).
    """

    def __init__(self, capabilities: Mapping[str, Any], answered: Mapping[str, Any]) -> None:
        self.capabilities = capabilities
        self.answered = dict(answered)
        self._asked = 0
        # capabilities a request was refused for (the tool may still have done without)
        self.refused: dict[str, Any] = {}
        self._keys: set[str] = set()
        self._unanswered: dict[str, dict[str, Any]] = {}  # this round's questions

    def _new_key(self, capability: str, method: str, key: str | None, within: str) -> str:
        """The key of a new question (``key``, or the next ``toolhost-N``), once the client
        declared ``capability`` and no question of this ``within`` used it."""
        check_key(key)
        if not self.supports(capability):
            self.refused[capability] = {}
            raise ClientRequestError(
                f"cannot send {method}: the MCP client did not declare the "
                f"'{capability}' capability")
        self._asked += 1
        if key is None:
            key = f"toolhost-{self._asked}"
        if key in self._keys:
            raise ClientRequestError(f"asked the client twice under the key {key!r} in one "
                                     f"{within}")
        return key

    def supports(self, capability: str) -> bool:
        return isinstance(self.capabilities.get(capability), Mapping)

    async def request(self, capability: str, method: str, params: Mapping[str, Any], *,
                      timeout: float = DEFAULT_TIMEOUT, key: str | None = None
                      ) -> Mapping[str, Any]:
        key = self._new_key(capability, method, key,
                            "call (each question of a call needs its own key)")
        self._keys.add(key)
        answer = self.answered.get(key)
        if answer is None:
            if len(self._unanswered) >= MAX_ROUND:
                raise ClientRequestError(f"asked the client more than {MAX_ROUND} questions "
                                         "at once")
            request = {"method": method, "params": sendable(method, params)}
            self._unanswered[key] = request
            # questions asked at the same time (a task group, asyncio.gather) join this
            # round: they are asked together, and each stops once all have been seen
            for _ in range(3):
                await anyio.sleep(0)
            raise InputRequired(key, request, self.answered, self._unanswered)
        if not isinstance(answer, Mapping):
            raise ClientRequestError(f"got an answer to {method} that is not an object")
        return answer


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
