"""A python tool's own BaseException (SystemExit, KeyboardInterrupt, GeneratorExit, a
CancelledError no cancellation caused, ...) is that call's error result, in every place the
tool's code runs, and the host answers every later call; a real cancellation still cancels."""

from __future__ import annotations

import logging
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.serve.stdio_peer import stdio_peer
from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.model import HostConfig

from .python_places import PLACES, PLACES_CODE, function_of, place_arguments

Config = Callable[..., HostConfig]

# what the tool raises -> how its error result names it
RAISES = {
    "sys.exit(3)": "SystemExit: 3",
    "sys.exit()": "SystemExit",
    "sys.exit('bad width')": "SystemExit: bad width",
    "argparse.ArgumentParser(prog='r').parse_args(['--nope'])": "SystemExit: 2",
    "KeyboardInterrupt()": "KeyboardInterrupt",
    "GeneratorExit()": "GeneratorExit",
    "BaseException('base')": "BaseException: base",
    "Custom('mine')": "Custom: mine",
    "asyncio.CancelledError()": "CancelledError",
    "BaseExceptionGroup('g', [KeyboardInterrupt()])": "BaseExceptionGroup: g (1 sub-exception)",
    "StopIteration(7)": "StopIteration: 7",
    "StopAsyncIteration()": "StopAsyncIteration",
}

MODULE = '''
import argparse, asyncio, dataclasses, sys

class Custom(BaseException):
    pass

def fail(what):
    if what.endswith(")") and "(" in what and not what.startswith(("sys.", "argparse.")):
        raise eval(what)
    eval(what)
''' + PLACES_CODE + '''
async def sleepy(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return "slept"

async def swallow_then_exit(seconds: float) -> str:
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        sys.exit(4)
    return "slept"
'''


@pytest.fixture
def raising(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = f"th_raising_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def _tools(module: str, **extra: Any) -> dict[str, dict[str, Any]]:
    tools = {place: {"kind": "python", "options": {"function": f"{module}:{function_of(place)}"},
                     **extra} for place in PLACES}
    for fn in ("ping", "sleepy", "swallow_then_exit"):
        tools[fn] = {"kind": "python", "options": {"function": f"{module}:{fn}"}, **extra}
    return tools


@pytest.mark.anyio
@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("what", list(RAISES))
async def test_a_tools_base_exception_is_its_error_result(
        config: Config, raising: str, place: str, what: str,
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLHOST_DEBUG", raising=False)
    compiled = compile_tools(config(_tools(raising, timeout=10)))
    try:
        with caplog.at_level(logging.ERROR, logger="toolhost.call"):
            result = await compiled.tool("demo", place).call(place_arguments(place, what),
                                                              CallContext(tool=place))
        assert result.is_error
        assert result.text_content == f"Tool '{place}' failed: {RAISES[what]}"
        assert "Traceback" not in caplog.text
        # the host goes on
        again = await compiled.tool("demo", "ping").call({}, CallContext(tool="ping"))
        assert again.text_content == "pong"
    finally:
        await compiled.aclose()


@pytest.mark.anyio
async def test_the_traceback_is_logged_with_debug(config: Config, raising: str,
                                                  caplog: pytest.LogCaptureFixture,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLHOST_DEBUG", "1")
    compiled = compile_tools(config(_tools(raising)))
    try:
        with caplog.at_level(logging.ERROR, logger="toolhost.call"):
            await compiled.tool("demo", "sync").call({"what": "sys.exit(3)"}, CallContext())
        assert "Traceback" in caplog.text and "SystemExit: 3" in caplog.text
    finally:
        await compiled.aclose()


@pytest.mark.anyio
@pytest.mark.parametrize("tool", ["sleepy", "swallow_then_exit"])
async def test_a_real_cancellation_still_cancels(config: Config, raising: str,
                                                 tool: str) -> None:
    compiled = compile_tools(config(_tools(raising)))
    try:
        with anyio.CancelScope() as scope:
            async def cancel_soon() -> None:
                await anyio.sleep(0.2)
                scope.cancel()

            async with anyio.create_task_group() as tg:
                tg.start_soon(cancel_soon)
                await compiled.tool("demo", tool).call({"seconds": 30}, CallContext())
                pytest.fail("the cancelled call returned")
        assert scope.cancelled_caught
    finally:
        await compiled.aclose()


@pytest.mark.anyio
async def test_a_timeout_still_times_out(config: Config, raising: str) -> None:
    compiled = compile_tools(config(_tools(raising, timeout=0.3)))
    try:
        for tool in ("sleepy", "swallow_then_exit"):
            result = await compiled.tool("demo", tool).call({"seconds": 30}, CallContext())
            assert result.text_content.startswith(f"Tool '{tool}' timed out after 0.3s")
    finally:
        await compiled.aclose()


def _config_file(tmp_path: Path, module: str, isolation: str) -> Path:
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(MODULE))
    lines = ["toolhost: 1", "permissions: {default: allow}", "servers:", "  p:",
             "    timeout: 20s", "    tools:"]
    for place in ("sync", "async", "str_async", "arg_sync", "ping"):
        fn = "async_" if place == "async" else place
        lines.append(f"      {place}: {{python: {{function: '{module}:{fn}', "
                     f"isolation: {isolation}}}}}")
    path = tmp_path / "raising.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("isolation", ["in-process", "process"])
def test_serve_answers_every_call_after_tools_raise(tmp_path: Path, isolation: str) -> None:
    config = _config_file(tmp_path, "served_raising", isolation)
    with stdio_peer(config) as peer:
        calls = [(p, w) for p in ("sync", "async", "str_async", "arg_sync")
                 for w in ("sys.exit(2)", "KeyboardInterrupt()", "GeneratorExit()",
                           "BaseException('b')", "asyncio.CancelledError()")]
        for n, (place, what) in enumerate(calls):
            peer.request(n, "tools/call",
                         {"name": place, "arguments": place_arguments(place, what)})
            peer.request(f"ping{n}", "tools/call", {"name": "ping", "arguments": {}})
        for n, (place, what) in enumerate(calls):
            answer = peer.wait_for(n, timeout=60)["result"]
            assert answer["isError"], (place, what, answer)
            text = answer["content"][0]["text"]
            assert text.startswith(f"Tool '{place}' failed: "), text
            assert "\n" not in text
            assert peer.wait_for(f"ping{n}", timeout=60)["result"]["content"][0]["text"] == "pong"
        assert peer.proc.poll() is None
    assert "Traceback" not in peer.log()
