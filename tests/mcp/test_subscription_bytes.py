"""What ``resources/subscribe`` keeps is bounded in bytes: per connection (the URIs'
characters) and for every connection together (idle HTTP sessions cost a client nothing:
10,000 of them holding 1,000 URIs of 8 KB each were 80 GB)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolhost.compile.content import ServerContent
from toolhost.mcp.content import ContentMethods, MethodError
from toolhost.mcp.subscriptions import MAX_SUBSCRIBED_CHARS


def methods() -> ContentMethods:
    made = ContentMethods(ServerContent(), 50)
    made._known_uri = lambda params: params["uri"]  # type: ignore[method-assign]
    return made


def subscribe(made: ContentMethods, peer: Any, uri: str) -> None:
    asyncio.run(made.subscribe({"uri": uri}, peer))


def test_one_connection_holds_at_most_its_share_of_characters() -> None:
    made = methods()
    long = 8000
    fits = MAX_SUBSCRIBED_CHARS // (long + 10)
    for index in range(fits):
        subscribe(made, "a", f"w://{index:05}-" + "x" * long)
    with pytest.raises(MethodError, match="characters in all"):
        subscribe(made, "a", "w://one-more-" + "x" * long)
    subscribe(made, "a", "w://00000-" + "x" * long)  # one held already: still fine
    assert len(made.subscriptions["a"]) == fits


def test_all_connections_together_are_bounded_and_the_largest_go_first() -> None:
    made = methods()
    made.table.max_bytes = 200_000
    subscribe(made, "honest", "w://mine")
    for peer in range(40):  # a client filling the budget from many sessions
        for index in range(5):
            subscribe(made, peer, f"w://{peer}-{index}-" + "x" * 2000)
    held = sum(len(u) + 128 for uris in made.subscriptions.values() for u in uris)
    assert held <= made.table.max_bytes
    assert made.subscriptions["honest"] == {"w://mine"}
    assert 39 in made.subscriptions  # the newest stays


def test_the_budget_takes_from_the_client_holding_the_most_not_the_largest_session() -> None:
    # many small sessions of one client, one larger session of another: per session, the
    # honest one was the largest and went first, though the other client held 20 times more
    made = methods()
    made.table.max_bytes = 200_000
    made.table.holder_of = lambda peer: "honest" if peer == "honest" else "flood"
    for index in range(10):
        subscribe(made, "honest", f"w://mine-{index}-" + "x" * 2000)
    for peer in range(40):
        for index in range(5):
            subscribe(made, peer, f"w://{peer}-{index}-" + "x" * 2000)
    assert len(made.subscriptions["honest"]) == 10
    held = sum(len(u) + 128 for uris in made.subscriptions.values() for u in uris)
    assert held <= made.table.max_bytes
