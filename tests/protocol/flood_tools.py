"""Tools for the flood test's config (imported by the ``toolhost run`` under test)."""

from __future__ import annotations

import anyio

from toolhost.backends.base import CallContext


def echo(text: str, times: int = 1) -> str:
    """Repeat a text."""
    return " ".join([text] * times)


async def slow(seconds: float, label: str, *, ctx: CallContext) -> str:
    """Answer after a while, reporting progress."""
    await ctx.progress(0, 1, "started")
    await anyio.sleep(seconds)
    await ctx.progress(1, 1, "done")
    return f"slow {label}"


def boom(reason: str) -> str:
    """Always fails."""
    raise RuntimeError(f"boom: {reason}")


async def hang() -> str:
    """Never answers unless cancelled."""
    await anyio.sleep(3600)
    return "never"


def secret(key: str) -> str:
    """Denied by the config."""
    return key


def shout(word: str) -> str:
    """Its input is rewritten by the config."""
    return f"{word}!"


def size(text: str) -> int:
    """The length of a text (for the 10 MB line: the answer stays small)."""
    return len(text)
