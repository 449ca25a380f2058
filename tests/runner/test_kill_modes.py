"""A ``kill -9`` of toolhost gives the terminal back in the modes it was found in.

Nothing in toolhost runs at SIGKILL: its watchdog (which outlives it to kill the tools) puts
back line mode and echo (off while a question's answer is read key by key), the signal keys
and ``IUTF8``, whether the terminal marks pastes or not (``TERM=dumb``,
``TOOLHOST_BRACKETED_PASTE=0``): a shell without line editing of its own (sh, dash) got a
terminal that echoed nothing and took no Enter.
"""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
import termios
import time
from typing import Any

import pytest

from .pty_harness import shown

_CODE = """
import os, sys, anyio
from toolhost.backends import watchdog
from toolhost.runner.terminal import Terminal
fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
watchdog.opened(0, "kill-modes-" + str(os.getpid()))  # the CLI's run starts it
print(watchdog.pid(), flush=True)
question, paste = sys.argv[2] == "1", sys.argv[3] == "1"
anyio.run(lambda: Terminal(fd, fd, paste=paste).readline("Allow? ", question=question))
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _modes(fd: int) -> list[Any]:
    return termios.tcgetattr(fd)


@pytest.mark.parametrize(("question", "paste"), [(True, False), (False, False), (True, True)],
                         ids=["question-no-marks", "prompt-no-marks", "question-marks"])
def test_a_kill_9_gives_the_terminal_back_as_it_was_found(question: bool, paste: bool) -> None:
    master, slave = pty.openpty()
    before = _modes(slave)
    child = subprocess.Popen([sys.executable, "-c", _CODE, os.ttyname(slave),
                              "1" if question else "0", "1" if paste else "0"])
    try:
        assert shown(master, "Allow? ").endswith("Allow? ")
        deadline = time.monotonic() + 10  # the modes are set around the prompt's write
        while _modes(slave) == before and time.monotonic() < deadline:
            time.sleep(0.01)
        changed = _modes(slave)
        assert changed != before  # the answer read key by key; IUTF8 at the prompt
        if question:
            assert not changed[3] & (termios.ICANON | termios.ECHO)
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=60) == -signal.SIGKILL
        deadline = time.monotonic() + 10  # the watchdog sets them as it sees toolhost gone
        while _modes(slave) != before and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _modes(slave) == before
    finally:
        _end(child, master, slave)


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="the watchdog's end seen in /proc")
def test_modes_a_shell_set_since_are_left_alone() -> None:
    # the watchdog puts back only where the terminal is still as toolhost left it: a shell
    # (or the person's stty) that set modes of its own first keeps them
    master, slave = pty.openpty()
    child = subprocess.Popen([sys.executable, "-c", _CODE, os.ttyname(slave), "1", "0"],
                             stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None
        guard = int(child.stdout.readline())
        assert shown(master, "Allow? ").endswith("Allow? ")
        deadline = time.monotonic() + 10
        while _modes(slave)[3] & termios.ICANON and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(child.pid, signal.SIGSTOP)  # no more changes from it
        mine = _modes(slave)
        mine[3] |= termios.ECHO  # a shell's own: echo on, line mode still off
        termios.tcsetattr(slave, termios.TCSANOW, mine)
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=60) == -signal.SIGKILL
        deadline = time.monotonic() + 30  # the watchdog has done what it does: gone
        while _alive(guard) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not _alive(guard)
        assert _modes(slave) == mine
    finally:
        _end(child, master, slave)


def _end(child: subprocess.Popen[bytes], master: int, slave: int) -> None:
    child.kill()
    child.wait()
    if child.stdout is not None:
        child.stdout.close()
    os.close(master)
    os.close(slave)
