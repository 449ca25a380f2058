"""A ``kill -9`` while a question's answer mode is being set (the end-of-input key turned
off for a moment, line mode about to go: ``ttymodes.line_mode_off``) still gives the terminal
back as it was found: the watchdog is told before the change, not after it.

The child kills itself at the one point of the change where the key is off (the moment a
``kill -9`` from outside could land by chance), so the window is hit every time."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
import termios
import time

import pytest

_CODE = """
import os, signal, sys, termios, anyio
from toolhost.backends import watchdog
from toolhost.runner import ttyfd
from toolhost.runner.terminal import Terminal
fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
watchdog.opened(0, "kill-mid-modes-" + str(os.getpid()))  # the CLI's run starts it
print(watchdog.pid(), flush=True)
paste, at = sys.argv[2] == "1", sys.argv[3]
armed = at == "answer"
real = os.get_blocking

def get_blocking(which):
    # line_mode_off asks right after turning the end-of-input key off
    if armed and which == fd and termios.tcgetattr(fd)[6][termios.VEOF] in (b"\\0", 0):
        os.kill(os.getpid(), signal.SIGKILL)
    return real(which)

os.get_blocking = get_blocking

async def main():
    global armed
    term = Terminal(fd, fd, paste=paste)
    async with anyio.create_task_group() as tg:
        async def ask():
            await term.readline("Allow? ", question=True)
        tg.start_soon(ask)
        while not term.question or term._edit is None:
            await anyio.sleep(0.01)
        term.suspend()  # Ctrl-Z: the modes back as found, then fg: set again
        armed = True
        term.reshow()

anyio.run(main)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="the watchdog's end seen in /proc")
@pytest.mark.parametrize("paste", [False, True], ids=["no-marks", "marks"])
@pytest.mark.parametrize("at", ["answer", "reshow"])
def test_a_kill_9_while_the_answer_modes_change_gives_the_terminal_back(
        paste: bool, at: str) -> None:
    master, slave = pty.openpty()
    before = termios.tcgetattr(slave)
    child = subprocess.Popen([sys.executable, "-c", _CODE, os.ttyname(slave),
                              "1" if paste else "0", at], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None
        guard = int(child.stdout.readline())
        assert child.wait(timeout=60) == -signal.SIGKILL  # killed itself in the window
        deadline = time.monotonic() + 30  # the watchdog has done what it does: gone
        while _alive(guard) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not _alive(guard)
        after = termios.tcgetattr(slave)
        assert after[6][termios.VEOF] == before[6][termios.VEOF]  # Ctrl-D ends input again
        assert after == before
    finally:
        child.kill()
        child.wait()
        if child.stdout is not None:
            child.stdout.close()
        os.close(master)
        os.close(slave)
