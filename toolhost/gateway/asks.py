"""An upstream's own requests to its client (elicitation, sampling, roots), answered "Method
not found".

toolhost does not pass an upstream's ``elicitation/create``, ``sampling/createMessage`` or
``roots/list`` on to the person or model at its own client, and declares none of those
capabilities upstream (see docs/gateway.md, "Not yet"). An upstream that asks anyway gets
the answer the MCP specification names for a capability the client does not have: JSON-RPC
``-32601`` (Method not found; the specification's words for ``roots/list``, and JSON-RPC's
for a method "not available"), with a message saying that toolhost does not pass it on. The
``mcp`` client's own answer was ``-32600`` (Invalid Request), which says the upstream's
request was malformed. The first such request of each kind on a connection is one warning
naming the upstream; the rest are answered quietly (an upstream asking in a loop is not a
flood in the log).

The capabilities stay undeclared: the ``mcp`` client declares one as soon as it is given a
callback for it, so the answer is given where the client routes every such request
(``dispatch_input_request``, on both eras' paths: the legacy request and a 2026-07-28 call's
embedded input requests) instead.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["METHOD_NOT_FOUND", "refuse_asks"]

log = logging.getLogger("toolhost.gateway")
METHOD_NOT_FOUND = -32601
_ASKS = {  # the request's class name in mcp.types -> (method, what it asks for)
    "CreateMessageRequest": ("sampling/createMessage", "sampling"),
    "ElicitRequest": ("elicitation/create", "elicitation"),
    "ListRootsRequest": ("roots/list", "roots"),
}


def refuse_asks(client: Any, server: str) -> None:
    """Answer every elicitation, sampling or roots request of the upstream behind ``client``
    (the mcp package's Client) with -32601, saying why; warn once per kind."""
    session = getattr(client, "session", None)
    if session is None or not hasattr(session, "dispatch_input_request"):
        return
    from mcp import types

    warned: set[str] = set()

    async def dispatch_input_request(ctx: Any, request: Any) -> Any:
        method, what = _ASKS.get(type(request).__name__, (getattr(request, "method", "?"),
                                                          "that"))
        if method not in warned:
            warned.add(method)
            log.warning("upstream server '%s' asked its client for %s (%s), which toolhost "
                        "does not pass on: answered 'Method not found'", server, what, method)
        return types.ErrorData(
            code=METHOD_NOT_FOUND,
            message=f"Method not found: toolhost does not pass {method} on to its client "
                    f"(the {what} capability was not declared)")

    setattr(session, "dispatch_input_request", dispatch_input_request)  # noqa: B010
