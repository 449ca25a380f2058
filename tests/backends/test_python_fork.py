"""A tool that forks and whose child comes back out of the tool's code (returns or raises
instead of calling ``os._exit``): the child ends there, with status 0 or 1, and never runs
the host's code (a second host on the same pipes, or a thread waiting forever for a loop
that is not there). The parent's call is answered once, and so is every other call; a real
``toolhost serve`` process shows it."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from tests.serve.stdio_peer import stdio_peer

MODULE = '''
import asyncio, os

def sync_return(x: int = 0) -> str:
    pid = os.fork()
    if pid == 0:
        return "child"
    _, status = os.waitpid(pid, 0)
    return f"parent {os.waitstatus_to_exitcode(status)}"

def sync_raise(x: int = 0) -> str:
    pid = os.fork()
    if pid == 0:
        raise ValueError("in the child")
    _, status = os.waitpid(pid, 0)
    return f"parent {os.waitstatus_to_exitcode(status)}"

def sync_base(x: int = 0) -> str:
    pid = os.fork()
    if pid == 0:
        raise KeyboardInterrupt
    _, status = os.waitpid(pid, 0)
    return f"parent {os.waitstatus_to_exitcode(status)}"

async def async_return(x: int = 0) -> str:
    pid = os.fork()
    if pid == 0:
        return "child"
    while True:  # never blocks the loop: the child must end on its own
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return f"parent {os.waitstatus_to_exitcode(status)}"
        await asyncio.sleep(0.02)

async def async_raise(x: int = 0) -> str:
    pid = os.fork()
    if pid == 0:
        raise RuntimeError("in the child")
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return f"parent {os.waitstatus_to_exitcode(status)}"
        await asyncio.sleep(0.02)

def child_exits(x: int = 0) -> str:
    pid = os.fork()
    if pid == 0:
        os._exit(7)  # the usual way: a child's own exit is its own
    _, status = os.waitpid(pid, 0)
    return f"parent {os.waitstatus_to_exitcode(status)}"

def ping(x: int = 0) -> str:
    return "pong"
'''
EXPECTED = {"sync_return": "parent 0", "sync_raise": "parent 1", "sync_base": "parent 1",
            "async_return": "parent 0", "async_raise": "parent 1", "child_exits": "parent 7"}


def test_a_forked_child_never_comes_back_into_the_host(tmp_path: Path) -> None:
    (tmp_path / "th_forks.py").write_text(textwrap.dedent(MODULE))
    lines = ["toolhost: 1", "permissions: {default: allow}", "servers:", "  p:",
             "    timeout: 10s", "    tools:"]
    lines += [f"      {n}: {{python: 'th_forks:{n}'}}" for n in (*EXPECTED, "ping")]
    config = tmp_path / "forks.yaml"
    config.write_text("\n".join(lines) + "\n")
    with stdio_peer(config) as peer:
        for name, expected in EXPECTED.items():
            answer = peer.ask(name, "tools/call", {"name": name, "arguments": {}},
                              timeout=60)["result"]
            assert not answer["isError"], answer
            assert answer["content"][0]["text"] == expected, (name, answer)
            pong = peer.ask("ping-" + name, "tools/call", {"name": "ping", "arguments": {}})
            assert pong["result"]["content"][0]["text"] == "pong"
        peer.request("last", "tools/list")
        peer.wait_for("last")
    # one answer per request: no child answered as a second host
    assert not [m for m in peer.seen if "id" in m], json.dumps(peer.seen)[:500]
    assert "in the child" not in peer.log()  # no child reported its error as a call's
