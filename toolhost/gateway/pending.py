"""Imported servers that may start late (``mcp: {required: false}``).

By default an upstream that cannot start (no answer within ``connect_timeout``, a crash at
launch, a listing that fails or does not fit the lock) stops the whole start. One marked
``required: false`` does not: the host starts without it, with one warning naming it and why.
Until it comes up it is *pending*: it serves no tools, resources or prompts, and a call of
one of its tool names is answered with a tool error naming it (``unavailable``), never sent
anywhere, so no permission rule is ever consulted for it. ``serve`` and ``run`` retry it in
the background (``toolhost.gateway.refresh``: 1, 2, 4 ... 30 s apart, each attempt bounded
by its ``connect_timeout``); the listing that finally succeeds goes the way of every
re-listing: reshaped, checked against the lock (failing closed), swapped in atomically and
announced with ``notifications/tools/list_changed``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from toolhost.excerpt import cut

if TYPE_CHECKING:
    from toolhost.config.model import ServerConfig
    from toolhost.gateway.compile import UpstreamTools

__all__ = ["pending_upstream", "reason", "say_pending", "unavailable_message",
           "unavailable_tools"]

log = logging.getLogger("toolhost.gateway")


def reason(exc: BaseException) -> str:
    """Why an upstream could not start, in one line (a ``ConfigError``: its first problem)."""
    problems = getattr(exc, "problems", None)
    if isinstance(problems, (list, tuple)) and problems:
        first = str(getattr(problems[0], "message", problems[0]))
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        text = first + more
    else:
        text = str(exc) or type(exc).__name__
    return cut(" ".join(text.split()), 300)


def pending_upstream(server: ServerConfig, exc: BaseException, *,
                     redact: Callable[[str], str] | None = None,
                     pins: Any = None) -> UpstreamTools:
    """The ``UpstreamTools`` of a ``required: false`` server whose start failed with
    ``exc``: no tools, ``pending`` set to why, and a connection not yet made (its first
    success counts as a reconnection, so its resources and prompts are fetched then)."""
    from toolhost.gateway.client import UpstreamConnection
    from toolhost.gateway.compile import UpstreamTools

    why = reason(exc)
    if redact is not None:
        why = redact(why)
    upstream = UpstreamTools(server, UpstreamConnection(server.upstream, server.name,
                                                        after_outage=True),
                             redact=redact, pins=pins)
    upstream.pending = why
    return upstream


def say_pending(upstreams: Mapping[str, UpstreamTools]) -> None:
    """The one warning a host (``serve``, ``run``) starting without them gives for each
    pending upstream of ``upstreams``."""
    for name, upstream in upstreams.items():
        if upstream.pending:
            log.warning("%s: its upstream is not available (%s); starting without it "
                        "(required: false), retrying it in the background: its tools are "
                        "served once it answers", name, upstream.pending)


def unavailable_message(name: str, why: str) -> str:
    """What a call of a pending server's tool is answered."""
    return f"upstream server '{name}' is not available yet: {why}; retrying"


def unavailable_tools(upstreams: Mapping[str, UpstreamTools], *, prefixed: bool
                      ) -> Callable[[str], str | None]:
    """For an ``McpServer``'s ``unavailable``: a tool name it does not list -> the error of
    the pending server it belongs to. ``prefixed``: names are ``<server>__<tool>`` (serve
    with several servers); otherwise every name belongs to the one server in
    ``upstreams``."""
    from toolhost.serve.served import SEPARATOR

    def lookup(tool: str) -> str | None:
        if prefixed:
            server, sep, _ = tool.partition(SEPARATOR)
            upstream = upstreams.get(server) if sep else None
        else:
            upstream = next(iter(upstreams.values()), None) if len(upstreams) == 1 else None
            server = next(iter(upstreams), "")
        if upstream is None or not upstream.pending:
            return None
        return unavailable_message(server, upstream.pending)

    return lookup
