"""``ctx.log``: a tool's log lines, sent to the MCP client as ``notifications/message``.

A tool writes ``ctx.log.info("fetched %d rows", n)`` or ``ctx.log("warning", "slow")``. Each
line goes to toolhost's own log (stderr) as before and, when the client can hear it and asked
for that level (``logging/setLevel``; ``info`` until it does), to the client. Lines from a
worker thread (a sync tool) are sent at once; lines written on the event loop (an async tool)
are sent before the tool's result. Either way a call sends at most ``MAX_LINES`` lines to the
client (as ``stderr: log`` does); the rest are counted, and one line before the result says
how many were not sent.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from toolhost.excerpt import cut
from toolhost.mcp.jsonrpc import LOG_LEVELS
from toolhost.redaction.flow import Continued

__all__ = ["LEVELS", "ClientLog", "level_value"]

LEVELS = LOG_LEVELS  # MCP's syslog levels, lowest first
_FROM_PYTHON = {logging.DEBUG: "debug", logging.INFO: "info", logging.WARNING: "warning",
                logging.ERROR: "error", logging.CRITICAL: "critical"}
_TO_PYTHON = {"debug": logging.DEBUG, "info": logging.INFO, "notice": logging.INFO,
              "warning": logging.WARNING, "error": logging.ERROR, "critical": logging.CRITICAL,
              "alert": logging.CRITICAL, "emergency": logging.CRITICAL}
MAX_MESSAGE_CHARS = 10_000  # a log line is not a channel for bulk data
MAX_LINES = 1000  # lines a call sends to the client; later ones are counted, not sent
MAX_QUEUED = MAX_LINES  # lines held for the result's flush (never more than are sent)

Notify = Callable[[dict[str, Any]], Awaitable[None]]


def level_value(level: str) -> int:
    return LEVELS.index(level) if level in LEVELS else 1


def _mcp_level(level: int | str) -> str:
    if isinstance(level, str):
        return level.lower() if level.lower() in LEVELS else "info"
    best = "debug"
    for number, name in sorted(_FROM_PYTHON.items()):
        if level >= number:
            best = name
    return best


class ClientLog(logging.LoggerAdapter):  # type: ignore[type-arg]
    """A logger for one call that also reaches the client."""

    def __init__(self, logger: logging.Logger, notify: Notify, threshold: str, *,
                 name: str = "", loop_thread: int | None = None,
                 flow: Continued | None = None) -> None:
        """``loop_thread``: the event loop's thread (lines written there wait for the
        result's flush; any other thread's are sent at once); by default this one.
        ``flow``: what the lines are redacted after (the session's; by default the call's
        own lines)."""
        super().__init__(logger, {})
        self._notify = notify
        self._threshold = level_value(threshold)
        self._name = name
        self._loop_thread = threading.get_ident() if loop_thread is None else loop_thread
        self._queued: deque[dict[str, Any]] = deque(maxlen=MAX_QUEUED + 1)  # + the note
        self._lines = 0  # lines meant for the client so far (sent, queued or over the cap)
        self._flow = Continued() if flow is None else flow

    @property
    def pending(self) -> bool:
        """Whether lines (or the note of those not sent) wait for ``flush``."""
        return bool(self._queued) or self._lines > MAX_LINES

    def __call__(self, level: int | str, message: str, *args: Any) -> None:
        """``ctx.log("warning", "disk %s is full", disk)``: an MCP level name or a Python
        level number."""
        mcp = _mcp_level(level)
        python = level if isinstance(level, int) else _TO_PYTHON[mcp]
        self.log(python, message, *args, _mcp_level=mcp)

    def log(self, level: int, msg: object, *args: Any, **kwargs: Any) -> None:
        mcp_level = kwargs.pop("_mcp_level", None) or _mcp_level(level)
        super().log(level, msg, *args, **kwargs)
        if level_value(mcp_level) < self._threshold:
            return
        self._lines += 1  # one writer per call: its thread, or the loop
        if self._lines > MAX_LINES:
            return  # counted; flush says how many were not sent
        try:
            text = str(msg) % args if args else str(msg)
        except (TypeError, ValueError):
            text = f"{msg} {args}"
        # (after the lines before it: a secret cut between lines is one)
        params: dict[str, Any] = {"level": mcp_level,
                                  "data": cut(self._flow(text), MAX_MESSAGE_CHARS)}
        if self._name:
            params["logger"] = self._name
        note = {"jsonrpc": "2.0", "method": "notifications/message", "params": params}
        if threading.get_ident() == self._loop_thread:
            self._queued.append(note)
            return
        try:  # a sync tool's worker thread: deliver now
            import anyio.from_thread  # ~15 ms of imports a loaded host may never need

            anyio.from_thread.run(self._send, note)
        except Exception:  # the client is gone, or not an anyio worker: keep it for later
            self._queued.append(note)

    async def _send(self, note: dict[str, Any]) -> None:
        await self._notify(note)

    async def send_now(self, level: int | str, text: str) -> None:
        """Log ``text`` and send it to the client at once, from the event loop (a line of a
        running command's stderr, say), rather than before the result. ``level``: an MCP
        level name or a Python level number."""
        mcp = _mcp_level(level)
        python = level if isinstance(level, int) else _TO_PYTHON[mcp]
        logging.LoggerAdapter.log(self, python, "%s", text)
        if level_value(mcp) < self._threshold:
            return
        params: dict[str, Any] = {"level": mcp, "data": cut(self._flow(text), MAX_MESSAGE_CHARS)}
        if self._name:
            params["logger"] = self._name
        try:
            await self._notify({"jsonrpc": "2.0", "method": "notifications/message",
                                "params": params})
        except Exception:  # the client is gone: the line is in our own log anyway
            logging.getLogger("toolhost.mcp").debug("could not send a log line",
                                                    exc_info=True)

    def process(self, msg: Any, kwargs: MutableMapping[str, Any]
                ) -> tuple[Any, MutableMapping[str, Any]]:
        return msg, kwargs

    async def flush(self) -> None:
        """Send the lines written on the event loop (before the call's result), then a line
        saying how many were over the cap."""
        if self._lines > MAX_LINES:
            params: dict[str, Any] = {
                "level": "warning", "data": f"({self._lines - MAX_LINES:,} more log lines of "
                f"this call were not sent; the first {MAX_LINES:,} were)"}
            if self._name:
                params["logger"] = self._name
            self._queued.append({"jsonrpc": "2.0", "method": "notifications/message",
                                 "params": params})
            self._lines = MAX_LINES
        while self._queued:
            note = self._queued.popleft()
            try:
                await self._notify(note)
            except Exception:
                logging.getLogger("toolhost.mcp").debug("could not send a log line",
                                                        exc_info=True)
                return
