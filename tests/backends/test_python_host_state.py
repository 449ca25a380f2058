"""An in-process python tool shares the host's process, but cannot end it (``os._exit`` is
that call's error result), move its cwd (refused: ``test_cwd_guard``) nor leave its
environment or standard streams changed (put back when the last running call ends, with a
warning)."""

from __future__ import annotations

import logging
import os
import sys
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

Config = Callable[..., HostConfig]

MODULE = '''
import asyncio, contextlib, dataclasses, io, os, sys, time

def sync_exit(code: int) -> str:
    os._exit(code)

async def async_exit(code: int) -> str:
    os._exit(code)

async def task_exit(code: int) -> str:
    async def inner():
        os._exit(code)
    await asyncio.create_task(inner())
    return "no"

async def task_sysexit(code: int) -> str:
    async def inner():
        sys.exit(code)
    await asyncio.create_task(inner())
    return "no"

async def task_interrupt(code: int) -> str:
    async def inner():
        raise KeyboardInterrupt
    await asyncio.gather(inner())
    return "no"

class Odd:
    def __str__(self):
        os._exit(7)

async def str_exit(code: int) -> dict:
    return {"v": Odd()}

@dataclasses.dataclass
class Arg:
    code: int
    def __post_init__(self):
        os._exit(self.code)

def arg_exit(a: Arg) -> str:
    return "no"

def chdir(path: str) -> str:
    os.chdir(path)
    return os.getcwd()

async def setenv(name: str, value: str) -> str:
    os.environ[name] = value
    os.environ.pop("TH_KEEP", None)
    return "set"

def redirect(seconds: float) -> str:
    with contextlib.redirect_stdout(io.StringIO()):
        time.sleep(seconds)
    return "done"

def state() -> dict:
    return {"cwd": os.getcwd(), "set": os.environ.get("TH_SET"),
            "keep": os.environ.get("TH_KEEP"), "stdout": type(sys.stdout).__name__}

def ping() -> str:
    return "pong"

def thread_exit(code: int) -> str:
    import threading
    worker = threading.Thread(target=os._exit, args=(code,))
    worker.start()
    worker.join()
    return "survived"

def kill_self(code: int) -> str:
    import signal
    os.kill(os.getpid(), signal.SIGTERM)

def group_kill(code: int) -> str:
    import signal
    os.kill(0, signal.SIGTERM)

async def raise_term(code: int) -> str:
    import signal
    signal.raise_signal(signal.SIGINT)

def abort_self(code: int) -> str:
    os.abort()
'''

EXITS = ("sync_exit", "async_exit", "task_exit", "str_exit", "arg_exit")
# asyncio lets these two out of a task and out of the event loop
IN_TASKS = {"task_sysexit": "SystemExit: 3", "task_interrupt": "KeyboardInterrupt"}
SIGNALS = {"kill_self": "os.kill(", "group_kill": "os.kill(0, SIGTERM)",
           "raise_term": "signal.raise_signal(SIGINT)", "abort_self": "os.abort()"}
STATE = ("chdir", "setenv", "redirect", "state", "ping")


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = f"th_hoststate_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def _tools(module: str, names: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    return {n: {"kind": "python", "options": {"function": f"{module}:{n}"}} for n in names}


def test_exits_in_a_tool_are_its_error_and_the_host_goes_on(tmp_path: Path) -> None:
    # a real `toolhost serve`: on a host that let os._exit through, the process is gone
    (tmp_path / "th_exits.py").write_text(textwrap.dedent(MODULE))
    lines = ["toolhost: 1", "permissions: {default: allow}", "servers:", "  p:",
             "    timeout: 20s", "    tools:"]
    lines += [f"      {n}: {{python: 'th_exits:{n}'}}"
              for n in (*EXITS, *IN_TASKS, *SIGNALS, "thread_exit", "ping")]
    config = tmp_path / "exits.yaml"
    config.write_text("\n".join(lines) + "\n")
    with stdio_peer(config) as peer:
        for n, name in enumerate(EXITS):
            arguments = {"a": {"code": n + 3}} if name == "arg_exit" else {"code": n + 3}
            peer.request(n, "tools/call", {"name": name, "arguments": arguments})
        for n, name in enumerate(EXITS):
            answer = peer.wait_for(n, timeout=60)["result"]
            text = answer["content"][0]["text"]
            assert answer["isError"], text
            assert text.startswith(f"Tool '{name}' failed: HostExitRefused: os._exit("), text
            assert "would have ended toolhost itself" in text
        for name, shown in IN_TASKS.items():
            peer.request(name, "tools/call", {"name": name, "arguments": {"code": 3}})
            answer = peer.wait_for(name, timeout=60)["result"]
            assert answer["content"][0]["text"] == f"Tool '{name}' failed: {shown}"
        for name, shown in SIGNALS.items():
            peer.request(name, "tools/call", {"name": name, "arguments": {"code": 3}})
            text = peer.wait_for(name, timeout=60)["result"]["content"][0]["text"]
            assert text.startswith(f"Tool '{name}' failed: HostExitRefused: {shown}"), text
        # a thread the tool started is the tool's: its os._exit fails that thread only
        peer.request("thread", "tools/call", {"name": "thread_exit", "arguments": {"code": 3}})
        assert peer.wait_for("thread", timeout=60)["result"]["content"][0]["text"] == \
            "survived"
        peer.request("ping", "tools/call", {"name": "ping", "arguments": {}})
        assert peer.wait_for("ping", timeout=60)["result"]["content"][0]["text"] == "pong"
        assert peer.proc.poll() is None


@pytest.mark.anyio
async def test_environment_and_streams_are_put_back_and_the_cwd_never_moves(
        config: Config, module: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    # the test's own state is restored by monkeypatch whatever the host does
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TH_KEEP", "kept")
    monkeypatch.delenv("TH_SET", raising=False)
    monkeypatch.setattr(sys, "stdout", sys.stdout)
    before = {"cwd": os.getcwd(), "set": None, "keep": "kept",
              "stdout": type(sys.stdout).__name__}
    async with compile_tools(config(_tools(module, STATE))) as compiled:
        async def call(name: str, arguments: dict[str, Any]) -> Any:
            result = await compiled.tool("demo", name).call(arguments, CallContext(tool=name))
            assert not result.is_error, result.text_content
            return result.structured if result.structured is not None else \
                result.text_content

        with caplog.at_level(logging.WARNING, logger="toolhost.call"):
            # round 22: refused (it moved every concurrent call's relative paths)
            moved = await compiled.tool("demo", "chdir").call({"path": "/"},
                                                               CallContext(tool="chdir"))
            assert moved.is_error and "HostMoveRefused" in moved.text_content
            assert await call("state", {}) == before
            assert await call("setenv", {"name": "TH_SET", "value": "1"}) == "set"
            assert await call("state", {}) == before
            # two overlapping redirect_stdout: the later one restores the earlier's StringIO
            async with anyio.create_task_group() as tg:
                tg.start_soon(call, "redirect", {"seconds": 0.3})
                await anyio.sleep(0.1)
                tg.start_soon(call, "redirect", {"seconds": 0.3})
            assert await call("state", {}) == before
        warned = [r.getMessage() for r in caplog.records]
        assert not any("changed the host's working" in w for w in warned), warned
        assert any("environment (TH_KEEP, TH_SET)" in w for w in warned), warned
        assert any("sys.stdout" in w for w in warned), warned
        # nothing to put back: no warning
        caplog.clear()
        assert await call("ping", {}) == "pong"
        assert not caplog.records


@pytest.mark.anyio
async def test_what_the_host_changes_during_a_call_is_kept_and_not_blamed(
        config: Config, module: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    # an embedder (the SDK adapter's program) changes its own cwd and environment on the
    # event loop while a tool's call runs in the pool: that is not the tool's change
    from toolhost.backends.host_guards import HOST_STATE

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TH_HOST", raising=False)
    monkeypatch.setenv("TH_GONE", "1")
    (tmp_path / "sub").mkdir()
    async with compile_tools(config(_tools(module, STATE))) as compiled:
        redirect = compiled.tool("demo", "redirect")
        with caplog.at_level(logging.WARNING, logger="toolhost.call"):
            async with anyio.create_task_group() as tg:
                tg.start_soon(redirect.call, {"seconds": 0.5}, CallContext(tool="redirect"))
                while not HOST_STATE._busy:
                    await anyio.sleep(0.005)
                os.environ["TH_HOST"] = "mine"
                del os.environ["TH_GONE"]
                os.chdir(tmp_path / "sub")
        assert os.environ.get("TH_HOST") == "mine"
        assert "TH_GONE" not in os.environ
        assert os.getcwd() == str(tmp_path / "sub")
        blamed = [r.getMessage() for r in caplog.records if "changed the host" in r.getMessage()]
        assert not blamed, blamed
        # and a tool's own change is still put back, to the host's new state
        result = await compiled.tool("demo", "setenv").call({"name": "TH_HOST", "value": "t"},
                                                             CallContext(tool="setenv"))
        assert not result.is_error
        assert os.environ.get("TH_HOST") == "mine"
