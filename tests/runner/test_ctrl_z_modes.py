"""Ctrl-Z at a question gives the shell its terminal back as found, paste marks or not.

A question's answer is read with line mode and echo off (``line_edit``); with paste marks
off (``TERM=dumb``, ``TOOLHOST_BRACKETED_PASTE=0``) SIGTSTP was not caught: toolhost stopped
with the terminal left -icanon -echo for the shell (bash puts its own back; sh does not).
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest

# S leads a session on the pty (its controlling terminal), as a shell: it runs T (toolhost's
# terminal and its signal handling, at a question) in a process group of its own in front,
# waits for it to stop, reads the modes, and resumes it in front (fg).
_SHELL = """
import os, signal, sys, termios, time
fd = os.open(sys.argv[1], os.O_RDWR)  # a session leader's first terminal: its own
found = termios.tcgetattr(fd)
ready_r, ready_w = os.pipe()
t = os.fork()
if t == 0:
    os.setpgid(0, 0)
    import anyio
    from toolhost.runner.run import RunReport, Signals
    from toolhost.runner.terminal import Terminal
    term = Terminal(os.open(sys.argv[1], os.O_RDWR | os.O_NONBLOCK), fd, paste=False)
    async def main():
        signals = Signals(RunReport(), term)
        async with anyio.create_task_group() as tg:
            await tg.start(lambda task_status: signals.run(task_status=task_status))
            async def ready():
                while term._edit is None:
                    await anyio.sleep(0.01)
                os.write(ready_w, b"x")
            tg.start_soon(ready)
            answer = await term.readline("Allow? ", question=True)
            print("answer", repr(answer), flush=True)
            tg.cancel_scope.cancel()
    anyio.run(main)
    os._exit(0)
os.setpgid(t, t)
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
os.tcsetpgrp(fd, t)
os.read(ready_r, 1)
reading = termios.tcgetattr(fd)
print("reading", bool(reading[3] & termios.ICANON), bool(reading[3] & termios.ECHO), flush=True)
os.write(int(sys.argv[2]), b"z")  # the test types Ctrl-Z now
_, status = os.waitpid(t, os.WUNTRACED)
print("stopped", os.WIFSTOPPED(status), termios.tcgetattr(fd) == found, flush=True)
os.tcsetpgrp(fd, t)  # fg
os.killpg(t, signal.SIGCONT)
deadline = time.monotonic() + 10
while termios.tcgetattr(fd)[3] & termios.ICANON and time.monotonic() < deadline:
    time.sleep(0.01)
print("resumed", bool(termios.tcgetattr(fd)[3] & termios.ICANON), flush=True)
os.write(int(sys.argv[2]), b"y")  # the test types the answer now
_, status = os.waitpid(t, 0)
os.tcsetpgrp(fd, os.getpgrp())
print("exit", os.waitstatus_to_exitcode(status), termios.tcgetattr(fd) == found, flush=True)
"""


@pytest.mark.parametrize("marks", [False, True], ids=["no-marks", "marks"])
def test_ctrl_z_at_a_question_gives_the_modes_back_and_fg_reads_on(marks: bool) -> None:
    master, slave = pty.openpty()
    step_r, step_w = os.pipe()
    code = _SHELL if marks is False else _SHELL.replace("paste=False", "paste=True")
    try:
        shell = subprocess.Popen([sys.executable, "-c", code, os.ttyname(slave), str(step_w)],
                                 stdout=subprocess.PIPE, text=True, start_new_session=True,
                                 pass_fds=(step_w,))
        os.close(step_w)
        assert os.read(step_r, 1) == b"z"
        os.write(master, b"\x1a")  # Ctrl-Z (ISIG: SIGTSTP to the group in front)
        assert os.read(step_r, 1) == b"y"
        os.write(master, b"y\r")
        out, _ = shell.communicate(timeout=60)
    finally:
        os.close(master)
        os.close(slave)
        os.close(step_r)
    assert out.splitlines() == ["reading False False", "stopped True True", "resumed False",
                                "answer 'y'", "exit 0 True"], out
