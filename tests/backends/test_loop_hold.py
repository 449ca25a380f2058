"""An ``async def`` tool that blocks the event loop (``time.sleep``, a busy loop, a blocking
read, an ``except Exception`` around it) is stopped at its timeout
(``toolhost.backends.loop_hold``): its answer is its error, and every other call is
answered. A real ``toolhost serve`` over stdio, the loop in its main thread."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

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
              untimed: {python: 'loop_tools:sleeper'}
        """) + "".join(f"      {name}: {{python: 'loop_tools:{name}', timeout: 500ms}}\n"
                       for name in blockers))
    # the hold limit, for the tool with no timeout (10 s by default: here 2 s, which the
    # slow tool's 1.3 s stays under)
    env = {"PYTHONPATH": str(tmp_path), "TOOLHOST_LOOP_HOLD": "2"}
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
        peer.request("untimed", "tools/call", {"name": "untimed", "arguments": {}})
        peer.request("h-untimed", "tools/call", {"name": "honest", "arguments": {"text": "u"}})
        stopped = peer.wait_for("untimed", timeout=30)  # no timeout: the hold limit stops it
        assert "held the event loop" in stopped["result"]["content"][0]["text"], stopped
        assert peer.wait_for("h-untimed", timeout=30)["result"]["content"][0]["text"] == "u"
        done = peer.ask("slow", "tools/call", {"name": "slow", "arguments": {}}, timeout=30)
        assert done["result"]["content"][0]["text"] == "slow but done", done
        for name in (*blockers, "slow"):  # each said once, by name, on stderr
            assert peer.log().count(f"async tool mcp__s__{name} is blocking the event loop") \
                == 1, peer.log()[-2000:]


def test_an_async_call_may_hold_the_loop_ten_seconds_by_default(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from toolhost.backends import loop_hold

    monkeypatch.delenv(loop_hold.HOLD_ENV, raising=False)
    guard = loop_hold._Guard()
    assert guard.hold == loop_hold.HOLD_SECONDS == 10.0
    guard.beat = 100.0  # the loop last turned at 100 s
    assert not guard.overdue(float("inf"), 109.9) and guard.overdue(float("inf"), 110.0)
    assert not guard.overdue(100.5, 100.9)  # past its deadline, but the loop turned just now
    assert guard.overdue(100.5, 101.0)  # past its deadline, a second without a turn
