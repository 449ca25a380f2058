"""The HTTP sessions (2025 revisions) one replica keeps, bounded without dropping active ones.

A session costs a client one ``initialize``, so a client that opens thousands must not push
out the sessions of others (their subscriptions, log level, ``GET`` stream). The table keeps
at most ``--max-sessions``; past it a new session takes the place of the least recently used
session that has been idle longer than ``--session-idle`` (no request, no open stream, no
call running), and when there is none the *new* session is not kept: ``SessionsFull``, on
which the server serves the request with a session kept for it only
(``toolhost.serve.http_sessions``), or answers a ``GET`` stream 503. An evicted or ended
session's settings are forgotten (``forget``); its signed id still works, as a fresh session
without them.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterator
from typing import Any

from toolhost.mcp import jsonrpc as rpc
from toolhost.serve.base import error_response
from toolhost.serve.http_exchange import Session

__all__ = ["SessionTable", "SessionsFull"]

log = logging.getLogger("toolhost.serve")


class SessionsFull(Exception):
    """No room for a new session: every session is in use (or not idle long enough)."""

    def __init__(self, count: int, idle: float) -> None:
        super().__init__(
            f"Server busy: {count:,} sessions are open here and none has been idle for "
            f"{idle:g} s, so no new session can start (toolhost serve --max-sessions, "
            "--session-idle). End sessions no longer used (DELETE with their Mcp-Session-Id) "
            "or try again later")

    def answer(self) -> dict[str, Any]:
        return error_response(None, rpc.SERVER_BUSY, str(self))


class SessionTable:
    """Sessions by id, least recently used first; ``get`` marks one used."""

    def __init__(self, max_sessions: int, idle: float,
                 forget: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_sessions = max_sessions
        self.idle = idle
        self._forget = forget
        self._clock = clock
        self._sessions: dict[str, Session] = {}  # insertion order = least recently used first
        self._warned = -math.inf  # when "no room" was last logged

    def __len__(self) -> int:
        return len(self._sessions)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._sessions

    def items(self) -> Iterator[tuple[str, Session]]:
        return iter(list(self._sessions.items()))

    def values(self) -> Iterator[Session]:
        return iter(list(self._sessions.values()))

    def get(self, session_id: str) -> Session | None:
        """The session, marked as just used."""
        session = self._sessions.pop(session_id, None)
        if session is not None:
            session.last_seen = self._clock()
            self._sessions[session_id] = session
        return session

    def add(self, session_id: str, session: Session) -> Session:
        """Keep ``session``; raises SessionsFull when the table is full of sessions in use."""
        if session_id not in self._sessions and len(self._sessions) >= self.max_sessions:
            victim = self._idlest()
            if victim is None:
                now = self._clock()
                if now - self._warned >= 60:  # one line a minute, however many
                    self._warned = now
                    log.warning("no room for a new session: %s sessions are open and none "
                                "has been idle for %gs (--max-sessions, --session-idle)",
                                f"{len(self._sessions):,}", self.idle)
                raise SessionsFull(len(self._sessions), self.idle)
            log.info("forgot session %s…, idle for %.0fs, to make room for a new one",
                     victim[:12], self._clock() - self._sessions[victim].last_seen)
            self.pop(victim)
        session.last_seen = self._clock()
        self._sessions.pop(session_id, None)
        self._sessions[session_id] = session
        return session

    def pop(self, session_id: str) -> Session | None:
        """Remove a session (ended or evicted) and forget its settings."""
        session = self._sessions.pop(session_id, None)
        if session is not None:
            session.gone = True
        if self._forget is not None:
            self._forget(session_id)
        return session

    def _idlest(self) -> str | None:
        """The least recently used session idle longer than ``idle``, if any."""
        cutoff = self._clock() - self.idle
        for session_id, session in self._sessions.items():
            if session.last_seen > cutoff:
                return None  # every later one was used more recently still
            if not session.streams and not session.running:
                return session_id
        return None
