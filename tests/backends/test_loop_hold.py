"""An ``async def`` tool that blocks the event loop (``time.sleep``, a busy loop, a blocking
read, an ``except Exception`` around it) is stopped at its timeout
(``toolhost.backends.loop_hold``): its answer is its error, and every other call is
answered. A real ``toolhost serve`` over stdio, the loop in its main thread."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.serve.stdio_peer import stdio_peer

TOOLS = '''\
import socket
import time


async def sleeper() -> str:
    time.sleep(60)
    return "slept"


async def spinner() -> str:
    while True:
        pass


async def swallower() -> str:
    for _ in range(60):
        try:
            time.sleep(1)
        except Exception:
            pass
    return "swallowed"


async def reader() -> str:
    left, right = socket.socketpair()
    left.recv(1)  # nothing ever comes
    return "read"


async def honest(text: str) -> str:
    return text


async def slow() -> str:
    time.sleep(1.3)  # blocks, but less than its timeout: slow, not stopped
    return "slow but done"
'''


def test_an_async_tool_blocking_the_loop_is_stopped_and_the_others_answered(
        tmp_path: Path) -> None:
    (tmp_path / "loop_tools.py").write_text(TOOLS)
    config = tmp_path / "loop.yaml"
    blockers = ("sleeper", "spinner", "swallower", "reader")
    config.write_text(textwrap.dedent("""\
        toolhost: 1
        permissions: {default: allow}
        servers:
          s:
            tools:
              honest: {python: 'loop_tools:honest'}
              slow: {python: 'loop_tools:slow', timeout: 30s}
        """) + "".join(f"      {name}: {{python: 'loop_tools:{name}', timeout: 500ms}}\n"
                       for name in blockers))
    env = {"PYTHONPATH": str(tmp_path)}
    with stdio_peer(config, extra_env=env) as peer:
        for n, name in enumerate(blockers):
            peer.request(f"b{n}", "tools/call", {"name": name, "arguments": {}})
            # sent while the blocker holds the loop: answered once it is stopped
            peer.request(f"h{n}", "tools/call", {"name": "honest", "arguments": {"text": name}})
            stopped = peer.wait_for(f"b{n}", timeout=30)
            assert stopped["result"]["isError"], stopped
            text = stopped["result"]["content"][0]["text"]
            assert "held the event loop" in text and "isolation: process" in text, text
            honest = peer.wait_for(f"h{n}", timeout=30)
            assert honest["result"]["content"][0]["text"] == name, honest
        done = peer.ask("slow", "tools/call", {"name": "slow", "arguments": {}}, timeout=30)
        assert done["result"]["content"][0]["text"] == "slow but done", done
        for name in (*blockers, "slow"):  # each said once, by name, on stderr
            assert peer.log().count(f"async tool mcp__s__{name} is blocking the event loop") \
                == 1, peer.log()[-2000:]
