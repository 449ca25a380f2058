"""What a ``subscriptions/listen`` request asks for, checked before its stream opens.

A listen stream lives as long as the client keeps it open, so what it asks for is checked
and bounded up front, like any other request (a malformed one is answered -32602, and the
stream never opens): ``params`` and ``notifications`` are objects, ``resourceSubscriptions``
a list of at most ``MAX_LISTEN_URIS`` strings of at most ``MAX_URI_CHARS`` each and
``MAX_LISTEN_URI_CHARS`` in all. Each URI is then brought to its canonical spelling and must be
one a ``resources/read`` could serve and the read rules allow (hearing that a resource changed
is a read of it): an unknown URI is -32002, a denied one -32600, as a read would answer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from toolhost.excerpt import cut
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp.content import (
    MAX_URI_CHARS,
    RESOURCE_NOT_FOUND,
    lone_surrogate,
    not_utf8_escape,
)
from toolhost.mcp.tasks import MAX_TASKS, declares_tasks, tasks_required

__all__ = ["MAX_LISTEN_BYTES", "MAX_LISTEN_URIS", "MAX_LISTEN_URI_CHARS", "ListenError",
           "Wanted", "check_uris", "wanted"]

MAX_LISTEN_URIS = 1000  # resourceSubscriptions of one listen stream
MAX_LISTEN_URI_CHARS = 256 * 1024  # all of them together
MAX_LISTEN_BYTES = 1024 * 1024  # a listen request's body (HTTP): it never needs more
MAX_LISTEN_TASKS = MAX_TASKS  # taskIds of one listen stream: no server keeps more tasks
MAX_TASK_ID_CHARS = 200  # toolhost's are 22; another's is unknown here anyway


class ListenError(Exception):
    """The listen request is answered with this JSON-RPC error; no stream opens."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data

    def response(self, request_id: Any) -> dict[str, Any]:
        return rpc.error_response(request_id, self.code, self.message, self.data)


@dataclasses.dataclass(frozen=True)
class Wanted:
    """The notifications a listen request asks for (URIs as the client sent them)."""

    tools: bool = False
    resources: bool = False
    prompts: bool = False
    uris: tuple[str, ...] = ()
    task_ids: tuple[str, ...] | None = None  # notifications/tasks asked for (None: not)


def _invalid(message: str) -> ListenError:
    return ListenError(rpc.INVALID_PARAMS, f"Invalid params: {message}")


def wanted(message: Mapping[str, Any]) -> Wanted:
    """The request's notifications, or ``ListenError`` naming what is malformed."""
    if message.get("jsonrpc") != "2.0":
        raise ListenError(rpc.INVALID_REQUEST, "Invalid Request: 'jsonrpc' must be \"2.0\"")
    params = message.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        raise _invalid("'params' must be an object")
    meta = params.get("_meta")
    if meta is not None and not isinstance(meta, Mapping):
        raise _invalid("'_meta' must be an object")
    if isinstance(meta, Mapping) and rpc.PROTOCOL_VERSION_META_KEY in meta:
        requested = meta[rpc.PROTOCOL_VERSION_META_KEY]
        if not isinstance(requested, str) or requested not in rpc.MODERN_VERSIONS:
            raise ListenError(rpc.UNSUPPORTED_PROTOCOL_VERSION,
                              f"Unsupported protocol version: {cut(repr(requested), 100)}",
                              {"supported": list(rpc.MODERN_VERSIONS)})
        problem = rpc.modern_meta_problem(meta)
        if problem is not None:
            raise ListenError(rpc.INVALID_PARAMS, problem)
    notes = params.get("notifications", {})
    if not isinstance(notes, Mapping):
        raise _invalid("'notifications' must be an object")
    raw = notes.get("resourceSubscriptions", [])
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise _invalid("'notifications.resourceSubscriptions' must be a list of URIs")
    if len(raw) > MAX_LISTEN_URIS:
        raise _invalid(f"'notifications.resourceSubscriptions' has {len(raw):,} URIs; at "
                       f"most {MAX_LISTEN_URIS:,}")
    total = 0
    for index, uri in enumerate(raw):
        if not isinstance(uri, str) or not uri:
            raise _invalid(f"'notifications.resourceSubscriptions[{index}]' must be a "
                           "non-empty string")
        if len(uri) > MAX_URI_CHARS:
            raise _invalid(f"'notifications.resourceSubscriptions[{index}]' is {len(uri):,} "
                           f"characters; at most {MAX_URI_CHARS:,}")
        if lone_surrogate(uri) is not None:
            raise _invalid(f"'notifications.resourceSubscriptions[{index}]' holds a lone "
                           f"surrogate ({lone_surrogate(uri)}), which no URI can carry")
        if not_utf8_escape(uri) is not None:
            raise _invalid(f"'notifications.resourceSubscriptions[{index}]' holds "
                           f"{not_utf8_escape(uri)}, percent-escapes that are not UTF-8 text")
        total += len(uri)
    if total > MAX_LISTEN_URI_CHARS:
        raise _invalid(f"'notifications.resourceSubscriptions' has {total:,} characters; at "
                       f"most {MAX_LISTEN_URI_CHARS:,}")
    return Wanted(notes.get("toolsListChanged") is True,
                  notes.get("resourcesListChanged") is True,
                  notes.get("promptsListChanged") is True, tuple(dict.fromkeys(raw)),
                  _task_ids(notes, meta))


def _task_ids(notes: Mapping[str, Any], meta: Any) -> tuple[str, ...] | None:
    """``notifications.taskIds`` (SEP-2663): task ids, of a client that declares the tasks
    extension (-32021 otherwise, as the SEP says)."""
    if "taskIds" not in notes:
        return None
    raw = notes["taskIds"]
    if not isinstance(raw, list) or len(raw) > MAX_LISTEN_TASKS or not all(
            isinstance(i, str) and 0 < len(i) <= MAX_TASK_ID_CHARS for i in raw):
        raise _invalid(f"'notifications.taskIds' must be a list of at most "
                       f"{MAX_LISTEN_TASKS} task ids (strings of 1-{MAX_TASK_ID_CHARS} "
                       "characters)")
    if not declares_tasks(meta):
        need = tasks_required("notifications.taskIds")
        raise ListenError(need.code, need.message, need.data)
    return tuple(dict.fromkeys(raw))


async def check_uris(uris: tuple[str, ...], content: Any,
                     guard: Callable[[str], Awaitable[str | None]] | None
                     ) -> tuple[str, ...]:
    """``uris`` in canonical spelling, each one a read could serve and the rules allow
    (``content``: a ``ServerContent``; ``guard``: the server's read guard), de-duplicated;
    ``ListenError`` for the first that is not."""
    out: dict[str, None] = {}
    for uri in uris:
        canonical = content.canonical_uri(uri)
        if not content.exists(canonical):
            raise ListenError(RESOURCE_NOT_FOUND, f"Resource not found: {cut(uri, 200)}",
                              {"uri": cut(uri, 200)})
        if guard is not None:
            try:
                refused = await guard(canonical)
            except Exception:  # fail closed, as for reads
                refused = "the permission check failed"
            if refused is not None:
                raise ListenError(rpc.INVALID_REQUEST, f"Resource read denied: {refused}",
                                  {"uri": cut(uri, 200)})
        out[canonical] = None
    return tuple(out)
