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

Eviction is fair between clients (a session's ``holder``: its OAuth caller, else its client's
address, an IPv6 one by its /64): the victim is taken from the client holding the most
sessions, so a client opening thousands pushes out its own before anyone else's. And when no
session is idle that long, a client holding more sessions than the newcomer's client plus one
gives up its least recently used session that is not in use (no stream, no call running):
one client cannot keep every place, and the newcomer's settings (subscriptions) are kept.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import time
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from toolhost.mcp import jsonrpc as rpc
from toolhost.serve.base import error_response
from toolhost.serve.http_state import Session

__all__ = ["SessionTable", "SessionsFull", "holder_of"]

log = logging.getLogger("toolhost.serve")


def holder_of(owner: str, client: Any) -> str:
    """Who holds a session, for a fair eviction: its OAuth caller (``owner``), else the
    address of its client (an ASGI ``scope["client"]``); an IPv6 one by its /64, which one
    host may fill with addresses of its own."""
    if owner:
        return f"caller {owner}"
    host = client[0] if isinstance(client, (tuple, list)) and client else None
    if not isinstance(host, str):
        return ""
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if address.version == 6 and address.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address.ipv4_mapped or address) if address.version == 6 else str(address)


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
        # the same sessions by holder, each least recently used first (the eviction's order)
        self._held: dict[str, dict[str, Session]] = {}
        self._warned = -math.inf  # when "no room" was last logged

    def __len__(self) -> int:
        return len(self._sessions)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._sessions

    def items(self) -> Iterator[tuple[str, Session]]:
        return iter(list(self._sessions.items()))

    def values(self) -> Iterator[Session]:
        return iter(list(self._sessions.values()))

    def holder(self, peer: Hashable) -> Hashable:
        """Who holds the session ``peer`` names (``peer`` itself for any other peer), for
        the subscription budget's fair eviction (``toolhost.mcp.subscriptions``)."""
        session = self._sessions.get(peer) if isinstance(peer, str) else None
        return ("holder", session.holder) if session is not None else peer

    def get(self, session_id: str) -> Session | None:
        """The session, marked as just used."""
        session = self._sessions.pop(session_id, None)
        if session is not None:
            session.last_seen = self._clock()
            self._sessions[session_id] = session
            held = self._held[session.holder]
            held.pop(session_id)
            held[session_id] = session
        return session

    def add(self, session_id: str, session: Session) -> Session:
        """Keep ``session``; raises SessionsFull when the table is full of sessions in use."""
        if session_id not in self._sessions and len(self._sessions) >= self.max_sessions:
            victim = self._victim(session.holder)
            if victim is None:
                now = self._clock()
                if now - self._warned >= 60:  # one line a minute, however many
                    self._warned = now
                    log.warning("no room for a new session: %s sessions are open and none "
                                "has been idle for %gs (--max-sessions, --session-idle)",
                                f"{len(self._sessions):,}", self.idle)
                raise SessionsFull(len(self._sessions), self.idle)
            log.info("forgot session …%s, idle for %.0fs, of a client holding %d, to make "
                     "room for a new one", victim[-12:],
                     self._clock() - self._sessions[victim].last_seen,
                     len(self._held[self._sessions[victim].holder]))
            self.pop(victim)
        session.last_seen = self._clock()
        self._drop(session_id)
        self._sessions[session_id] = session
        self._held.setdefault(session.holder, {})[session_id] = session
        return session

    def pop(self, session_id: str) -> Session | None:
        """Remove a session (ended or evicted) and forget its settings."""
        session = self._drop(session_id)
        if session is not None:
            session.gone = True
        if self._forget is not None:
            self._forget(session_id)
        return session

    def _drop(self, session_id: str) -> Session | None:
        session = self._sessions.pop(session_id, None)
        if session is not None:
            held = self._held[session.holder]
            held.pop(session_id, None)
            if not held:
                del self._held[session.holder]
        return session

    def _victim(self, holder: str) -> str | None:
        """The session a new one of ``holder`` replaces, if any: of the holders with the
        most sessions first, the least recently used idle one (see the module docstring)."""
        cutoff = self._clock() - self.idle
        own = self._held.get(holder, {})
        # a holder with more than this gives up a recent session too (never one in use); one
        # holding at most 1 % of the table never does: many clients may each keep a few
        share = max(len(own) + 1, self.max_sessions // 100)
        # never a session of another client holding no more than the newcomer's client
        larger = [held for held in self._held.values() if held is own or len(held) > len(own)]
        for held in sorted(larger, key=len, reverse=True):
            unfair = len(held) > share
            for session_id, session in held.items():
                if session.last_seen > cutoff and not unfair:
                    break  # every later one was used more recently still
                if not session.streams and not session.running:
                    return session_id
        return None
