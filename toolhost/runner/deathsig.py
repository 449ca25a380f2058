"""The Claude CLI dies with toolhost, even when toolhost is killed outright.

A clean exit, Ctrl-C, SIGTERM and SIGHUP all stop the CLI through ``process._stop``. SIGKILL
(or the OOM killer) leaves no chance for that: the CLI only sees its stdin close, and a CLI
waiting for the model notices that late (12 s to minutes, measured). On Linux the kernel can
do it instead: ``prctl(PR_SET_PDEATHSIG)`` in the child delivers a signal when its parent
dies. ``anyio.open_process`` has no ``preexec_fn``, so the CLI is started through a few lines
of Python (``-I -S``: no site, no user paths) that set the signal and ``exec`` the CLI: same
pid, same argv from then on. Elsewhere the argv is returned unchanged and the closed pipe is
what ends the CLI (see docs/running.md).
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence

__all__ = ["with_parent_death_signal"]

# argv: SIGNAL PARENT_PID PROGRAM ARGS... If the parent died before prctl took effect, the
# parent pid has already changed: exit instead of running an orphan.
_SHIM = """\
import ctypes, os, sys
ctypes.CDLL(None, use_errno=True).prctl(1, int(sys.argv[1]), 0, 0, 0)
if os.getppid() != int(sys.argv[2]):
    os._exit(1)
try:
    os.execvp(sys.argv[3], sys.argv[3:])
except OSError as exc:
    sys.stderr.write(f"cannot start {sys.argv[3]}: {exc}\\n")
    os._exit(127)
"""


def with_parent_death_signal(argv: Sequence[str], signum: int = signal.SIGKILL,
                             *, platform: str = sys.platform) -> list[str]:
    """``argv`` wrapped so that the program gets ``signum`` when this process dies (Linux).

    SIGKILL by default: nobody is left to escalate if a gentler signal were ignored.
    """
    if not platform.startswith("linux") or not argv:
        return list(argv)
    import os

    program = os.path.abspath(argv[0]) if os.sep in argv[0] else argv[0]
    return [sys.executable, "-I", "-S", "-c", _SHIM, str(int(signum)), str(os.getpid()),
            program, *argv[1:]]
