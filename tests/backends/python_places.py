"""The places a python tool's own code runs, for tests of what it raises there.

A tool's code runs in its function (sync, async, a sync function handing back a coroutine),
in a returned value's ``__str__`` and in a dataclass argument's ``__post_init__``. ``PLACES``
names them; ``PLACES_CODE`` defines a tool for each that calls ``fail(what)``, which the
test's module defines before it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PLACES", "PLACES_CODE", "function_of", "place_arguments"]

PLACES = ("sync", "async", "sync_coro", "str_sync", "str_async", "arg_sync", "arg_async")

PLACES_CODE = '''
class Odd:
    def __init__(self, what):
        self.what = what
    def __str__(self):
        fail(self.what)
        return "odd"

@dataclasses.dataclass
class Arg:
    what: str
    def __post_init__(self):
        fail(self.what)

def sync(what: str) -> str:
    fail(what)
    return "no"

async def async_(what: str) -> str:
    fail(what)
    return "no"

def sync_coro(what: str) -> str:
    return async_(what)

def str_sync(what: str) -> dict:
    return {"v": Odd(what)}

async def str_async(what: str) -> dict:
    return {"v": Odd(what)}

def arg_sync(a: Arg) -> str:
    return "no"

async def arg_async(a: Arg) -> str:
    return "no"

def ping() -> str:
    return "pong"
'''


def function_of(place: str) -> str:
    """The function in ``PLACES_CODE`` that runs ``place`` (``async`` is a keyword)."""
    return "async_" if place == "async" else place


def place_arguments(place: str, what: str) -> dict[str, Any]:
    """A call's arguments that make ``place``'s code run ``fail(what)``."""
    return {"a": {"what": what}} if place.startswith("arg") else {"what": what}
