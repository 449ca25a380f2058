"""``toolhost serve --watch`` goes on answering while a reload builds. The build (imports of
python tools and plugins, clones of new ``extends`` pins, OpenAPI fetches) ran on the event
loop's thread: no call, ping or cancellation was answered until it was done (a module slow
to import held every client for as long)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.serve.conftest import server_env
from tests.serve.test_serve_command import serve_argv
from toolhost.reload import built_apart

CONFIG = """\
toolhost: 1
servers:
  s:
    tools:
      add: {python: "toolhost.demo:add"}
permissions: {default: allow}
"""
# a module whose import waits until the test says so (at most a minute: a failure, not a hang)
SLOW = """\
import os, time
open(os.path.join(os.path.dirname(__file__), "importing"), "w").close()
for _ in range(600):
    if os.path.exists(os.path.join(os.path.dirname(__file__), "release")):
        break
    time.sleep(0.1)

def f(x: int) -> int:
    return x
"""
WAIT = 60.0  # seconds an answer may take on a loaded machine before the test calls it lost


def _lines(stream: Any) -> queue.Queue[str]:
    got: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for line in stream:
            got.put(line)

    threading.Thread(target=pump, daemon=True).start()
    return got


def _answer(got: queue.Queue[str], wanted: int) -> dict[str, Any]:
    while True:
        message = json.loads(got.get(timeout=WAIT))
        if message.get("id") == wanted:
            return dict(message)


def test_calls_are_answered_while_a_reload_imports_a_slow_module(tmp_path: Path) -> None:
    (tmp_path / "slowmod.py").write_text(SLOW)
    config = tmp_path / "toolhost.yaml"
    config.write_text(CONFIG)
    argv = serve_argv(str(config), "--watch", "--watch-interval", "0.05")
    with subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True, env=server_env()) as process:
        assert process.stdin is not None and process.stdout is not None
        got = _lines(process.stdout)

        def send(message: dict[str, Any]) -> None:
            assert process.stdin is not None
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()

        try:
            send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}})
            _answer(got, 0)
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            before = config.stat().st_mtime_ns
            config.write_text(CONFIG.replace("      add:", "      slow: {python: 'slowmod:f'}\n"
                                             "      add:"))
            os.utime(config, ns=(before + 2_000_000_000,) * 2)
            for _ in range(int(WAIT * 10)):  # the reload is importing the slow module
                if (tmp_path / "importing").exists():
                    break
                threading.Event().wait(0.1)
            assert (tmp_path / "importing").exists()
            send({"jsonrpc": "2.0", "id": 1, "method": "ping"})
            send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                  "params": {"name": "add", "arguments": {"a": 2, "b": 3}}})
            try:  # both answered before the import is let go
                pong = _answer(got, 1)
                added = _answer(got, 2)
            finally:
                (tmp_path / "release").touch()
            assert pong["result"] == {}
            assert added["result"]["content"] == [{"type": "text", "text": "5"}], added
        finally:
            (tmp_path / "release").touch()
            process.stdin.close()
            process.wait(timeout=WAIT)


@pytest.mark.anyio
async def test_a_build_abandoned_by_a_cancel_is_closed_when_it_finishes() -> None:
    # the server stops while a reload builds: the thread is not waited for, and what it
    # builds afterwards is closed there (its worker processes, its upstream connections)
    started, release, closed = threading.Event(), threading.Event(), threading.Event()
    shut: list[str] = []

    def build() -> str:
        started.set()
        release.wait(WAIT)
        return "late build"

    async def close(built: str) -> None:
        shut.append(built)
        closed.set()

    with anyio.move_on_after(WAIT) as scope:
        async with anyio.create_task_group() as tg:
            tg.start_soon(built_apart, build, close)
            while not started.is_set():
                await anyio.sleep(0.01)
            tg.cancel_scope.cancel()
    assert not scope.cancelled_caught
    assert shut == []
    release.set()
    assert closed.wait(WAIT) and shut == ["late build"]


@pytest.mark.anyio
async def test_a_build_s_error_is_raised_to_the_reloader() -> None:
    def build() -> str:
        raise ValueError("broken config")

    async def close(built: str) -> None:
        raise AssertionError("nothing was built")

    with pytest.raises(ValueError, match="broken config"):
        await built_apart(build, close)


NOISY = """\
import os, sys
print("printed at import")
sys.stdout.write("written at import\\n")
os.write(1, b"fd 1 at import\\n")

def f(x: int) -> int:
    return x
"""


def test_a_reload_s_import_that_prints_leaves_the_protocol_alone(tmp_path: Path) -> None:
    # built in its thread, where no redirection of the main thread's load applies: stdout
    # is the protocol's own (claimed at start), a print goes to stderr
    (tmp_path / "noisymod.py").write_text(NOISY)
    config = tmp_path / "toolhost.yaml"
    config.write_text(CONFIG)
    argv = serve_argv(str(config), "--watch", "--watch-interval", "0.05")
    with subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=server_env()) as process:
        assert process.stdin is not None and process.stdout is not None
        assert process.stderr is not None
        got, said = _lines(process.stdout), _lines(process.stderr)

        def send(message: dict[str, Any]) -> None:
            assert process.stdin is not None
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()

        try:
            send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}})
            _answer(got, 0)
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            before = config.stat().st_mtime_ns
            config.write_text(CONFIG.replace("      add:", "      noisy: {python: 'noisymod:f'}\n"
                                             "      add:"))
            os.utime(config, ns=(before + 2_000_000_000,) * 2)
            while "reloaded" not in said.get(timeout=WAIT):
                pass
            send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
            listed = _answer(got, 1)  # every line before it parsed as JSON-RPC
            assert sorted(t["name"] for t in listed["result"]["tools"]) == ["add", "noisy"]
        finally:
            process.stdin.close()
            process.wait(timeout=WAIT)


@pytest.mark.anyio
async def test_a_build_s_keyboard_interrupt_is_a_failed_build_not_a_stop() -> None:
    # no signal reaches the build's thread: its KeyboardInterrupt is its code's, and the
    # server goes on (it ended the server before)
    def build() -> str:
        raise KeyboardInterrupt

    async def close(built: str) -> None:
        raise AssertionError("nothing was built")

    with pytest.raises(RuntimeError, match="the build raised KeyboardInterrupt"):
        await built_apart(build, close)


def test_a_reload_whose_module_raises_a_base_exception_keeps_serving(tmp_path: Path) -> None:
    (tmp_path / "stopmod.py").write_text(
        "class Stop(BaseException):\n    pass\nraise Stop('boom')\n"
        "def f(x: int) -> int:\n    return x\n")
    config = tmp_path / "toolhost.yaml"
    config.write_text(CONFIG)
    argv = serve_argv(str(config), "--watch", "--watch-interval", "0.05")
    with subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=server_env()) as process:
        assert process.stdin is not None and process.stdout is not None
        assert process.stderr is not None
        got, said = _lines(process.stdout), _lines(process.stderr)

        def send(message: dict[str, Any]) -> None:
            assert process.stdin is not None
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()

        try:
            send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}})
            _answer(got, 0)
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            before = config.stat().st_mtime_ns
            config.write_text(CONFIG.replace("      add:", "      stop: {python: 'stopmod:f'}\n"
                                             "      add:"))
            os.utime(config, ns=(before + 2_000_000_000,) * 2)
            text = ""
            while "servers.s.tools.stop" not in text:
                text += said.get(timeout=WAIT)
            assert "reload failed; still serving the last good config" in text, text
            assert "Stop (a BaseException): boom" in text, text
            send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                  "params": {"name": "add", "arguments": {"a": 2, "b": 3}}})
            assert _answer(got, 1)["result"]["content"] == [{"type": "text", "text": "5"}]
        finally:
            process.stdin.close()
            process.wait(timeout=WAIT)
