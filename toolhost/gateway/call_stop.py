"""Cancelling a call to an upstream from the host's side.

A tool call of an imported tool waits for the upstream in a worker thread (the connection's
event loop runs in a thread of its own). When the call's client cancels it, the host
abandons that worker; without a word to the connection, the upstream went on with the call
(a deploy, a delete) until its ``timeout``. ``CallStop`` reaches the call in the
connection's loop instead: its task is cancelled there, and the ``mcp`` client sends the
upstream ``notifications/cancelled`` for it, as the MCP specification asks of a client that
no longer wants an answer.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any

__all__ = ["CallStop"]


class CallStop:
    """Cancels one call to an upstream, from any thread, once or never. A cancel that comes
    before the call has started (``bind``) cancels it as it starts; a call sent again (a
    session the upstream lost) is bound again, and cancelled too."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._future: Future[Any] | None = None
        self._stopped = False

    def bind(self, future: Future[Any]) -> None:
        """The call under way: the portal's future of its task."""
        with self._lock:
            self._future = future
            stopped = self._stopped
        if stopped:
            future.cancel()

    def cancel(self) -> None:
        """Cancel the call (its task in the connection's loop; the upstream is told)."""
        with self._lock:
            self._stopped = True
            future = self._future
        if future is not None:
            future.cancel()
