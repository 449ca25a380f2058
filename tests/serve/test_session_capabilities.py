"""A kept session holds which capabilities its client declared, not the client's object:
an ``initialize`` may carry megabytes of capabilities, and 10,000 sessions are kept."""

from __future__ import annotations

from toolhost.limits import DEFAULT_LIMITS
from toolhost.serve.http_sessions import LegacySessions
from toolhost.serve.sessions import SessionTokens


def test_a_session_keeps_the_declared_capabilities_only() -> None:
    sessions = LegacySessions(SessionTokens("s3cret"), DEFAULT_LIMITS)
    padding = {f"x{i}": {"y": "z" * 100} for i in range(1000)}
    declared = {"elicitation": {"form": {}, "padding": padding}, "sampling": {},
                "experimental": padding, "roots": "not an object"}
    session_id, session = sessions.start("2025-06-18", declared, owner="")
    assert set(session.capabilities) == {"elicitation", "sampling"}
    assert all(value == {} for value in session.capabilities.values())
    # what the same session brought back from its id holds: the same
    claims = sessions.tokens.check(session_id)
    assert claims is not None and claims.capabilities == session.capabilities
