"""Ctrl-Z at a question or the prompt gives the shell its terminal back as found.

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
question, paste = sys.argv[3] == "1", sys.argv[4] == "1"
found = termios.tcgetattr(fd)
ready_r, ready_w = os.pipe()
t = os.fork()
if t == 0:
    os.setpgid(0, 0)
    import anyio
    from toolhost.runner.run import RunReport, Signals
    from toolhost.runner.terminal import Terminal
    term = Terminal(os.open(sys.argv[1], os.O_RDWR | os.O_NONBLOCK), fd, paste=paste)
    async def main():
        signals = Signals(RunReport(), term)
        async with anyio.create_task_group() as tg:
            await tg.start(lambda task_status: signals.run(task_status=task_status))
            async def ready():
                while (term._edit if question else term._scope) is None:
                    await anyio.sleep(0.01)
                os.write(ready_w, b"x")
            tg.start_soon(ready)
            answer = await term.readline("Allow? ", question=question)
            print("answer", repr(answer), flush=True)
            tg.cancel_scope.cancel()
    anyio.run(main)
    os._exit(0)
os.setpgid(t, t)
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
os.tcsetpgrp(fd, t)
os.read(ready_r, 1)
reading = termios.tcgetattr(fd)
print("reading", reading != found, bool(reading[3] & termios.ICANON), flush=True)
os.write(int(sys.argv[2]), b"z")  # the test types Ctrl-Z now
_, status = os.waitpid(t, os.WUNTRACED)
print("stopped", os.WIFSTOPPED(status), termios.tcgetattr(fd) == found, flush=True)
os.tcsetpgrp(fd, t)  # fg
os.killpg(t, signal.SIGCONT)
deadline = time.monotonic() + 10
while termios.tcgetattr(fd) == found and time.monotonic() < deadline:
    time.sleep(0.01)
print("resumed", termios.tcgetattr(fd) == reading, flush=True)
os.write(int(sys.argv[2]), b"y")  # the test types the answer now
_, status = os.waitpid(t, 0)
os.tcsetpgrp(fd, os.getpgrp())
print("exit", os.waitstatus_to_exitcode(status), termios.tcgetattr(fd) == found, flush=True)
"""


@pytest.mark.parametrize(("question", "marks"), [(True, False), (True, True), (False, False)],
                         ids=["question-no-marks", "question-marks", "prompt-no-marks"])
def test_ctrl_z_gives_the_modes_back_and_fg_reads_on(question: bool, marks: bool) -> None:
    # at the prompt: IUTF8 (on while a turn is read) was left on for the shell
    master, slave = pty.openpty()
    step_r, step_w = os.pipe()
    try:
        shell = subprocess.Popen([sys.executable, "-c", _SHELL, os.ttyname(slave), str(step_w),
                                  "1" if question else "0", "1" if marks else "0"],
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
    # the answer read key by key (line mode off) at a question, the line mode kept at the
    # prompt: as found while stopped, as they were again after fg, as found at the end
    assert out.splitlines() == [f"reading True {not question}", "stopped True True",
                                "resumed True", "answer 'y'", "exit 0 True"], out
