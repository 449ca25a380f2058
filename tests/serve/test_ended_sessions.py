"""Session ids ended by ``DELETE`` are remembered (so their still-valid signatures are refused)
within bounds an attacker cannot turn against others: one caller ending sessions in bulk
pushes out only its own, expired ids are swept, and the count never passes its limit."""

from __future__ import annotations

import pytest

from toolhost.serve.sessions import SWEEP_EVERY, EndedSessions, SessionTokens, owner_of


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


class Who:
    def __init__(self, subject: str) -> None:
        self.issuer, self.subject = "https://issuer.example", subject


def test_one_caller_ending_sessions_in_bulk_keeps_anothers_ended() -> None:
    clock = Clock()
    ended = EndedSessions(limit=100, per_owner=10, clock=clock)
    tokens = SessionTokens(b"k" * 32)
    alice, mallory = owner_of(Who("alice")), owner_of(Who("mallory"))
    honest = tokens.issue("2025-11-25", owner=alice, now=clock.now)
    ended.add(honest, clock.now + 3600, owner=alice)
    for _ in range(1_000):  # initialize + DELETE, over and over
        ended.add(tokens.issue("2025-11-25", owner=mallory, now=clock.now), clock.now + 3600,
                  owner=mallory)
    assert honest in ended
    assert len(ended) == 11  # mallory keeps only its own share


@pytest.mark.parametrize("count", [5, 6, 50])
def test_without_callers_the_oldest_go_past_the_limit(count: int) -> None:
    clock = Clock()
    ended = EndedSessions(limit=5, per_owner=2, clock=clock)  # no owner: the whole limit
    ids = [f"id-{n}" for n in range(count)]
    for session_id in ids:
        ended.add(session_id, clock.now + 60)
    assert len(ended) == min(count, 5)
    assert all(i in ended for i in ids[-5:])
    assert not any(i in ended for i in ids[:-5])


def test_expired_ids_are_swept_and_no_longer_refused() -> None:
    clock = Clock()
    ended = EndedSessions(limit=1_000, clock=clock)
    for n in range(500):
        ended.add(f"short-{n}", clock.now + 10)
    ended.add("long", clock.now + 10 * SWEEP_EVERY)
    clock.now += 11
    assert "short-0" not in ended and "long" in ended  # expired: no longer refused
    clock.now += SWEEP_EVERY
    ended.add("late", clock.now + 60)
    assert len(ended) == 2  # the expired ones were swept, not kept until the limit


def test_ending_the_same_id_twice_keeps_it_once() -> None:
    clock = Clock()
    ended = EndedSessions(limit=3, clock=clock)
    for _ in range(5):
        ended.add("same", clock.now + 60)
    ended.add("other", clock.now + 60)
    assert len(ended) == 2 and "same" in ended and "other" in ended
    assert 42 not in ended  # not an id at all
