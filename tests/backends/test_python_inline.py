"""``blocking: false``: a python ``def`` the config says never blocks runs on the event loop,
as an ``async def`` with no ``await`` does, without the hand-off to a pool thread
(``toolhost.backends.python``). Its answers are those of the same def run in the pool; it runs
in the loop's thread; one that blocks anyway is stopped as an async def is
(``toolhost.backends.loop_hold``); the option is refused where it cannot mean anything."""

from __future__ import annotations

import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.serve.stdio_peer import stdio_peer
from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.loader import load_config
from toolhost.config.model import HostConfig
from toolhost.errors import CompileError, ConfigError

Config = Callable[..., HostConfig]

MODULE = '''
from __future__ import annotations
import contextvars, dataclasses, threading
from toolhost.backends.base import CallContext
from toolhost.results import ToolResult

RAN: list[int] = []  # the thread of each call
SEEN = contextvars.ContextVar("SEEN", default="unset")


@dataclasses.dataclass
class Box:
    name: str


class Loud(Exception):
    def __str__(self) -> str:
        return "loud: " + repr(self.args)


def text(s: str) -> str:
    RAN.append(threading.get_ident())
    return s.upper()


def mapping(n: int) -> dict[str, int]:
    RAN.append(threading.get_ident())
    return {"n": n, "twice": n * 2}


def many(n: int) -> list[int]:  # past PLAIN_NODES: mapped in a thread either way
    RAN.append(threading.get_ident())
    return list(range(n))


def nothing() -> None:
    RAN.append(threading.get_ident())


def result() -> ToolResult:
    RAN.append(threading.get_ident())
    return ToolResult(content=({"type": "text", "text": "own"},), is_error=True)


def box(name: str) -> Box:
    RAN.append(threading.get_ident())
    return Box(name)


def fails(n: int) -> str:
    RAN.append(threading.get_ident())
    raise ValueError(f"n must be even, got {n}")


def loud() -> str:
    RAN.append(threading.get_ident())
    raise Loud(1, "two")


def exits() -> str:
    RAN.append(threading.get_ident())
    raise SystemExit(2)


def coro(s: str):  # a def handing back a coroutine
    RAN.append(threading.get_ident())

    async def inner() -> str:
        return s + "!"
    return inner()


def agen(n: int):  # a def handing back an async generator
    RAN.append(threading.get_ident())

    async def gen():
        for i in range(n):
            yield i
    return gen()


def reports(ctx: CallContext) -> str:  # a thread's way to the loop: not from the loop
    import anyio.from_thread

    anyio.from_thread.run(ctx.progress, 1, 2, "half")
    return "reported"


def waits(seconds: float):  # a def handing back a coroutine that waits: cancellable
    import anyio

    async def inner() -> str:
        await anyio.sleep(seconds)
        return "waited"
    return inner()


def moves() -> str:  # the host's working directory is refused to a tool's code
    import os

    os.chdir("/")
    return "moved"


def sets(value: str) -> str:  # a ContextVar set by one call is not seen by the next
    from toolhost.backends.host_guards import IN_TOOL

    before = SEEN.get()
    SEEN.set(value)
    return f"{before} {IN_TOOL.get()}"
'''

CASES: list[tuple[str, dict[str, Any]]] = [
    ("text", {"s": "hi"}), ("mapping", {"n": 3}), ("many", {"n": 500}), ("nothing", {}),
    ("result", {}), ("box", {"name": "b"}), ("fails", {"n": 3}), ("loud", {}), ("exits", {}),
    ("coro", {"s": "x"}), ("agen", {"n": 3}),
]


@pytest.fixture
def inline_mod(tmp_path: Path) -> Iterator[Any]:
    name = f"th_inline_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(MODULE)
    sys.path.insert(0, str(tmp_path))
    try:
        yield __import__(name)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)


def _tools(module: Any, **options: Any) -> dict[str, dict[str, Any]]:
    names = dict.fromkeys(name for name, _ in CASES)
    return {name: {"kind": "python", "options": {
        "function": f"{module.__name__}:{name}", "allow_untyped": True, **options}}
        for name in names}


@pytest.mark.anyio
async def test_blocking_false_answers_as_the_pool_does_from_the_loops_thread(
        config: Config, inline_mod: Any) -> None:
    pooled = compile_tools(config(_tools(inline_mod)))
    inline = compile_tools(config(_tools(inline_mod, blocking=False)))
    loop_thread = threading.get_ident()
    try:
        for name, args in CASES:
            inline_mod.RAN.clear()
            want = (await pooled.tool("demo", name).call(args, CallContext(tool=name))).to_mcp()
            assert inline_mod.RAN and inline_mod.RAN[0] != loop_thread, name  # a pool thread
            inline_mod.RAN.clear()
            got = (await inline.tool("demo", name).call(args, CallContext(tool=name))).to_mcp()
            assert [loop_thread] == inline_mod.RAN, name  # on the loop, no thread hop
            assert got == want, name
    finally:
        await pooled.aclose()
        await inline.aclose()


@pytest.mark.anyio
async def test_a_context_var_set_by_an_inline_call_stays_in_that_call(
        config: Config, inline_mod: Any) -> None:
    import anyio

    tools = {"sets": {"kind": "python", "options": {
        "function": f"{inline_mod.__name__}:sets", "blocking": False}}}
    compiled = compile_tools(config(tools))
    seen: list[str] = []

    async def one(value: str) -> None:
        result = await compiled.tool("demo", "sets").call({"value": value}, CallContext())
        seen.append(result.text_content)
    try:
        for value in ("a", "b"):  # one after the other, in this very task
            await one(value)
        async with anyio.create_task_group() as tg:  # and one task per call, as a session
            for value in ("c", "d", "e"):
                tg.start_soon(one, value)
    finally:
        await compiled.aclose()
    # each call saw the host's guard on (IN_TOOL) and nothing another call set, and what
    # it set did not reach its caller
    assert seen == ["unset True"] * 5
    assert inline_mod.SEEN.get() == "unset"


@pytest.mark.anyio
async def test_an_inline_def_calling_its_context_from_a_thread_fails_and_does_not_hang(
        config: Config, inline_mod: Any) -> None:
    tools = {"reports": {"kind": "python", "options": {
        "function": f"{inline_mod.__name__}:reports", "blocking": False}}}
    compiled = compile_tools(config(tools))
    try:
        result = await compiled.tool("demo", "reports").call({}, CallContext())
    finally:
        await compiled.aclose()
    assert result.is_error and "Not running inside an AnyIO worker thread" in result.text_content


@pytest.mark.anyio
async def test_an_inline_call_times_out_and_is_cancelled_as_an_async_one(
        config: Config, inline_mod: Any) -> None:
    import anyio

    ref = f"{inline_mod.__name__}:waits"
    compiled = compile_tools(config({"waits": {"kind": "python", "timeout": 0.1, "options": {
        "function": ref, "allow_untyped": True, "blocking": False}}}))
    tool = compiled.tool("demo", "waits")
    try:
        late = await tool.call({"seconds": 30}, CallContext())
        assert late.is_error and "timed out after 0.1s" in late.text_content, late
        with anyio.CancelScope() as scope:  # the client's cancel: the request's scope
            scope.cancel()
            await tool.call({"seconds": 30}, CallContext())
        assert scope.cancelled_caught
        assert (await tool.call({"seconds": 0}, CallContext())).text_content == "waited"
    finally:
        await compiled.aclose()


@pytest.mark.anyio
async def test_an_inline_def_is_held_to_the_host_guards_of_a_tools_code(
        config: Config, inline_mod: Any) -> None:
    import os

    here = os.getcwd()
    compiled = compile_tools(config({"moves": {"kind": "python", "options": {
        "function": f"{inline_mod.__name__}:moves", "blocking": False}}}))
    try:
        result = await compiled.tool("demo", "moves").call({}, CallContext())
    finally:
        await compiled.aclose()
    assert os.getcwd() == here
    assert result.is_error and "HostMoveRefused" in result.text_content, result


def _yaml(tmp_path: Path, body: str, module: str) -> Path:
    name = f"th_inline_cfg_{abs(hash(tmp_path)) % 10**8}"
    sys.modules.pop(name, None)
    (tmp_path / f"{name}.py").write_text(module)
    path = tmp_path / "s.yaml"
    path.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n" + body.replace("MOD", name))
    return path


@pytest.mark.parametrize("body, says", [
    ("      t:\n        python: {function: 'MOD:quick', blocking: false, isolation: process}\n",
     "isolation: process runs it in a worker process"),
    ("      t:\n        python: {function: 'MOD:waits', blocking: false}\n",
     "an async def runs there already"),
])
def test_blocking_false_is_refused_where_it_means_nothing(tmp_path: Path, body: str,
                                                           says: str) -> None:
    module = ("def quick(a: int) -> int:\n    return a\n"
              "async def waits(a: int) -> int:\n    return a\n")
    with pytest.raises(CompileError) as info:
        compile_tools(load_config(str(_yaml(tmp_path, body, module))))
    (problem,) = info.value.problems
    assert says in problem.message and "blocking: false" in problem.message
    assert problem.file.endswith("s.yaml") and problem.line == 6
    assert problem.key_path == "servers.s.tools.t.python.blocking"
    assert "blocking: false" in problem.hint


def test_blocking_must_be_a_boolean(tmp_path: Path) -> None:
    body = "      t:\n        python: {function: 'MOD:quick', blocking: 'no'}\n"
    with pytest.raises(ConfigError) as info:
        load_config(str(_yaml(tmp_path, body, "def quick(a: int) -> int:\n    return a\n")))
    (problem,) = info.value.problems
    assert problem.key_path == "servers.s.tools.t.python.blocking" and problem.line == 6
    assert "expected boolean" in problem.message


BLOCKERS = '''\
import time


def sleeper() -> str:
    time.sleep(60)
    return "slept"


def spinner() -> str:
    while True:
        pass


def honest(text: str) -> str:
    return text
'''


def test_an_inline_def_that_blocks_is_stopped_and_the_others_answered(tmp_path: Path) -> None:
    (tmp_path / "inline_blockers.py").write_text(BLOCKERS)
    config = tmp_path / "inline.yaml"
    config.write_text(textwrap.dedent("""\
        toolhost: 1
        permissions: {default: allow}
        servers:
          s:
            tools:
              honest: {python: {function: 'inline_blockers:honest', blocking: false}}
              sleeper: {python: {function: 'inline_blockers:sleeper', blocking: false},
                        timeout: 500ms}
              spinner: {python: {function: 'inline_blockers:spinner', blocking: false},
                        timeout: 500ms}
        """))
    env = {"PYTHONPATH": str(tmp_path)}
    with stdio_peer(config, extra_env=env) as peer:
        for n, name in enumerate(("sleeper", "spinner")):
            peer.request(f"b{n}", "tools/call", {"name": name, "arguments": {}})
            peer.request(f"h{n}", "tools/call", {"name": "honest", "arguments": {"text": name}})
            stopped = peer.wait_for(f"b{n}", timeout=30)
            assert stopped["result"]["isError"], stopped
            text = stopped["result"]["content"][0]["text"]
            assert "held the event loop" in text and "blocking: false" in text, text
            honest = peer.wait_for(f"h{n}", timeout=30)
            assert honest["result"]["content"][0]["text"] == name, honest
        for name in ("sleeper", "spinner"):  # said once each, by name, with the way out
            said = f"tool mcp__s__{name} is blocking the event loop"
            assert peer.log().count(said) == 1, peer.log()[-2000:]
        assert "Remove blocking: false" in peer.log()
