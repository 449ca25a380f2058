"""Python tools that ask the client: ``ctx.elicit`` and ``ctx.sample`` (tests/serve)."""

from __future__ import annotations

import json
from typing import Any

import anyio.from_thread

from toolhost.backends.base import CallContext


async def book(city: str, *, ctx: CallContext) -> str:
    """Book a trip, asking the person for a seat and how many nights.

    Args:
        city: Where to go
    """
    answer = await ctx.elicit(f"Booking a trip to {city}: which seat, how many nights?", {
        "type": "object",
        "properties": {
            "seat": {"type": "string", "enum": ["window", "aisle"], "default": "window"},
            "nights": {"type": "integer", "minimum": 1, "maximum": 30},
        },
        "required": ["seat", "nights"],
    })
    if not answer.accepted:
        return f"not booked ({answer.action})"
    return f"booked {city}: {json.dumps(answer.content, sort_keys=True)}"


def book_sync(city: str, *, ctx: CallContext) -> str:
    """The same question from a sync tool (a worker thread).

    Args:
        city: Where to go
    """
    answer: Any = anyio.from_thread.run(ctx.elicit, f"Go to {city}?")
    return f"{city}: {answer.action}"


async def summarise(text: str, *, ctx: CallContext) -> str:
    """Summarise ``text`` with the client's model.

    Args:
        text: What to summarise
    """
    reply = await ctx.sample(f"Summarise: {text}", max_tokens=50, system_prompt="Be brief.")
    return f"summary by {reply.model}: {reply.text}"


async def nested(*, ctx: CallContext) -> str:
    """Asks with a schema that cannot be elicited (a nested object)."""
    await ctx.elicit("Address?", {"type": "object", "properties": {
        "address": {"type": "object", "properties": {"street": {"type": "string"}}}}})
    return "unreachable"


async def echo(text: str) -> str:
    """Echo ``text`` (its permission rule asks).

    Args:
        text: What to echo
    """
    return text
