"""The routing headers of an HTTP POST (SEP-2243) and how they must agree with its body.

A 2026-07-28 request repeats its protocol version, its method and (for ``tools/call``,
``prompts/get`` and ``resources/read``) the tool, prompt or resource it names in headers,
so a gateway can route, rate-limit or authorize without parsing JSON. Because the edge
acts on the headers while this server acts on the body, the two must agree, or a request
could be let through for one name and run as another. The rule (400, ``HEADER_MISMATCH``):

- a modern request carries ``Mcp-Method``, and ``Mcp-Name`` when its body names a tool,
  prompt or resource; a missing one is refused. ``MCP-Protocol-Version`` may be left out
  (the body names the version), but one that is sent must be the body's;
- a value is compared after the optional whitespace around it (RFC 9110 5.5); a method is
  case-sensitive; a name may come ``=?base64?...?=``-wrapped (how a client sends a name
  that is not plain ASCII, or has a CR LF), and a malformed wrapping matches nothing;
- a routing header sent twice is refused (a first-copy reader and a last-copy reader
  would disagree);
- a 2025 request needs none of them, but one it sends must agree with its body too;
- a notification (no revision defines its headers) is held only to the ones it sends, and
  a client's answer to the server (no method) to none.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any, Protocol

from toolhost.excerpt import cut

__all__ = ["NAME_BEARING", "routing_problem"]

# method -> the params key its Mcp-Name header mirrors
NAME_BEARING = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
                # SEP-2663: the tasks methods name their task
                "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}

_VERSION = "mcp-protocol-version"
_METHOD = "mcp-method"
_NAME = "mcp-name"
_SPELLED = {_VERSION: "MCP-Protocol-Version", _METHOD: "Mcp-Method", _NAME: "Mcp-Name"}
_B64 = re.compile(r"=\?base64\?(?P<payload>.*)\?=", re.DOTALL)
_OWS = " \t"


class Headers(Protocol):
    """Starlette's request headers (case-insensitive, repeated names kept)."""

    def getlist(self, key: str) -> list[str]: ...


def routing_problem(message: Mapping[str, Any], headers: Headers, *,
                    version: str | None, request: bool) -> str | None:
    """Why ``message``'s routing headers disagree with it, or None when they agree.

    ``version`` is the protocol version its body names (None: a 2025 client); ``request``
    says it expects an answer (a notification or a client's answer does not)."""
    if "method" not in message:  # a client's answer to the server mirrors nothing
        return None
    sent: dict[str, str | None] = {}
    for header in (_VERSION, _METHOD, _NAME):
        values = headers.getlist(header)
        if len(values) > 1:
            return f"header {_SPELLED[header]} appears {len(values)} times; send it once"
        sent[header] = values[0].strip(_OWS) if values else None
    required = version is not None and request
    # without the header the body's version rules (transports: a server that can tell the
    # version another way need not assume one)
    if version is not None and sent[_VERSION] is not None and sent[_VERSION] != version:
        return (f"header MCP-Protocol-Version {_q(sent[_VERSION])} does not match "
                f"params._meta protocol version {_q(version)}")
    method = message.get("method")
    if sent[_METHOD] is None:
        if required:
            return _missing(_METHOD, f"method {_q(method)}")
    elif sent[_METHOD] != method:
        return (f"header Mcp-Method {_q(sent[_METHOD])} does not match the body's method "
                f"{_q(method)}")
    key = NAME_BEARING.get(method) if isinstance(method, str) else None
    if key is None:  # Mcp-Name means nothing on another method
        return None
    params = message.get("params")
    named = params.get(key) if isinstance(params, Mapping) else None
    name = sent[_NAME]
    if name is None:
        if required and named is not None:
            return _missing(_NAME, f"params.{key} {_q(named)}")
        return None
    if not _names(name, named):
        return f"header Mcp-Name {_q(name)} does not match params.{key} {_q(named)}"
    return None


def _names(value: str, named: object) -> bool:
    """Whether a ``Mcp-Name`` value (whitespace already trimmed) names ``named``."""
    if not isinstance(named, str):
        return False
    wrapped = _B64.fullmatch(value)
    if wrapped is not None:
        payload = wrapped.group("payload")
        try:
            raw = base64.b64decode(payload, validate=True)
        except binascii.Error:
            return False
        # only the canonical spelling: one name, one header value
        if base64.b64encode(raw).decode("ascii") != payload:
            return False
        return raw == named.encode("utf-8", "surrogatepass")
    if value == named:
        return True
    # a client that sent the UTF-8 bytes themselves (starlette reads a header as latin-1)
    try:
        return value.encode("latin-1").decode("utf-8") == named
    except UnicodeError:
        return False


def _missing(key: str, what: str) -> str:
    return (f"header {_SPELLED[key]} is missing; a 2026-07-28 request repeats its {what} "
            f"in it")


def _q(value: object) -> str:
    return cut(repr(value), 100)
