"""The prompt's signal keys (``toolhost.runner.signal_keys``) put back from the background."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from toolhost.runner import signal_keys

# C leads a session on the pty (its controlling terminal) and forks G into a process group
# of its own (not orphaned: its parent C is in the same session). G turns the keys off while
# in front, C takes the terminal back (as bash does when Ctrl-Z stopped an `sh -c` parent in
# G's group), then G puts the keys back from the background.
_CHILD = """
import importlib.util as u, os, signal, sys, termios
spec = u.spec_from_file_location("signal_keys", sys.argv[1])
m = u.module_from_spec(spec)
spec.loader.exec_module(m)
fd = os.open(sys.argv[2], os.O_RDWR)  # a session leader's first terminal: its own
to_g_r, to_g_w = os.pipe()
to_c_r, to_c_w = os.pipe()
g = os.fork()
if g == 0:
    os.setpgid(0, 0)
    os.read(to_g_r, 1)  # in front now
    keys = m.SignalKeys(fd)
    assert keys.off()
    os.write(to_c_w, b"x")
    os.read(to_g_r, 1)  # in the background now
    keys.on()
    os._exit(0 if termios.tcgetattr(fd)[3] & termios.ISIG else 3)
os.setpgid(g, g)
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
os.tcsetpgrp(fd, g)
os.write(to_g_w, b"x")
os.read(to_c_r, 1)
os.tcsetpgrp(fd, os.getpgrp())
os.write(to_g_w, b"x")
_, status = os.waitpid(g, os.WUNTRACED)
if os.WIFSTOPPED(status):
    os.kill(g, signal.SIGKILL)
    print("stopped by", signal.Signals(os.WSTOPSIG(status)).name)
else:
    print("exit", os.waitstatus_to_exitcode(status))
"""


def test_keys_put_back_from_the_background_never_stop_toolhost() -> None:
    # Ctrl-Z at the prompt of `sh -c "toolhost run ..."`: the sh stopped at once and bash
    # took the terminal back before toolhost put its modes back; setting them from the
    # background stopped toolhost (SIGTTOU), and again right after `fg`: a hang
    master, slave = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD, signal_keys.__file__,
                               os.ttyname(slave)], capture_output=True, text=True,
                              timeout=60, start_new_session=True)
    finally:
        os.close(master)
        os.close(slave)
    assert done.stdout.strip() == "exit 0", done.stdout + done.stderr
