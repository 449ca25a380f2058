"""The notifications of an upstream that toolhost never acts on, dropped where they are read.

The ``mcp`` client handles each notification it reads in a task of its own, validating it a
second time before handing it to its callbacks; toolhost's connection acts only on those in
``HEARD``: the list changes and resource updates it follows (``toolhost.gateway.changes``,
``toolhost.gateway.updates``, whether sent plainly or on a ``subscriptions/listen`` stream),
the acknowledgement of such a stream, and ``notifications/cancelled`` (the upstream taking
back a question it asked). The rest -- ``notifications/message`` (no log callback is set),
``notifications/progress`` (no progress is asked of an upstream), methods no revision
defines -- took that whole path only to be dropped by the client: an upstream sending tens
of thousands of them during a call kept the host's CPU busy for as long (its other clients
were answered several times slower meanwhile). They are now dropped on arrival, before
the client sees them, and counted (``Unheard.count``).

Over stdio they are told from the line itself (``Unheard.drops_line``), before it is
validated and handed on: a dropped line cost the host 26 us of CPU that way (pydantic's
validation, a message built, a hand-over between tasks), 4 us now. Only a line that is
provably such a notification goes: a JSON object with ``"jsonrpc": "2.0"``, a ``method``
string outside ``HEARD``, params an object or none, and no ``id`` (a line holding the
bytes ``"id"`` anywhere, or that ``json.loads`` cannot read, takes the full path).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["HEARD", "Unheard"]

_READ_MAX = 1 << 16  # a longer line takes the full path (json.loads holds the GIL)

HEARD = frozenset({
    "notifications/cancelled",
    "notifications/tools/list_changed",
    "notifications/resources/list_changed",
    "notifications/prompts/list_changed",
    "notifications/resources/updated",
    "notifications/subscriptions/acknowledged",
})


class Unheard:
    """Tells the notifications toolhost never acts on (``drops``) and counts them."""

    def __init__(self) -> None:
        import mcp_types

        self._notification = mcp_types.JSONRPCNotification
        self.count = 0

    def drops(self, item: Any) -> bool:
        """Whether ``item`` (what the transport read: a SessionMessage, or an error) is a
        notification outside ``HEARD``; it is then counted."""
        message = getattr(item, "message", None)
        if isinstance(message, self._notification) and message.method not in HEARD:
            self.count += 1
            return True
        return False

    def drops_line(self, line: bytes) -> bool:
        """Whether the stdio line ``line`` is a notification outside ``HEARD`` (then it is
        counted), told without building a message; False when it cannot be told cheaply."""
        # a request or an answer holds its "id" key (spelled plainly, or escaped: then
        # json.loads reads it and the check below sees it); most lines end here
        if b'"id"' in line or b'"method"' not in line or len(line) > _READ_MAX:
            return False
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):
            return False  # (the full path says what is wrong with it)
        # what the full path reads as a notification (its params an object or none): one
        # it refuses is still said there, as a line that is not JSON-RPC
        if isinstance(data, dict) and "id" not in data and data.get("jsonrpc") == "2.0" \
                and isinstance(data.get("method"), str) and data["method"] not in HEARD \
                and isinstance(data.get("params", {}), (dict, type(None))):
            self.count += 1
            return True
        return False
