"""What one ``tools/call`` needs besides the server: its cancel scope, a quick bound on the
size of its arguments, and the context's channels back to the client (progress, elicitation,
sampling). On the hot path; kept apart so ``toolhost.mcp.server`` stays the dispatch.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Awaitable, Callable, Hashable, Mapping
from typing import Any, Protocol, TypeGuard

import anyio

from toolhost.excerpt import cut
from toolhost.mcp.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, RpcError
from toolhost.redaction.flow import Continued

__all__ = ["Cancel", "Notify", "ProgressSender", "cancel_scope", "claim_progress", "id_in_use",
           "is_mapping", "may_exceed", "progress_sender", "send_elicit", "send_roots",
           "send_sample"]

_log = logging.getLogger("toolhost.mcp")
# a progress message is a status line, as a log line is (toolhost.mcp.client_log): not a
# channel for bulk data; a longer one is cut, with a note of how much was left out
MAX_PROGRESS_MESSAGE_CHARS = 10_000
# notifications a call sends at each step; past them a loop that reports every row is
# thinned (``ProgressSender.thinned``): each one costs the client (the CLI under `toolhost
# run` took as long again as the tool to read 20,000 of them) and a bar shows only the last
STEADY_PROGRESS = 1_000
PROGRESS_STEPS = 1_000  # past STEADY_PROGRESS, one per 1/1000th of a known total

Notify = Callable[[dict[str, Any]], Awaitable[None]]
"""Sends a JSON-RPC notification (e.g. ``notifications/progress``) to the client."""


class Cancel(Protocol):
    """What cancels one request: an ``anyio.CancelScope``, or a transport's own handle."""

    def cancel(self) -> None: ...


def is_mapping(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """A JSON object: parsed ones arrive as dicts, so the exact type first (an ABC's
    isinstance costs ~0.3 us, and a call asks several times)."""
    return type(value) is dict or (value is not None and isinstance(value, Mapping))


def cancel_scope() -> anyio.CancelScope:
    # toolhost.deadlines (one scope per tools/call: on the hot path), loaded with the first
    # call: it imports asyncio, which loading a config and building its servers never need
    global _new_scope
    if _new_scope is None:
        from toolhost.deadlines import cancel_scope as new_scope

        _new_scope = new_scope
    return _new_scope()


_new_scope: Callable[[], anyio.CancelScope] | None = None


def id_in_use(request_id: Any) -> RpcError:
    """-32600 for a request under the JSON-RPC id of one of the same peer still in flight
    (JSON-RPC: an id names one request at a time). Taken, it would replace the first in the
    table ``notifications/cancelled`` looks in: the first could no longer be cancelled, and
    a cancel meant for it would stop the second."""
    return RpcError(INVALID_REQUEST, f"Invalid Request: id {cut(repr(request_id), 100)} is "
                    "already the id of a request in flight (an id names one request at a time)")


def may_exceed(arguments: Mapping[str, Any], limit: int) -> bool:
    # Top-level values only: a shallow look that is exact for the common flat arguments
    # and sends anything nested to the real measurement.
    total = 0
    for key, value in arguments.items():
        if isinstance(value, str):
            total += len(key) + len(value) * 6 + 8  # \u escapes at worst
        elif value is None or isinstance(value, (bool, float)) or (
                isinstance(value, int) and -2**63 <= value < 2**64):
            total += len(key) + 32
        else:
            return True
        if total > limit:
            return True
    return False


# ctx.elicit and ctx.sample: toolhost.mcp.elicit (its schema checks) loads with the first
# tool that asks, not with every server.
async def send_elicit(channel: Any, *args: Any, **kwargs: Any) -> Any:
    from toolhost.mcp.elicit import elicit

    return await elicit(channel, *args, **kwargs)


async def send_sample(channel: Any, *args: Any, **kwargs: Any) -> Any:
    from toolhost.mcp.elicit import sample

    return await sample(channel, *args, **kwargs)


async def send_roots(channel: Any, *args: Any, **kwargs: Any) -> Any:
    from toolhost.mcp.elicit import roots

    return await roots(channel, *args, **kwargs)


class ProgressSender:
    """``ctx.progress`` of one request: ``notifications/progress`` under its token, while the
    request is in flight. What the schema forbids is not sent (logged instead): a
    ``progress`` that is not a finite number larger than the last one sent (the spec: it
    "MUST increase with each notification"), a ``total`` that is not a finite number (NaN is
    no JSON: the client would get an error with no request to match), a ``message`` that is
    not a string. A message longer than ``MAX_PROGRESS_MESSAGE_CHARS`` is cut (as a log
    line is); a flood is thinned (``thinned``). The call goes on (the first of these is
    logged as a warning, the rest at debug). Once the request is answered (``close``)
    nothing more is sent: the spec lets progress name only an active request's token, and
    the client may already have given that token to its next request (a task a tool left
    running, a sync tool's thread past its timeout, would report into that one)."""

    __slots__ = ("_flow", "_last", "_notify", "_open", "_release", "_sent", "_sent_at",
                 "_skipped", "_token", "_warned")

    def __init__(self, notify: Notify, token: str | int | float,
                 release: Callable[[], None] | None = None,
                 flow: Continued | None = None) -> None:
        self._notify, self._token, self._release = notify, token, release
        self._last, self._warned, self._open = -math.inf, False, True
        self._sent, self._skipped, self._sent_at = 0, 0, -math.inf
        # a secret cut between messages is one (the session's: its results and log lines)
        self._flow = Continued() if flow is None else flow

    async def __call__(self, progress: float, total: float | None = None,
                       message: str | None = None) -> None:
        problem = ("the request was answered already" if not self._open
                   else _progress_problem(progress, total, message, self._last))
        if problem is not None:  # once per call at warning: a loop would flood the log
            _log.log(logging.DEBUG if self._warned else logging.WARNING,
                     "a progress notification was not sent: %s", problem)
            self._warned = True
            return
        self._last = progress
        if self.thinned(progress, total):
            return
        self._sent, self._skipped, self._sent_at = self._sent + 1, 0, progress
        params: dict[str, Any] = {"progressToken": self._token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:  # shown to the client as it is: no secret in it
            params["message"] = cut(self._flow(message), MAX_PROGRESS_MESSAGE_CHARS)
        await self._notify({"jsonrpc": "2.0", "method": "notifications/progress",
                            "params": params})

    def thinned(self, progress: float, total: float | None) -> bool:
        """Whether this valid notification is left out: never one of the first
        ``STEADY_PROGRESS``, nor the first that reaches ``total``; past them, with a total,
        one that advanced less than 1/``PROGRESS_STEPS`` of it since the last one sent;
        with no total, one while fewer were left out since the last one sent than were sent
        (a stream of N sends about sqrt(2N))."""
        if self._sent < STEADY_PROGRESS or (total is not None
                                            and progress >= total > self._sent_at):
            return False
        if total is not None and total > 0:
            keep = progress - self._sent_at >= total / PROGRESS_STEPS
        else:
            keep = self._skipped >= self._sent
        if not keep:
            self._skipped += 1
        return not keep

    def close(self) -> None:
        """The request is answered: send nothing more, free its token."""
        if self._open:
            self._open = False
            if self._release is not None:
                self._release()


def progress_sender(notify: Notify, token: str | int | float) -> ProgressSender:
    """A ``ProgressSender`` whose token nobody else tracks (the caller closes it)."""
    return ProgressSender(notify, token)


def claim_progress(active: set[tuple[Hashable, Any]], peer: Hashable, notify: Notify,
                   token: str | int | float, flow: Continued | None = None) -> ProgressSender:
    """The ``ProgressSender`` of a request carrying ``token`` from ``peer``, its token
    entered in ``active`` (the tokens of that server's requests in flight) until it is
    closed. A token an active request of the same peer holds is refused (-32602): the spec
    has a client make each one "unique across all active requests", and two requests'
    notifications under one token (each one's progress starting again from 0) cannot be
    told apart; the client learns of its mistake instead of reading a bar that jumps.
    ``flow``: what its messages are redacted after (the session's)."""
    key = (peer, token)
    if key in active:
        raise RpcError(INVALID_PARAMS, f"Invalid params: progressToken {cut(repr(token), 100)}"
                       " is already the token of a request in flight (a progress token "
                       "names one active request at a time)")
    active.add(key)
    return ProgressSender(notify, token, functools.partial(active.discard, key), flow)


def _finite(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


def _progress_problem(progress: object, total: object, message: object,
                      last: float) -> str | None:
    if not _finite(progress):
        return f"progress {cut(repr(progress), 40)} is not a finite number"
    assert isinstance(progress, (int, float))
    if progress <= last:
        return f"progress {progress!r} does not increase (the last sent was {last!r})"
    if total is not None and not _finite(total):
        return f"total {cut(repr(total), 40)} is not a finite number"
    if message is not None and not isinstance(message, str):
        return f"message {cut(repr(message), 40)} is not a string"
    return None
