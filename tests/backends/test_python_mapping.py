"""A python tool's return value is mapped where the call's timeout stops it, off the event
loop: an object whose ``__str__`` (``__iter__``, ``items``, ``model_dump``, a dataclass field's
``__str__``) spins never freezes the other calls, for sync and async tools alike."""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from tests.serve.stdio_peer import stdio_peer
from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.model import HostConfig

Config = Callable[..., HostConfig]

MODULE = '''
import dataclasses

def spin():
    while True:
        pass

class SlowStr:
    def __str__(self):
        spin()

class SlowItems(dict):
    def items(self):
        spin()

class SlowList(list):
    def __iter__(self):
        spin()

class SlowDump:
    def model_dump(self, mode="json"):
        spin()

@dataclasses.dataclass
class Holder:
    v: object

VALUES = {
    "str": lambda: {"a": SlowStr()},
    "bare": lambda: SlowStr(),
    "items": lambda: SlowItems(a=1),
    "list": lambda: {"a": SlowList([1])},
    "dump": lambda: SlowDump(),
    "dataclass": lambda: Holder(SlowStr()),
    "key": lambda: {SlowStr(): 1},
}

def sync(kind: str) -> object:
    return VALUES[kind]()

async def async_(kind: str) -> object:
    return VALUES[kind]()

def ping() -> str:
    return "pong"

async def aping() -> str:
    return "pong"
'''

KINDS = ("str", "bare", "items", "list", "dump", "dataclass", "key")


@pytest.fixture
def slow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = f"th_slowmap_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


@pytest.mark.anyio
@pytest.mark.parametrize("fn", ["sync", "async_"])
@pytest.mark.parametrize("kind", KINDS)
async def test_a_value_that_spins_is_stopped_by_the_timeout_and_others_are_answered(
        config: Config, slow: str, fn: str, kind: str) -> None:
    def tool(ref: str, **extra: object) -> dict[str, object]:
        return {"kind": "python", "options": {"function": f"{slow}:{ref}"}, **extra}
    compiled = compile_tools(config({"t": tool(fn, timeout=0.5), "ping": tool("ping"),
                                     "aping": tool("aping")}))
    answered: list[float] = []
    try:
        async def others() -> None:
            for name in ("ping", "aping") * 3:
                started = time.monotonic()
                result = await compiled.tool("demo", name).call({}, CallContext())
                assert result.text_content == "pong"
                answered.append(time.monotonic() - started)
                await anyio.sleep(0.05)

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(others)
                result = await compiled.tool("demo", "t").call({"kind": kind}, CallContext())
        assert result.is_error
        assert result.text_content.startswith("Tool 't' timed out after 0.5s and was stopped")
        assert len(answered) == 6 and max(answered) < 0.4, answered
    finally:
        await compiled.aclose()


def test_serve_answers_others_while_an_async_value_spins(tmp_path: Path) -> None:
    (tmp_path / "slow_served.py").write_text(textwrap.dedent(MODULE))
    config = tmp_path / "slow.yaml"
    config.write_text(textwrap.dedent("""\
        toolhost: 1
        permissions: {default: allow}
        servers:
          p:
            timeout: 2s
            tools:
              t: {python: "slow_served:async_"}
              ping: {python: "slow_served:ping"}
        """))
    with stdio_peer(config) as peer:
        peer.request(1, "tools/call", {"name": "t", "arguments": {"kind": "str"}})
        time.sleep(0.3)
        pong = peer.ask(2, "tools/call", {"name": "ping", "arguments": {}}, timeout=1.5)
        assert pong["result"]["content"][0]["text"] == "pong"
        stopped = peer.wait_for(1, timeout=20)["result"]
        assert stopped["isError"] and "timed out after 2s" in stopped["content"][0]["text"]
