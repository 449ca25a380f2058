"""The CLI's requests a control session is serving, and their answers when the host stops.

Every incoming control request gets exactly one answer (but one the CLI withdrew). When the
host stops (a signal ends ``toolhost run``), the calls in flight are about to be cancelled
and the CLI's stdin closed: ``OpenRequests.stop`` answers each of them first, at once, so the
CLI is never left waiting for a call that will never end:

- a ``can_use_tool`` still waiting for a person: a deny (``deny(tool_name)``);
- an ``mcp_message`` ``tools/call``: a tool result with ``isError``, saying the call was
  cancelled before it ended and why (``toolhost is stopping (SIGTERM)``): the model reads it
  as the call's outcome. A call whose tool had not started (its guard still waiting on a
  permission question) gets the question's deny instead, and one read after the stop began
  says it was not started: neither did anything;
- any other ``mcp_message`` request (``resources/read``, ...): a JSON-RPC error saying the
  same; a notification or a response: the ``mcp_message`` acknowledgement.

The request's own answer, if its task still gets one, is then dropped. A request read after
the stop began is answered the same way at once, without being served (no tool starts).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp.tools_call import CallStart
from toolhost.protocol.framing import encode_line
from toolhost.protocol.handlers import ACK

__all__ = ["OpenRequests", "StoppedRequest", "permission_tool", "succeeded"]

log = logging.getLogger("toolhost.protocol")


def succeeded(request_id: str, response: Any) -> dict[str, Any]:
    """A success ``control_response`` carrying ``response``."""
    return {"type": "control_response",
            "response": {"subtype": "success", "request_id": request_id, "response": response}}


def permission_tool(request: Any) -> str | None:
    """The tool name of a ``can_use_tool`` request (None for any other request)."""
    if (type(request) is dict or isinstance(request, Mapping)) \
            and request.get("subtype") == "can_use_tool":
        name = request.get("tool_name")
        return name if isinstance(name, str) else "the tool"
    return None


@dataclass(frozen=True)
class StoppedRequest:
    """A request ``OpenRequests.stop`` answered: what the caller may record of it.

    ``kind``: ``"permission"`` (a ``can_use_tool``), ``"call"`` (a ``tools/call``) or
    ``"other"``; ``tool``: the tool's name as the model sees it (``mcp__<server>__<tool>``
    for a call); ``arguments`` and ``tool_use_id`` as the CLI sent them. ``started``, of a
    call: True when its tool had started, False when its guard was still deciding (a
    permission question: the gate records that deny), None when it was never served; of a
    permission question: False when it was being decided (the gate records its deny), None
    when it was never served (nothing recorded it)."""

    request_id: str
    kind: str
    tool: str = ""
    arguments: Mapping[str, Any] = field(default_factory=dict)
    tool_use_id: str | None = None
    message: str = ""  # the text of the answer the CLI was given
    started: bool | None = None


def stopped_call_text(why: str) -> str:
    """What the model reads as the outcome of a ``tools/call`` the stop cut short."""
    return (f"The call was cancelled before it ended: {why}. It may have done part of its "
            "work.")


def unstarted_call_text(why: str) -> str:
    """What the model reads of a ``tools/call`` the stop answered before it was served."""
    return f"The call was not started: {why}."


def _answer(request_id: str, request: Any, why: str, deny: Callable[[str], str],
            start: CallStart | None) -> tuple[dict[str, Any], StoppedRequest]:
    tool = permission_tool(request)
    if tool is not None:
        message = deny(tool)
        tool_input = request.get("input")
        use_id = request.get("tool_use_id")
        return (succeeded(request_id, {"behavior": "deny", "message": message}),
                StoppedRequest(request_id, "permission", tool,
                               tool_input if isinstance(tool_input, Mapping) else {},
                               use_id if isinstance(use_id, str) else None, message,
                               None if start is None else False))
    message = stopped_call_text(why)
    rpc_message = request.get("message") if isinstance(request, Mapping) else None
    if not isinstance(rpc_message, Mapping) or "method" not in rpc_message \
            or "id" not in rpc_message:  # a notification, a response, anything else
        return succeeded(request_id, ACK), StoppedRequest(request_id, "other", message=message)
    jsonrpc_id = rpc_message.get("id") if rpc.is_valid_id(rpc_message.get("id")) else None
    if rpc_message.get("method") != "tools/call":
        return (succeeded(request_id, {"mcp_response": rpc.error_response(
                    jsonrpc_id, rpc.INTERNAL_ERROR, message)}),
                StoppedRequest(request_id, "other", message=message))
    params = rpc_message.get("params")
    params = params if isinstance(params, Mapping) else {}
    name, arguments, meta = params.get("name"), params.get("arguments"), params.get("_meta")
    use_id = meta.get("claudecode/toolUseId") if isinstance(meta, Mapping) else None
    tool = f"mcp__{request.get('server_name')}__{name}"
    if start is None:  # never served: read after the stop began
        message = unstarted_call_text(why)
    elif not start.started:  # its guard was still deciding: waiting on a question
        message = deny(tool)
    result = {"content": [{"type": "text", "text": message}], "isError": True}
    return (succeeded(request_id, {"mcp_response": rpc.result_response(jsonrpc_id, result)}),
            StoppedRequest(request_id, "call", tool,
                           arguments if isinstance(arguments, Mapping) else {},
                           use_id if isinstance(use_id, str) else None, message,
                           None if start is None else start.started))


class OpenRequests:
    """The requests being served, by id, and the stop's answers (see the module text).

    ``write_now(data) -> bool`` writes a line without a pause (False: the CLI is slow to
    read, nothing was written); ``send_later(data)`` then sends it from a task."""

    def __init__(self, write_now: Callable[[bytes], bool],
                 send_later: Callable[[bytes], None]) -> None:
        self._write_now = write_now
        self._send_later = send_later
        # request id -> request body, and whether its tool started (a tools/call's)
        self._open: dict[str, tuple[Any, CallStart]] = {}
        self._answered: set[str] = set()  # answered by the stop: their own answer dropped
        # set by ``stop``: why, and the deny message of a permission question
        self.stopping: tuple[str, Callable[[str], str]] | None = None
        self._on_stopped: Callable[[StoppedRequest], None] | None = None

    def opened(self, request_id: str, request: Any, start: CallStart) -> None:
        """``request`` is being served; ``start`` says once its tool started (a call)."""
        self._open[request_id] = (request, start)

    def closed(self, request_id: str) -> bool:
        """The request's task ends; True when the stop answered it (its own answer is
        dropped: exactly one answer)."""
        self._open.pop(request_id, None)
        if request_id in self._answered:
            self._answered.discard(request_id)
            return True
        return False

    def answered(self, request_id: str) -> bool:
        """Whether the stop answered this request (nothing more may be sent for it)."""
        return request_id in self._answered

    def stop(self, why: str, deny: Callable[[str], str] | None = None, *,
             on_stopped: Callable[[StoppedRequest], None] | None = None
             ) -> list[StoppedRequest]:
        """The host is stopping (``why``: e.g. ``toolhost is stopping (SIGTERM)``): answer
        every request being served at once, before the CLI's stdin closes. ``deny(tool)``:
        the deny message of an open permission question (default: ``Nobody answered the
        question about TOOL: WHY.``). ``on_stopped`` is called with each request answered
        so, now and later (one read after the stop). Returns what was answered now; called
        again, only what opened since."""
        if deny is None:
            def deny(tool: str) -> str:
                return f"Nobody answered the question about {tool}: {why}."
        self.stopping = (why, deny)
        self._on_stopped = on_stopped
        return [stopped for request_id, (request, start) in list(self._open.items())
                if (stopped := self.answer(request_id, request, start)) is not None]

    def answer(self, request_id: str, request: Any,
               start: CallStart | None = None) -> StoppedRequest | None:
        """Answer one request as the stop does (None: not stopping, or answered already).
        ``start``: the request was served (None: never, it came after the stop began)."""
        if self.stopping is None or request_id in self._answered:
            return None
        if start is not None:
            start.stopped = True  # a call still at its guard never starts now
        answer, stopped = _answer(request_id, request, *self.stopping, start)
        data = encode_line(answer)
        if not self._write_now(data):
            self._send_later(data)  # a CLI slow to read: sent when it can
        self._answered.add(request_id)
        if self._on_stopped is not None:
            try:
                self._on_stopped(stopped)
            except Exception:  # the answer is out: a failure to note it stops nothing
                log.exception("control session: noting a request the stop answered failed")
        return stopped
