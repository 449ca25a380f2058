"""A python tool's exception is described where the tool's code runs: one whose message
cannot be read (its ``__str__`` raises, returns no text, a ``KeyError``'s key whose
``__repr__`` raises) is still a one-line error result, and one whose ``__str__`` hangs is
stopped by the call's timeout while the host answers other calls (it froze the event loop)."""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext, ToolRaised
from toolhost.compile import compile_tools
from toolhost.config.model import HostConfig

from .python_places import PLACES, PLACES_CODE, function_of, place_arguments

Config = Callable[..., HostConfig]

MODULE = '''
import dataclasses, time

class RaisingStr(Exception):
    def __str__(self):
        raise RuntimeError("str boom")

class NotText(Exception):
    def __str__(self):
        return 5

class Recursive(Exception):
    def __str__(self):
        return str(self)

class BadBase(BaseException):
    def __str__(self):
        raise ValueError("no")

class Nested(Exception):
    def __str__(self):
        raise RaisingStr()

class BadRepr:
    def __repr__(self):
        raise RuntimeError("repr boom")

class SpinStr(Exception):
    def __str__(self):
        while True:
            pass

class SleepStr(Exception):
    def __str__(self):
        time.sleep(3)
        return "late"

def make(what):
    if what == "TimeoutError":
        return TimeoutError("the upstream was slow")
    if what == "KeyError":
        return KeyError(BadRepr())
    return globals()[what]()

def fail(what):
    raise make(what)
''' + PLACES_CODE

# what the tool raises -> how its error result names it
UNREADABLE = {
    "RaisingStr": "RaisingStr: (its message could not be read: RuntimeError)",
    "NotText": "NotText: (its message could not be read: TypeError)",
    "Recursive": "Recursive: (its message could not be read: RecursionError)",
    "BadBase": "BadBase: (its message could not be read: ValueError)",
    "Nested": "Nested: (its message could not be read: RaisingStr)",
    "KeyError": "KeyError: (its message could not be read: RuntimeError)",
}


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = f"th_exc_messages_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def _tools(module: str, isolation: str = "in-process", **extra: Any) -> dict[str, Any]:
    tools = {}
    for place in (*PLACES, "ping"):
        tools[place] = {"kind": "python", "options": {"function": f"{module}:{function_of(place)}",
                                                      "isolation": isolation}, **extra}
    return tools


@pytest.mark.anyio
@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("what", list(UNREADABLE))
async def test_an_unreadable_message_is_said_so(config: Config, module: str, place: str,
                                                what: str) -> None:
    compiled = compile_tools(config(_tools(module, timeout=10)))
    try:
        result = await compiled.tool("demo", place).call(place_arguments(place, what),
                                                          CallContext(tool=place))
        assert result.is_error
        assert result.text_content == f"Tool '{place}' failed: {UNREADABLE[what]}"
        again = await compiled.tool("demo", "ping").call({}, CallContext(tool="ping"))
        assert again.text_content == "pong"
    finally:
        await compiled.aclose()


@pytest.mark.anyio
@pytest.mark.parametrize("place", ["sync", "async", "str_async", "arg_sync"])
@pytest.mark.parametrize("what", ["RaisingStr", "NotText", "KeyError", "BadBase"])
async def test_an_unreadable_message_in_a_worker(config: Config, module: str, place: str,
                                                 what: str) -> None:
    compiled = compile_tools(config(_tools(module, "process", timeout=30)))
    try:
        result = await compiled.tool("demo", place).call(place_arguments(place, what),
                                                          CallContext(tool=place))
        assert result.text_content == f"Tool '{place}' failed: {UNREADABLE[what]}"
        # the worker did not crash: the same one answers the next call
        pool_started = compiled.tool("demo", place)
        again = await pool_started.call(place_arguments(place, what), CallContext(tool=place))
        assert again.text_content == result.text_content
    finally:
        await compiled.aclose()


@pytest.mark.anyio
@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("what", ["SpinStr", "SleepStr"])
async def test_a_hanging_message_is_stopped_by_the_timeout(config: Config, module: str,
                                                           place: str, what: str) -> None:
    compiled = compile_tools(config(_tools(module, timeout=0.5)))
    answered: list[float] = []
    try:
        start = time.monotonic()

        async def ping() -> None:
            await anyio.sleep(0.1)
            result = await compiled.tool("demo", "ping").call({}, CallContext(tool="ping"))
            assert result.text_content == "pong"
            answered.append(time.monotonic() - start)

        async with anyio.create_task_group() as tg:
            tg.start_soon(ping)
            result = await compiled.tool("demo", place).call(place_arguments(place, what),
                                                              CallContext(tool=place))
        took = time.monotonic() - start
        assert result.is_error, result.text_content
        assert ("timed out" in result.text_content
                or "could not be stopped" in result.text_content), result.text_content
        assert took < 2.5, f"the call took {took:.1f}s: the message was read on the loop"
        assert answered and answered[0] < 1.0, answered
    finally:
        await compiled.aclose()


@pytest.mark.anyio
@pytest.mark.parametrize("place", PLACES)
async def test_a_tools_own_timeout_error_is_its_failure(config: Config, module: str,
                                                        place: str) -> None:
    """Not the call's timeout: the tool's TimeoutError (a socket's, an upstream's) is named."""
    compiled = compile_tools(config(_tools(module, timeout=10)))
    try:
        result = await compiled.tool("demo", place).call(place_arguments(place, "TimeoutError"),
                                                          CallContext(tool=place))
        assert result.text_content == (f"Tool '{place}' failed: TimeoutError: the upstream "
                                       "was slow")
    finally:
        await compiled.aclose()


def test_describe_passes_the_hosts_control_exceptions() -> None:
    from toolhost.backends.base import describe
    from toolhost.backends.threads import ToolStopped

    class Stopped(Exception):
        def __str__(self) -> str:
            raise ToolStopped()

    class Unreadable(Exception):
        def __str__(self) -> str:
            raise OSError("gone")

    with pytest.raises(ToolStopped):
        describe(Stopped())
    carried = ToolRaised(Unreadable())
    assert (carried.original_type, str(carried)) == (
        "Unreadable", "(its message could not be read: OSError)")
