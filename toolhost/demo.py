"""Small example tools that ship with toolhost, so ``python: toolhost.demo:add`` works anywhere.

The example configs (``examples/configs/backends-python.yaml``, ``demo.yaml``) use them; they
also show what the ``python`` backend reads from a function: types, defaults, the docstring.
"""

from __future__ import annotations

import collections
import re
from dataclasses import dataclass
from typing import Annotated, Literal, TypedDict

from toolhost.backends.base import CallContext

__all__ = ["Stats", "add", "describe_text", "fail", "slow_count", "word_count", "word_stats"]


def add(a: float, b: float) -> float:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


def word_count(text: str) -> int:
    """Count the words in a text (runs of letters, digits, apostrophes).

    Args:
        text: The text to count the words of.
    """
    return len(re.findall(r"[\w']+", text))


class Stats(TypedDict):
    words: int
    characters: int
    top: list[str]


def word_stats(text: str, top: Annotated[int, "How many frequent words to list"] = 3) -> Stats:
    """Word and character counts of a text, and its most frequent words.

    :param text: The text to analyse.
    """
    words = [w.lower() for w in re.findall(r"[\w']+", text)]
    common = [w for w, _ in collections.Counter(words).most_common(top)]
    return {"words": len(words), "characters": len(text), "top": common}


@dataclass
class Description:
    """How long a text is, and what kind that makes it."""

    length: int
    kind: Literal["empty", "short", "long"]


def describe_text(text: str) -> Description:
    """Classify a text by its length (a dataclass result becomes structured content)."""
    kind: Literal["empty", "short", "long"] = (
        "empty" if not text else "short" if len(text) < 80 else "long")
    return Description(length=len(text), kind=kind)


async def slow_count(to: int = 3, delay: float = 0.2, *, ctx: CallContext) -> str:
    """Count slowly up to a number, reporting progress on the way (an async tool).

    Parameters
    ----------
    to : int
        The number to count to.
    delay : float
        Seconds to wait between numbers.
    """
    import anyio  # only this tool needs it: the demo config validates without it

    for i in range(1, to + 1):
        await anyio.sleep(delay)
        await ctx.progress(i, to, f"counted {i}")
    return " ".join(str(i) for i in range(1, to + 1))


def fail(reason: str = "something went wrong") -> str:
    """Always fail, to show how an error reaches the model.

    Args:
        reason: The message of the error.
    """
    raise RuntimeError(reason)
