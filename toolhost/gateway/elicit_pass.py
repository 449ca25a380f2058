"""An upstream's ``elicitation/create`` passed on to the person at toolhost's own client.

Only for an upstream whose config opts in (``mcp: {elicitation: pass}``; then, and only then,
the elicitation capability is declared upstream), and only within these rules:

- **while a call toolhost made to that upstream runs.** The question goes to the client of
  that call, and the answer back only to the upstream connection it came from. A request
  embedded in a 2026-07-28 call's answer belongs to that call (it is dispatched in the
  call's own task); a 2025-era request names no call on the wire, so it is passed on only
  when exactly one call is under way on the connection (several: it cannot be told whose
  person to ask, and is refused);
- **to a client that can be asked now:** ``toolhost serve`` to a client of the 2025
  revisions that declared ``elicitation``. A client that did not, ``toolhost run`` (the
  Claude CLI's control protocol has no such request) and a stateless 2026-07-28 client (its
  way to answer repeats the call, which would run the upstream's tool again) get the
  error the MCP specification names for a capability the client lacks, ``-32601``;
- **in a mode the client declared:** form mode (an empty ``elicitation: {}`` is form only)
  or url mode (``elicitation.url``), whose URL must read as where it goes
  (``toolhost.mcp.elicit_url``: https or http with a host, printable ASCII, no user name or
  password, no secret); only the person's action goes back;
- **bounded:** a message of at most
  ``MAX_MESSAGE_CHARS``, the specification's restricted schema of at most 128 KiB of JSON
  (``toolhost.mcp.elicit`` checks it and validates the answer against it, as for
  ``ctx.elicit``; its size is measured before it reaches the call's loop), one open question
  per call at a time (others wait their turn) and at most ``MAX_ASKS_PER_CALL`` per call,
  an answer of at most ``MAX_ANSWER_BYTES``, and no longer than the call's own deadline;
- **cancelled when the call ends** (answered, failed, timed out or cancelled by the
  client): a question still open is withdrawn (``notifications/cancelled`` to the client)
  and the upstream is answered an error;
- **named**: the message starts ``upstream server 'NAME' asks:`` (the client can name only
  toolhost, so the person could not tell which server asks);
- **shown as written**: what the person reads (the message, and the schema's titles,
  descriptions and choice labels) has every character that makes text read as something it
  is not (a bidi override, a zero-width or C1 control) written as an escape
  (``toolhost.visible``): an upstream cannot make its question read otherwise than it is.
  The values an answer is checked against (``enum``, ``const``) are the upstream's own.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import json
import threading
from collections.abc import Callable, Coroutine, Iterator, Mapping
from typing import Any

from toolhost.excerpt import cut
from toolhost.gateway.sendable import unsendable
from toolhost.visible import visible

__all__ = ["MAX_ANSWER_BYTES", "MAX_ASKS_PER_CALL", "MAX_MESSAGE_CHARS", "Asker", "CallAsks",
           "Refused"]

MAX_MESSAGE_CHARS = 2_000
MAX_ASKS_PER_CALL = 8
MAX_ANSWER_BYTES = 64 * 1024
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


class Refused(Exception):
    """The upstream's question is not passed on: ``code`` and message go back to it."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class Asker:
    """One toolhost call's way to its client's person, usable from the upstream's thread.

    Made in the call's own event loop (``invoke``), where the client channel lives; a
    question is run there and awaited from the connection's thread. ``close`` (the call
    ended) withdraws any question still open and refuses new ones."""

    def __init__(self, channel: Any, timeout: float, server: str = "") -> None:
        try:
            self._loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:  # not on an asyncio loop: nothing to ask through from here
            self._loop, channel = None, None
        self._channel = channel  # toolhost.mcp.client_requests.Channel, or None
        self._timeout = timeout
        self._server = server  # the upstream's, named to the person
        self._lock = threading.Lock()
        self._open: set[concurrent.futures.Future[dict[str, Any]]] = set()
        self._asked = 0
        self._closed = False
        self._turn: asyncio.Lock | None = None

    @classmethod
    def here(cls, timeout: float, server: str = "") -> Asker:
        """The asker of the call running in this task (its client's channel, if any), for
        the questions of upstream server ``server``."""
        from toolhost.mcp.client_requests import current_channel

        return cls(current_channel(), timeout, server)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            still = list(self._open)
        for future in still:
            future.cancel()

    def _why_not(self, mode: str) -> str:
        from toolhost.mcp.client_requests import ClientChannel
        from toolhost.mcp.elicit_url import elicits

        channel = self._channel
        if channel is None or self._loop is None:
            return ("toolhost's client cannot be asked (only `toolhost serve` to an MCP "
                    "client can; the Claude CLI under `toolhost run` has no such request)")
        if not channel.supports("elicitation"):
            return "toolhost's MCP client did not declare the elicitation capability"
        if not elicits(channel, mode):
            return (f"toolhost's MCP client did not declare {mode} mode elicitation "
                    f"(elicitation.{mode})")
        if not isinstance(channel, ClientChannel):
            return ("toolhost's MCP client speaks the stateless 2026-07-28 revision, whose "
                    "answer would repeat the upstream's call")
        return ""

    async def ask(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Pass one elicitation on (in the connection's thread); the ElicitResult as a dict,
        or Refused."""
        mode = params.get("mode", "form")
        if mode not in ("form", "url"):
            raise Refused(METHOD_NOT_FOUND, "Method not found: toolhost passes on form and "
                          f"url elicitation, not {cut(visible(str(mode)), 40)!r} mode")
        why = self._why_not(str(mode))
        if why:
            raise Refused(METHOD_NOT_FOUND, "Method not found: toolhost does not pass "
                          f"elicitation/create on here: {why}")
        message = params.get("message")
        if not isinstance(message, str) or len(message) > MAX_MESSAGE_CHARS:
            raise Refused(INVALID_PARAMS, "Invalid params: the elicitation's message must be "
                          f"text of at most {MAX_MESSAGE_CHARS:,} characters")
        # the person is told who asks: the client can only name toolhost
        message = (f"upstream server '{visible(self._server, name=True)}' asks: "
                   f"{visible(message, lines=True)}")
        if mode == "url":  # (checked here too: a refused one takes no turn)
            from toolhost.mcp.elicit_url import id_problem, url_problem

            url, key = params.get("url"), params.get("elicitationId")
            problem = url_problem(url) or id_problem(key)
            if problem is not None:
                raise Refused(INVALID_PARAMS, f"Invalid params: {problem}")
            return await self._in_turn(lambda: self._opened(message, str(url), str(key)))
        schema = params.get("requestedSchema")
        # measured here, in the connection's thread: the checks that follow run in the
        # call's loop, where a 14 MB form held every other client's calls for seconds
        from toolhost.mcp.elicit_schema import size_problem

        too_large = size_problem(schema)
        if too_large is not None:
            raise Refused(INVALID_PARAMS, f"Invalid params: requestedSchema: {too_large}")
        schema = _shown_schema(schema)
        return await self._in_turn(lambda: self._elicit(message, schema))

    async def _in_turn(self, question: Callable[[], Coroutine[Any, Any, dict[str, Any]]]
                       ) -> dict[str, Any]:
        """Ask ``question()`` in the call's loop, in turn with the call's other questions."""
        with self._lock:
            if self._closed:
                raise Refused(METHOD_NOT_FOUND, "Method not found: the call that could pass "
                              "elicitation/create on has ended")
            if self._asked >= MAX_ASKS_PER_CALL:
                raise Refused(INVALID_PARAMS, f"Invalid params: at most {MAX_ASKS_PER_CALL} "
                              "elicitations are passed on per call")
            self._asked += 1
            if self._turn is None:  # made in the connection's loop, where every ask runs
                self._turn = asyncio.Lock()
            turn = self._turn
        async with turn:  # one question open at a time: the person sees them in turn
            with self._lock:
                if self._closed:
                    raise Refused(INTERNAL_ERROR, "the call ended before the person answered")
                assert self._loop is not None  # (_why_not)
                future = asyncio.run_coroutine_threadsafe(question(), self._loop)
                self._open.add(future)
            return await self._answer(future)

    async def _answer(self, future: concurrent.futures.Future[dict[str, Any]]
                      ) -> dict[str, Any]:
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if self._closed and not (task and task.cancelling()):  # the call ended
                raise Refused(INTERNAL_ERROR, "the call ended before the person answered") \
                    from None
            raise
        finally:
            with self._lock:
                self._open.discard(future)

    async def _opened(self, message: str, url: str, key: str) -> dict[str, Any]:
        """In the call's loop: a url mode question (toolhost.mcp.elicit_url); the answer is
        the person's action alone."""
        from toolhost.mcp.client_requests import ClientRequestError
        from toolhost.mcp.elicit_url import elicit_url

        try:
            action = await elicit_url(self._channel, message, url, key,
                                      timeout=self._timeout)
        except ClientRequestError as exc:
            text = str(exc)
            code = INVALID_PARAMS if "url mode: the" in text else INTERNAL_ERROR
            raise Refused(code, cut(text, 500)) from None
        return {"action": action}

    async def _elicit(self, message: str, schema: Any) -> dict[str, Any]:
        """In the call's loop: ask through toolhost.mcp.elicit (the schema's checks, the
        answer validated against it, no secret of this process in what is sent)."""
        from toolhost.mcp.client_requests import ClientRequestError
        from toolhost.mcp.elicit import elicit

        if schema is not None and not isinstance(schema, Mapping):
            raise Refused(INVALID_PARAMS, "Invalid params: requestedSchema is not an object")
        try:
            answer = await elicit(self._channel, message, schema, timeout=self._timeout)
        except ClientRequestError as exc:
            text = str(exc).replace("ctx.elicit", "elicitation/create")
            code = INVALID_PARAMS if "cannot be elicited" in text else INTERNAL_ERROR
            raise Refused(code, cut(text, 500)) from None
        result: dict[str, Any] = {"action": answer.action}
        if answer.accepted:
            content = dict(answer.content)
            cannot = unsendable(content)
            if cannot:  # (writing it would fail the whole connection)
                raise Refused(INTERNAL_ERROR, f"the person's answer: {cannot}")
            if len(json.dumps(content, ensure_ascii=False).encode()) > MAX_ANSWER_BYTES:
                raise Refused(INTERNAL_ERROR, "the person's answer is larger than "
                              f"{MAX_ANSWER_BYTES // 1024} KiB")
            result["content"] = content
        return result


def _shown_schema(schema: Any) -> Any:
    """``schema`` (a copy when it is a mapping) with the texts the person reads made
    visible: titles, descriptions, ``enumNames`` and the titles of ``oneOf``/``anyOf``
    choices, at the top and in each property (and its items); anything else as it is (the
    checks of ``toolhost.mcp.elicit`` judge it after)."""
    if not isinstance(schema, Mapping):
        return schema
    out = _shown_texts(schema)
    props = out.get("properties")
    if isinstance(props, Mapping):
        out["properties"] = {name: _shown_property(prop) for name, prop in props.items()}
    return out


def _shown_property(prop: Any) -> Any:
    if not isinstance(prop, Mapping):
        return prop
    out = _shown_texts(prop)
    if isinstance(out.get("items"), Mapping):
        out["items"] = _shown_texts(out["items"])
    return out


def _shown_texts(node: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(node)
    for key in ("title", "description"):
        if isinstance(out.get(key), str):
            out[key] = visible(out[key], lines=True)
    names = out.get("enumNames")
    if isinstance(names, list):
        out["enumNames"] = [visible(n) if isinstance(n, str) else n for n in names]
    for key in ("oneOf", "anyOf"):
        choices = out.get(key)
        if isinstance(choices, list):
            out[key] = [{**c, "title": visible(c["title"])}
                        if isinstance(c, Mapping) and isinstance(c.get("title"), str) else c
                        for c in choices]
    return out


_CURRENT: contextvars.ContextVar[Asker | None] = contextvars.ContextVar(
    "toolhost_gateway_asker", default=None)


class CallAsks:
    """The calls under way on one upstream connection that may pass elicitation on."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[int, Asker | None] = {}
        self._ids = 0

    @contextlib.contextmanager
    def running(self, asker: Asker | None) -> Iterator[None]:
        """Around one call in the connection's thread (None: a call that cannot ask)."""
        with self._lock:
            self._ids += 1
            key = self._ids
            self._calls[key] = asker
        token = _CURRENT.set(asker)
        try:
            yield
        finally:
            _CURRENT.reset(token)
            with self._lock:
                self._calls.pop(key, None)

    def whose(self) -> Asker:
        """The call an elicitation belongs to: the one whose task it is dispatched in (a
        2026-07-28 call's embedded request), else the only call under way; Refused when
        none or several are."""
        own = _CURRENT.get()
        if own is not None:
            return own
        with self._lock:
            calls = list(self._calls.values())
        if not calls:
            raise Refused(METHOD_NOT_FOUND, "Method not found: toolhost passes "
                          "elicitation/create on only while a call it made to this server "
                          "runs")
        if len(calls) > 1:
            raise Refused(METHOD_NOT_FOUND, "Method not found: several calls of toolhost to "
                          "this server are under way and elicitation/create names none of "
                          "them, so it cannot be told whose person to ask")
        asker = calls[0]
        if asker is None:
            raise Refused(METHOD_NOT_FOUND, "Method not found: the call under way cannot "
                          "pass elicitation/create on (it came from no MCP client)")
        return asker
