"""The terminal as this process holds it: whether it hung up, whose foreground it is, whether a
stop can be resumed, its name, a description of our own, fd 0 hidden from in-process code, and
the terminal let go of before exit. Standard library only (tests load it alone)."""

from __future__ import annotations

import contextlib
import os
import select
import sys

__all__ = ["foreground", "hide_stdin", "hung_up", "job_control", "release_terminal_before_exit",
           "reopen", "restore_stdin", "tty_name"]


def hung_up(fd: int) -> bool:
    """Whether the terminal on ``fd`` hung up (an end of input that is no Ctrl-D)."""
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return any(event & select.POLLHUP for _, event in poller.poll(0))
    except (OSError, ValueError):
        return False


def foreground(fd: int) -> bool:
    """Whether this process may set the modes of the terminal on ``fd`` without being
    stopped: it is in the terminal's foreground group, or the terminal is not its
    controlling one (no job control applies)."""
    try:
        return os.tcgetpgrp(fd) == os.getpgrp()
    except OSError:  # ENOTTY: not our controlling terminal
        return True


def job_control() -> bool:
    """Whether a stop (Ctrl-Z) can be resumed: a shell with job control holds this process's
    group, i.e. the group is not orphaned. A session leader (a program a terminal emulator or
    tmux starts directly, ``exec`` in its shell) or a child of another session has no such
    shell: the kernel itself discards Ctrl-Z there, and a process stopping itself would stay
    stopped for good. A parent in this process group (``sh -c``) is taken to be run by one."""
    try:
        if os.getsid(0) == os.getpid():
            return False
        parent = os.getppid()
        return os.getsid(parent) == os.getsid(0)
    except OSError:
        return False


def tty_name(fd: int) -> str:
    """The path of the terminal on ``fd`` that another process can open ("" if none): for
    ``/dev/tty`` (which names the opener's own controlling terminal: the watchdog, in a
    session of its own, has none) the device it stands for, found by its number in
    ``/dev/pts`` (Linux: ``/proc/self/stat``)."""
    try:
        name = os.ttyname(fd)
    except OSError:
        return ""
    if name != "/dev/tty":
        return name
    try:
        with open("/proc/self/stat", "rb") as stat:
            number = int(stat.read().rsplit(b")", 1)[1].split()[4])
        for entry in os.listdir("/dev/pts"):
            path = f"/dev/pts/{entry}"
            if entry.isdigit() and os.stat(path).st_rdev == number:
                return path
    except (OSError, ValueError, IndexError):
        pass
    return ""


def reopen(fd: int) -> int:
    """The terminal on ``fd`` opened again: a description of our own, so it can be
    non-blocking without changing the shell's; a duplicate when it cannot be reopened."""
    try:
        return os.open(os.ttyname(fd), os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return os.dup(fd)


def hide_stdin() -> int:
    """Put ``/dev/null`` on fd 0 (in-process code reading stdin gets end of input); returns
    a duplicate of what was there, for ``restore_stdin`` (or to read it privately), or -1
    when fd 0 was closed (reading -1 fails: end of input)."""
    try:
        saved = os.dup(0)
    except OSError:
        saved = -1
    null = os.open(os.devnull, os.O_RDONLY)  # 0 itself when fd 0 was closed
    if null != 0:
        os.dup2(null, 0)
        os.close(null)
    return saved


def restore_stdin(saved: int, *, close: bool = True) -> None:
    """Put ``saved`` (from ``hide_stdin``) back on fd 0; ``close``: close ``saved`` too."""
    if saved < 0:
        return  # fd 0 was closed: /dev/null stays
    with contextlib.suppress(OSError):
        os.dup2(saved, 0)
        if close:
            os.close(saved)


def release_terminal_before_exit(*, settle: float = 0.1) -> bool:
    """Close this process's hold on its terminal a moment before it exits, when it leads the
    terminal's session (started directly by tmux, screen or a terminal emulator).

    Why: a session leader that exits with threads running closes the terminal a few
    milliseconds before the kernel reports its exit. tmux (with libutempter) answers the
    close by running a helper with SIGCHLD set to the default action, and an exit reported in
    that window is lost: toolhost stays a zombie and the pane never shows its exit status.
    Closing first and waiting ``settle`` seconds lets the helper finish before the exit is
    reported. A hang-up that the close brings is ignored: everything was said. Returns
    whether the terminal was released.
    """
    import signal
    import time

    try:
        if os.getsid(0) != os.getpid():
            return False  # a shell (or another process) holds the terminal and reaps us
        ttys = [fd for fd in (0, 1, 2) if os.isatty(fd)]
    except OSError:
        return False
    if not ttys:
        return False
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in ttys:
        with contextlib.suppress(OSError):
            os.dup2(devnull, fd)
    os.close(devnull)
    time.sleep(settle)
    return True
