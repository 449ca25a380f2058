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
"""

from __future__ import annotations

from typing import Any

__all__ = ["HEARD", "Unheard"]

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
