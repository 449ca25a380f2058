"""An HTTP upstream's answers, capped as they arrive: httpx hooks that count each answer's body
(bytes and JSON values) and refuse one longer than the cap, or one the upstream compressed
though toolhost asked for none (inflating is where bombs go off); the session and other
requests carry on (``toolhost.gateway.transport`` is the stdio side of the same caps).

A request's JSON answer (the body of its POST) is the answer to that request and no other:
one that names another id, or is a request or notification instead, is refused once read
(``not_the_answer``). The mcp client passed it on as a message of its own, and the request
waited out its whole deadline (600 s by default) for an answer that had come. An event
stream's notifications toolhost never acts on are left out here, before the client parses
them (``toolhost.gateway.sse_sift``)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import suppress
from typing import Any

from toolhost.excerpt import cut
from toolhost.gateway.sse_sift import EventSift
from toolhost.gateway.transport import _PARSED_MAX, CAPPED, Wire, _top_level
from toolhost.gateway.value_count import MAX_ANSWER_VALUES, MAX_VALUES, ValueCount

__all__ = ["capped_http_hooks", "http_error_text", "not_the_answer"]

# a request's method, when only "jsonrpc" and "id" come before it (as the mcp client writes)
_METHOD = re.compile(rb'^\{[ \t]*(?:"(?:jsonrpc|id)"[ \t]*:[ \t]*(?:"[^"\\]{0,64}"|[0-9]{1,20})'
                     rb'[ \t]*,[ \t]*){0,2}"method"[ \t]*:[ \t]*"([a-z/_]{1,64})"')


def _values_cap(request: Any) -> int:
    """The most JSON values the answer to ``request`` may hold (``MAX_VALUES`` for a call,
    a read or a prompt; ``MAX_ANSWER_VALUES`` for a listing, or an event stream)."""
    try:
        body = request.content
    except Exception:  # a streamed request body (httpx's RequestNotRead): not toolhost's
        return MAX_ANSWER_VALUES
    head = _METHOD.search(body, 0, 1024)  # the mcp client writes the method before params
    if head is not None:
        return MAX_VALUES if head.group(1).decode() in CAPPED else MAX_ANSWER_VALUES
    if len(body) > _PARSED_MAX or not any(m.encode() in body for m in CAPPED):
        return MAX_ANSWER_VALUES
    with suppress(ValueError, RecursionError):
        sent = json.loads(body)
        if isinstance(sent, dict) and sent.get("method") in CAPPED:
            return MAX_VALUES
    return MAX_ANSWER_VALUES


def _request_id(request: Any) -> int | str | None:
    """The id of the JSON-RPC request ``request`` POSTs, or None (a notification, an answer,
    a body too large to read twice, a streamed one)."""
    try:
        body = request.content
    except Exception:  # a streamed request body (httpx's RequestNotRead): not toolhost's
        return None
    if len(body) > _PARSED_MAX or b'"method"' not in body:
        return None
    with suppress(ValueError, RecursionError):
        sent = json.loads(body)
        ident = sent.get("id") if isinstance(sent, dict) and "method" in sent else None
        if isinstance(ident, (int, str)) and not isinstance(ident, bool):
            return ident
    return None


def not_the_answer(body: bytes, sent: int | str) -> str:
    """Why ``body`` (a POST's JSON answer) is not the answer to the request with id ``sent``,
    or "" when it is, or when it is no JSON-RPC message at all (the mcp client says so)."""
    data: Any = None
    scanned = len(body) > _PARSED_MAX  # (scanned: no parse holds the GIL long)
    if not scanned:
        with suppress(ValueError, RecursionError):
            data = json.loads(body)
    elif body.lstrip().startswith(b"{"):
        data = _top_level(body)  # (its ids: integers and strings; any other is None)
    if not isinstance(data, dict):
        return ""
    if "result" not in data and "error" not in data:
        method = data.get("method")
        if not isinstance(method, str):
            return ""
        kind = "request" if "id" in data else "notification"
        return (f"the answer to the request with id {sent!r} is a {kind} "
                f"({cut(repr(method), 60)}) instead")
    if "id" not in data:
        return f"the answer to the request with id {sent!r} names no id"
    ident = data.get("id")
    if ident is None and scanned:
        return ""  # a float, null or other id the scan does not read: the client judges it
    if isinstance(ident, float) and ident.is_integer():
        ident = int(ident)  # (7.0: said by the client, as not valid JSON-RPC)
    if isinstance(ident, (int, str)) and not isinstance(ident, bool) \
            and str(ident) == str(sent):  # (the client matches "7" to 7 as well)
        return ""
    return (f"the answer to the request with id {sent!r} names the id "
            f"{cut(repr(ident), 60)}")


def http_error_text(response: Any) -> str:
    """``HTTP 401 Unauthorized``, with what the upstream said of it in the headers that tell
    a person what to do (``WWW-Authenticate``, ``Retry-After``), cut and made printable."""
    def shown(value: str, most: int) -> str:
        return cut(" ".join("".join(c if c.isprintable() else " " for c in value).split()), most)

    text = f"HTTP {response.status_code} {shown(response.reason_phrase, 60)}".rstrip()
    for header in ("WWW-Authenticate", "Retry-After"):
        value = response.headers.get(header)
        if value:
            text += f"; {header}: {shown(value, 160)}"
    return text


def capped_http_hooks(wire: Wire) -> dict[str, list[Any]]:
    """httpx ``event_hooks`` that refuse an answer body longer than ``wire.limit`` (counted
    as it arrives) or compressed (toolhost asks for ``identity``). Hooks, not a transport:
    they see every answer, through a proxy too."""
    import httpx2

    from toolhost.gateway.http_broke import note_broken

    class Refused(httpx2.StreamError):
        pass

    class Capped(httpx2.AsyncByteStream):
        def __init__(self, inner: Any, refused: str, values: ValueCount | None,
                     post: bool, answering: int | str | None = None,
                     sift: EventSift | None = None) -> None:
            self.inner, self.refused, self.values, self.post = inner, refused, values, post
            self.answering = answering  # the id a JSON answer must name (None: not checked)
            self.sift = sift  # an event stream's: unheard notifications left out (sse_sift)

        async def __aiter__(self) -> AsyncIterator[bytes]:
            if self.refused:
                raise Refused(self.refused)
            seen = 0
            held: list[bytes] = []  # a JSON answer's body, checked once read (bounded: cap)
            async for chunk in self._chunks():
                seen += len(chunk)
                refused = wire.too_big("an answer") if seen > wire.limit else ""
                if not refused and self.values is not None and self.values.feed(chunk):
                    refused = (f"upstream server '{wire.server}' sent an answer of more "
                               f"than {self.values.limit:,} JSON values (refused unread)")
                if refused:  # the mcp client logs it (one line); the connection is let go
                    if self.post:  # the mcp client says only that the stream ended
                        wire.refused = refused
                    await self.inner.aclose()  # now (the client may never close it)
                    raise Refused(refused)
                if self.answering is not None:
                    held.append(chunk)
                if self.sift is None:
                    yield chunk
                elif kept := self.sift.feed(chunk):  # (counted above as it came)
                    yield kept
            if self.sift is not None and (rest := self.sift.flush()):
                yield rest
            if self.answering is not None:
                wrong = not_the_answer(b"".join(held), self.answering)
                if wrong:  # the client tells the request (no other answer will come)
                    raise Refused(wrong)

        async def _chunks(self) -> AsyncIterator[bytes]:
            try:
                async for chunk in self.inner:
                    yield chunk
            except httpx2.TransportError as exc:  # it went away in the middle of an answer
                if self.post:
                    note_broken(wire, exc)
                raise

        async def aclose(self) -> None:
            await self.inner.aclose()

    async def capped(response: Any) -> None:
        if (response.status_code == 404 and response.request.method == "POST"
                and "mcp-session-id" in response.request.headers):
            wire.session_lost = True  # the spec's word for an ended session (a GET stream
            # answered 404 is only a server without one: no request of ours was refused)
        if response.request.method == "POST":  # (a GET stream's 405 is no request's)
            # this answer's status, for the failure it explains; a later success forgets it
            wire.http_error = http_error_text(response) if response.status_code >= 400 else ""
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        refused = ""
        if encoding not in ("", "identity"):
            refused = (f"upstream server '{wire.server}' sent a {cut(encoding, 40)}-"
                       "compressed answer though toolhost asked for none")
            del response.headers["content-encoding"]
        events = "text/event-stream" in response.headers.get("content-type", "").lower()
        # an event stream's size is cut per event by the mcp client; its values, here
        values = ValueCount(_values_cap(response.request), events=events)
        post = response.request.method == "POST"
        answering = _request_id(response.request) if post and response.status_code == 200 \
            and "application/json" in response.headers.get("content-type", "").lower() \
            else None
        response.stream = Capped(response.stream, refused, values, post, answering,
                                 EventSift(wire.unheard) if events else None)

    return {"response": [capped]}
