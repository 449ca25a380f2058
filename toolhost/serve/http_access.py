"""One log line per HTTP request of ``toolhost serve --transport http`` (the access log).

What an operator reads to follow a production server: who called what, how it ended and
how long it took, one line per request once its response has ended (a stream's line comes
when the stream ends)::

    toolhost: INFO: access: POST /mcp 200 tools/call name=query id=7 caller=ana outcome=ok 12.4 ms

- the HTTP method, path and status (0: the response never started, its client left first);
- for a JSON-RPC message, its method, the ``name`` it names (a tool or prompt name, a
  resource URI, a task id), its ``id``, and how it ended: ``ok``, ``tool_error`` (a tool's
  ``isError`` result: a deny is one), ``error`` and its ``code`` (a JSON-RPC error),
  ``cancelled``;
- the caller: the access token's ``sub`` (``--auth-issuer``), ``-`` without one;
- the time from the request's arrival to the end of its response.

The logger is ``toolhost.access`` at INFO, on by default for the HTTP transport
(``--no-access-log`` turns it off). Values a client sent are cut and quoted when they hold a space
or a quote (a URI without its userinfo, and ``***`` for a query value under a credential's
name: ``?api_key=***``); the text formatter escapes control characters and the stderr
handler hides the config's secrets, as for every line. Probes (``/healthz``, ``/readyz``)
answered 200 are not logged: a kubelet probes every few seconds. A connection refused before
it is read as a request (over ``--max-connections``, an unreadable head) is not a request
here: each has its own warning.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolhost.config.url_secrets import masked_url
from toolhost.excerpt import cut
from toolhost.serve.metrics import Metrics

__all__ = ["ACCESS_EXTENSION", "AccessLog", "note", "note_answer", "note_message"]

log = logging.getLogger("toolhost.access")

ACCESS_EXTENSION = "toolhost.access"  # the scope extension holding a request's fields
PROBES = ("/healthz", "/readyz")
_NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
          "resources/subscribe": "uri", "resources/unsubscribe": "uri",
          "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}


def note(scope: Scope, **fields: Any) -> None:
    """Add ``fields`` to the access line of the request of ``scope`` (none without one)."""
    found = scope.get("extensions", {}).get(ACCESS_EXTENSION)
    if isinstance(found, dict):
        found.update(fields)


def note_message(scope: Scope, message: Mapping[str, Any]) -> None:
    """The JSON-RPC method, named thing and id of the message a POST carries."""
    method = message.get("method")
    if not isinstance(method, str):
        return
    fields: dict[str, Any] = {"rpc": method}
    params = message.get("params")
    key = _NAMED.get(method)
    if key is not None and isinstance(params, Mapping) and isinstance(params.get(key), str):
        # a client's URI may carry its own credentials (``https://user:pw@...``, ``?token=``)
        fields["name"] = masked_url(params[key]) if key == "uri" else params[key]
    if "id" in message:
        fields["id"] = message["id"]
    note(scope, **fields)


def note_answer(scope: Scope, answer: Mapping[str, Any] | None) -> None:
    """How a request ended, from its JSON-RPC answer."""
    if answer is None:
        return
    error = answer.get("error")
    if isinstance(error, Mapping):
        code = error.get("code")
        note(scope, outcome="error", code=code if isinstance(code, int) else None)
        return
    result = answer.get("result")
    tool_error = isinstance(result, Mapping) and result.get("isError") is True
    note(scope, outcome="tool_error" if tool_error else "ok")


class AccessLog:
    """ASGI middleware writing one access line per HTTP request (when INFO is on), and
    counting it into ``metrics`` (``toolhost.serve.metrics``, ``--metrics``) when given."""

    def __init__(self, app: ASGIApp, metrics: Metrics | None = None) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        logged = log.isEnabledFor(logging.INFO)
        if scope["type"] != "http" or not (logged or self.metrics is not None):
            await self.app(scope, receive, send)
            return
        fields: dict[str, Any] = {}
        scope.setdefault("extensions", {})[ACCESS_EXTENSION] = fields
        status = 0
        start = time.perf_counter()

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            path = str(scope.get("path", ""))
            method = str(scope.get("method", ""))
            if self.metrics is not None and path not in PROBES:
                self.metrics.http_request(method, status, fields, time.perf_counter() - start)
            if logged and not (path in PROBES and status == 200):
                log.info("access: %s", line(method, path, status, fields,
                                            time.perf_counter() - start))


def line(method: str, path: str, status: int, fields: Mapping[str, Any],
         seconds: float) -> str:
    """The access line's text (after ``access: ``)."""
    parts = [_shown(method, 16), _shown(path, 100), str(status)]
    if "rpc" in fields:
        parts.append(_shown(fields["rpc"], 60))
    for key in ("name", "id"):
        if key in fields:
            value = fields[key]
            parts.append(f"{key}=" + (_shown(value, 100) if isinstance(value, str)
                                      else _shown(json.dumps(value), 40)))
    parts.append("caller=" + _shown(str(fields.get("caller") or "-"), 100))
    if "outcome" in fields:
        parts.append(f"outcome={_shown(fields['outcome'], 40)}")
    if fields.get("code") is not None:
        parts.append(f"code={int(fields['code'])}")
    parts.append(f"{seconds * 1000:.1f} ms")
    return " ".join(parts)


def _shown(text: str, limit: int) -> str:
    """``text`` cut, and quoted (JSON) when empty or holding a blank, a quote or ``=``: a
    client's value never reads as two fields."""
    text = cut(text, limit)
    if not text or any(c.isspace() or c in "\"'=" for c in text):
        return json.dumps(text, ensure_ascii=False)
    return text
