"""An upstream's own requests to its client (elicitation, sampling, roots), answered "Method
not found" -- or, for elicitation from an upstream whose config says ``elicitation: pass``,
passed on to the person at toolhost's client (``toolhost.gateway.elicit_pass``).

toolhost does not pass an upstream's ``sampling/createMessage`` or ``roots/list`` on to the
person or model at its own client, nor ``elicitation/create`` unless the config says so, and
declares none of those capabilities upstream (but elicitation when it is passed on). An
upstream that asks anyway gets the answer the MCP specification names for a capability the
client does not have: JSON-RPC ``-32601`` (Method not found; the specification's words for
``roots/list``, and JSON-RPC's for a method "not available"), with a message saying that
toolhost does not pass it on. The ``mcp`` client's own answer was ``-32600`` (Invalid
Request), which says the upstream's request was malformed. The first such request of each
kind on a connection is one warning naming the upstream; the rest are answered quietly (an
upstream asking in a loop is not a flood in the log).

The answer is given where the client routes every such request (``dispatch_input_request``,
on both eras' paths: the legacy request and a 2026-07-28 call's embedded input requests):
the ``mcp`` client declares a capability as soon as it is given a callback for it, so no
callback is given but for elicitation passed on (``client_open._declared``).
"""

from __future__ import annotations

import logging
from typing import Any

from toolhost.gateway.elicit_pass import CallAsks, Refused

__all__ = ["METHOD_NOT_FOUND", "refuse_asks"]

log = logging.getLogger("toolhost.gateway")
METHOD_NOT_FOUND = -32601
_ASKS = {  # the request's class name in mcp.types -> (method, what it asks for)
    "CreateMessageRequest": ("sampling/createMessage", "sampling"),
    "ElicitRequest": ("elicitation/create", "elicitation"),
    "ListRootsRequest": ("roots/list", "roots"),
}


def refuse_asks(client: Any, server: str, calls: CallAsks | None = None) -> None:
    """Answer every elicitation, sampling or roots request of the upstream behind ``client``
    (the mcp package's Client) with -32601, saying why; warn once per kind. With ``calls``
    (the config passes elicitation on), an elicitation goes to the call it belongs to."""
    session = getattr(client, "session", None)
    if session is None or not hasattr(session, "dispatch_input_request"):
        return
    from mcp import types

    warned: set[str] = set()

    async def dispatch_input_request(ctx: Any, request: Any) -> Any:
        method, what = _ASKS.get(type(request).__name__, (getattr(request, "method", "?"),
                                                          "that"))
        if calls is not None and method == "elicitation/create":
            try:
                params = request.params.model_dump(by_alias=True, exclude_none=True)
                answer = await calls.whose().ask(params)
                return types.ElicitResult.model_validate(answer)
            except Refused as refused:
                if "refused" not in warned:
                    warned.add("refused")
                    log.warning("upstream server '%s' asked its client for elicitation, which "
                                "was not passed on: %s", server, refused)
                return types.ErrorData(code=refused.code, message=str(refused))
        if method not in warned:
            warned.add(method)
            log.warning("upstream server '%s' asked its client for %s (%s), which toolhost "
                        "does not pass on: answered 'Method not found'", server, what, method)
        return types.ErrorData(
            code=METHOD_NOT_FOUND,
            message=f"Method not found: toolhost does not pass {method} on to its client "
                    f"(the {what} capability was not declared)")

    setattr(session, "dispatch_input_request", dispatch_input_request)  # noqa: B010
