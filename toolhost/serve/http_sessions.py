"""The sessions of the 2025 revisions one HTTP replica serves: found by their signed ids
(``toolhost.serve.sessions``), kept in a bounded table (``toolhost.serve.session_table``),
started on ``initialize``, ended by ``DELETE`` (``EndedSessions``), each usable only by the
caller that started it.

When the table is full of sessions in use (a client opening sessions in a loop), a request
of a session that cannot be kept is still answered: with a session made for that request
only (``Session.kept`` False), which keeps no settings, declares no client capabilities (an
ask or ``ctx.elicit`` is refused at once: its answer would reach no kept session) and has
no ``GET`` stream (503). So a flood of sessions neither evicts the kept ones' state nor
stops anyone's calls.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Hashable, Mapping
from typing import Any

from starlette.responses import Response

from toolhost.excerpt import cut
from toolhost.limits import Limits
from toolhost.serve.base import error_response
from toolhost.serve.budget import Budget
from toolhost.serve.http_limits import JsonAnswer
from toolhost.serve.http_state import Session
from toolhost.serve.http_streams import SESSION_ENDED, SESSION_EXPIRED, SHUTTING_DOWN
from toolhost.serve.session_table import SessionsFull, SessionTable
from toolhost.serve.sessions import EndedSessions, SessionTokens, same_owner

__all__ = ["LegacySessions"]

log = logging.getLogger("toolhost.serve")


def _close_streams(session: Session, farewell: bytes) -> None:
    """End ``session``'s GET streams after what is queued, then ``farewell`` (why)."""
    for stream in session.streams:
        stream.close(farewell)
    session.streams.clear()


class LegacySessions:
    """Sessions by id on this replica (see the module docstring)."""

    def __init__(self, tokens: SessionTokens, limits: Limits,
                 forget: Callable[[Hashable], None] | None = None) -> None:
        self.tokens = tokens
        self._limits = limits
        # Sessions kept here (--max-sessions): an evicted idle one comes back from its signed
        # id, without the settings it made (forgotten with it)
        self.table = SessionTable(limits.max_sessions, limits.session_idle, forget)
        self.ended = EndedSessions()  # ids DELETEd here: 404 until they expire
        self._warned = -60.0  # when sessions not kept were last logged
        # Sessions served without being kept, while they have requests being answered: the
        # requests of one share its --max-in-flight budget and its ids in use (at most one
        # entry per request in flight, dropped when its last is answered)
        self._unkept: dict[str, Session] = {}

    def find(self, session_id: str, owner: str = "", *, unkept: bool = False,
             caller: Any = None, holder: str = "") -> Session | None:
        """The session an id names: known here, or signed by a replica, and started by the
        caller ``owner`` names (``owner_of``): for anyone else it is unknown (and the refusal
        logged, naming ``caller``, who asked). ``unkept``: when it cannot be kept
        (SessionsFull), one for this request only instead of raising."""
        session = self.table.get(session_id)
        if session is not None:
            if not same_owner(session.owner, owner):
                self._not_theirs(session_id, caller)
                return None
            if session.expires >= time.time():
                return session
            # expired: unknown on every replica, also one that holds it (its streams close)
            self.table.pop(session_id)
            _close_streams(session, SESSION_EXPIRED)
            return None
        if session_id in self.ended:  # its signature is still good, but it was ended here
            return None
        claims = self.tokens.check(session_id)
        if claims is None:
            return None
        if not same_owner(claims.owner, owner):
            self._not_theirs(session_id, caller)
            return None
        shared = self._unkept.get(session_id)
        if shared is not None and unkept:
            return shared
        return self._remember(session_id, Session(capabilities=claims.capabilities,
                                                  expires=claims.expires, owner=claims.owner,
                                                  holder=holder), unkept=unkept)

    def live(self, session_id: str, owner: str = "", *, caller: Any = None) -> bool:
        """Whether ``session_id`` names a session ``owner`` may use (kept here or signed by a
        replica, neither ended nor expired), as ``find`` would, but keeping nothing: an
        ``initialize`` that carries it is refused, and must not bring it into the table."""
        session = self.table.get(session_id)
        if session is not None:
            if not same_owner(session.owner, owner):
                self._not_theirs(session_id, caller)
                return False
            return session.expires >= time.time()
        if session_id in self.ended:
            return False
        claims = self.tokens.check(session_id)
        if claims is not None and not same_owner(claims.owner, owner):
            self._not_theirs(session_id, caller)
            return False
        return claims is not None

    def start(self, version: Any, capabilities: Any, owner: str, holder: str = ""
              ) -> tuple[str, Session]:
        """A new session of ``initialize`` (one not kept when there is no room); ``holder``:
        who holds it (``session_table.holder_of``)."""
        caps = capabilities if isinstance(capabilities, Mapping) else {}
        session_id = self.tokens.issue(version if isinstance(version, str) else "", caps,
                                       owner=owner)
        issued = self.tokens.check(session_id)
        # Only which capabilities were declared is kept (what the signed id carries, and all
        # a request to the client asks): the client's whole object stayed with its session
        # for as long as it was kept, 1 MB of it per initialize, 10,000 sessions of it
        declared = issued.capabilities if issued is not None else {}
        return session_id, self._remember(session_id, Session(
            capabilities=declared, expires=issued.expires if issued else 0.0, owner=owner,
            holder=holder), unkept=True)

    def end(self, session_id: str | None, owner: str = "", *, caller: Any = None
            ) -> Response:
        """``DELETE``: end a session on this replica: its id is answered 404 from now on
        (until it expires) and its GET streams close. Calls it has running finish; what they
        asked the client (``ctx.elicit``) fails at once. Only the caller that started it
        (``owner``) may end it: for anyone else it is unknown."""
        if session_id is None:
            return JsonAnswer(error_response(None, -32600, "DELETE ends a session: send "
                                             "its Mcp-Session-Id"), status_code=400)
        claims = self.tokens.check(session_id) if session_id not in self.ended else None
        if claims is not None and not same_owner(claims.owner, owner):
            self._not_theirs(session_id, caller)
            claims = None
        if claims is None:
            return JsonAnswer(error_response(None, -32600,
                                             f"unknown session {cut(session_id, 64)}"),
                              status_code=404)
        session = self.table.pop(session_id)
        self._unkept.pop(session_id, None)
        self.ended.add(session_id, claims.expires, owner=claims.owner)
        if session is not None:
            _close_streams(session, SESSION_ENDED)
            # its calls run on, but nobody can answer what they asked the client now
            session.pending.fail_all("the client ended its session (DELETE) before "
                                     "answering")
        return Response(status_code=204)

    def offer(self, message: Mapping[str, Any],
              peers: Collection[Hashable] | None = None) -> None:
        """Offer a notification to the open ``GET`` streams of the sessions ``peers`` names
        (every session when None); never waits: a stream that falls behind is dropped."""
        for session_id, session in self.table.items():
            if peers is not None and session_id not in peers:
                continue
            for stream in list(session.streams):
                stream.offer(dict(message))

    def close_streams(self) -> None:
        """End every session's streams (on shutdown)."""
        for session in self.table.values():
            _close_streams(session, SHUTTING_DOWN)

    @staticmethod
    def _not_theirs(session_id: str, caller: Any = None) -> None:
        """Log a refusal of another caller's session, naming who asked (subject, issuer)."""
        who = ("a request without a caller" if caller is None else
               f"subject {cut(repr(str(caller.subject)), 80)} of "
               f"{cut(repr(str(caller.issuer)), 120)}")
        log.warning("refused session %s: another caller started it (asked by %s)",
                    cut(session_id, 12), who)

    def _remember(self, session_id: str, session: Session, *, unkept: bool = False
                  ) -> Session:
        """Keep a new session; when every session kept is in use, raises SessionsFull, or
        with ``unkept`` returns it for one request (see the module docstring)."""
        session.budget = Budget(self._limits.max_in_flight, None, scope="in this session",
                                flags="toolhost serve --max-in-flight")
        try:
            return self.table.add(session_id, session)
        except SessionsFull:
            if not unkept:
                raise
        now = time.monotonic()
        if now - self._warned >= 60:  # one line a minute, however many
            self._warned = now
            log.warning("serving sessions without keeping them: %s sessions are in use "
                        "(toolhost serve --max-sessions, --session-idle); their calls are "
                        "answered, but they keep no settings, get no GET stream and cannot "
                        "be asked questions", f"{len(self.table):,}")
        session.kept = False
        session.capabilities = {}  # an answer to a question would reach no kept session
        session.unkept_id = session_id
        self._unkept[session_id] = session
        return session

    def done_unkept(self, session: Session) -> None:
        """A request of a session not kept was answered: forget the session once none is."""
        if not session.taken and (session.budget is None or session.budget.count == 0) \
                and self._unkept.get(session.unkept_id) is session:
            del self._unkept[session.unkept_id]
