"""The terminal's file descriptors below ``Terminal``: what is typed and not read yet, fd 0
hidden from in-process code, and the terminal let go of before exit."""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import struct
import sys
import termios
import time
from collections.abc import Iterator

__all__ = ["CANON_BUFFER", "bytewise", "canonical", "drain", "drop", "foreground", "hide_stdin",
           "hung_up", "job_control", "line_mode", "line_mode_off", "pending",
           "pending_with_partial", "release_terminal_before_exit", "reopen", "restore_stdin",
           "tty_name"]


def pending(fd: int) -> int:
    """Bytes of whole lines typed on the terminal ``fd`` and not read yet."""
    with contextlib.suppress(OSError):
        raw = fcntl.ioctl(fd, termios.FIONREAD, struct.pack("i", 0))
        return int(struct.unpack("i", raw)[0])
    return 0


def pending_with_partial(fd: int) -> int:
    """``pending``, a line not finished yet included (a paste's last line, its Enter still
    to come). In line mode the kernel counts whole lines only, so line mode is turned off
    for the count and put back at once (nothing is echoed, read or lost; on Linux what is
    pending then reads as one line, which ``drop`` takes whole). Not while whole lines are
    there to be read: merged into one, a Ctrl-D among them would be a NUL byte inside a line
    (the kernel counts a Ctrl-D as nothing): then the whole lines, and at least 1."""
    try:
        modes = termios.tcgetattr(fd)
    except (OSError, termios.error):
        return pending(fd)
    if not modes[3] & termios.ICANON or not foreground(fd):
        return pending(fd)
    if _lines_ready(fd):
        return max(pending(fd), 1)
    raw = [*modes[:6], list(modes[6])]
    raw[3] = modes[3] & ~termios.ICANON
    try:
        termios.tcsetattr(fd, termios.TCSANOW, raw)
    except (OSError, termios.error):
        return pending(fd)
    try:
        return pending(fd)
    finally:
        with contextlib.suppress(OSError, termios.error):
            termios.tcsetattr(fd, termios.TCSANOW, modes)


def _lines_ready(fd: int) -> bool:
    """Whether a terminal in line mode has a whole line (or a Ctrl-D) to be read now."""
    try:
        return bool(select.select([fd], [], [], 0)[0]) and not hung_up(fd)
    except (OSError, ValueError):
        return False


# The most a terminal in line mode holds of what is typed and not read (Linux: 4 KiB)
CANON_BUFFER = 4096


def drop(fd: int, size: int) -> int:
    """Read and drop the first ``size`` bytes typed on ``fd``; how many. Only what can be
    read now is read (never waits, even on a blocking descriptor)."""
    dropped = 0
    with contextlib.suppress(OSError):
        while dropped < size and pending(fd) > 0:
            chunk = os.read(fd, size - dropped)
            if not chunk:
                break
            dropped += len(chunk)
    return dropped


# A paste larger than the terminal's input buffer (4 KiB on Linux) is not all there at once:
# the terminal writes the rest as the buffer is read. What is still coming is dropped while
# it keeps coming: until nothing came for DRAIN_QUIET seconds (a person's next key is far
# later), at most DRAIN_MAX bytes or DRAIN_LONGEST seconds (a flood that never ends).
DRAIN_QUIET = 0.25
DRAIN_MAX = 64 << 20
DRAIN_LONGEST = 10.0


def drain(fd: int, *, quiet: float = DRAIN_QUIET) -> int:
    """Read and drop what is typed on ``fd`` while more keeps coming (see ``DRAIN_QUIET``),
    then what is left of a line not finished; how many bytes."""
    dropped = 0
    deadline = time.monotonic() + DRAIN_LONGEST
    with contextlib.suppress(OSError, ValueError, termios.error):
        while dropped < DRAIN_MAX and time.monotonic() < deadline:
            whole = pending(fd)
            if whole > 0:  # whole lines: a read returns at once, even on a blocking fd
                chunk = os.read(fd, min(whole, 65536))
                if not chunk and hung_up(fd):
                    break
                dropped += len(chunk) or 1  # b"": a Ctrl-D between lines, dropped too
                continue
            if select.select([fd], [], [], quiet)[0]:
                if pending(fd) > 0:
                    continue
                if hung_up(fd):
                    break  # readable with nothing typed: hung up
                # a Ctrl-D alone on its line: the kernel counts it as nothing (b"" read)
                dropped += len(os.read(fd, 65536)) or 1
                continue
            # quiet: the paste is over; a last line without its Enter goes too
            partial = pending_with_partial(fd)
            if partial:
                termios.tcflush(fd, termios.TCIFLUSH)
                dropped += partial
            break
    return dropped


@contextlib.contextmanager
def bytewise(fd: int, *, echo: bool = True) -> Iterator[None]:
    """Line mode off on the terminal ``fd`` while in the block (a read returns what has come,
    a line not finished included; the signal keys as they were; echo too, unless ``echo`` is
    False: the reader echoes), then back as it was. Only in the foreground: from the
    background a change of modes stops the process."""
    try:
        modes = termios.tcgetattr(fd)
    except (OSError, termios.error):
        modes = None
    if modes is None or not modes[3] & termios.ICANON or not foreground(fd):
        yield
        return
    kept = termios.ICANON | (0 if echo else modes[3] & termios.ECHO)
    raw = [*modes[:6], list(modes[6])]
    raw[3] = modes[3] & ~kept
    raw[6][termios.VMIN], raw[6][termios.VTIME] = 1, 0
    with contextlib.suppress(OSError, termios.error):
        termios.tcsetattr(fd, termios.TCSANOW, raw)
    try:
        yield
    finally:
        if foreground(fd):
            # line mode back, the rest as it is now: a Ctrl-Z and fg meanwhile may have put
            # back what the reader had changed (``signal_keys``)
            line_mode(fd, kept, vmin=modes[6][termios.VMIN], vtime=modes[6][termios.VTIME])


def line_mode(fd: int, flags: int, *, on: bool = True, vmin: object = None,
              vtime: object = None) -> None:
    """Turn the local-mode ``flags`` (line mode, echo) of the terminal ``fd`` on or off, the
    rest as it is now (``bytewise``; before Ctrl-Z stops toolhost and after ``fg``)."""
    with contextlib.suppress(OSError, termios.error):
        now = termios.tcgetattr(fd)
        back = [*now[:6], list(now[6])]
        back[3] = now[3] | flags if on else now[3] & ~flags
        if not on:
            back[6][termios.VMIN], back[6][termios.VTIME] = 1, 0
        for index, value in ((termios.VMIN, vmin), (termios.VTIME, vtime)):
            if value is not None:
                back[6][index] = value
        termios.tcsetattr(fd, termios.TCSANOW, back)


def line_mode_off(fd: int, flags: int, eof: bytes) -> bytes:
    """Turn the local-mode ``flags`` (line mode, echo) of the terminal ``fd`` off, as
    ``line_mode(on=False)``, and return the keys typed before it that the kernel had made
    whole lines of, to be read as typed: a Ctrl-D the kernel took as the end of input comes
    back as ``eof`` (the key), never as the NUL byte it keeps in its place (read with line
    mode off, a Ctrl-D typed before a question was a NUL: no answer ever ended). The end of
    input key is turned off first, so one typed while this runs stays a key."""
    try:
        modes = termios.tcgetattr(fd)
    except (OSError, termios.error):
        return b""
    if not modes[3] & termios.ICANON:
        line_mode(fd, flags, on=False)
        return b""
    keyless = [*modes[:6], list(modes[6])]
    keyless[6][termios.VEOF] = _disabled(fd)  # a Ctrl-D from now on is a byte
    typed = bytearray()
    try:
        termios.tcsetattr(fd, termios.TCSANOW, keyless)
        blocking = os.get_blocking(fd)
        os.set_blocking(fd, False)
        try:
            # one read per line: b"" is a Ctrl-D on an empty line. At most the kernel's
            # buffer's worth: a paste still coming is left to be read after (memory bounded)
            while len(typed) < CANON_BUFFER:
                try:
                    chunk = os.read(fd, CANON_BUFFER)
                except BlockingIOError:
                    break
                if not chunk and hung_up(fd):
                    break  # hung up: reads end at once, for ever
                typed += chunk or eof
        finally:
            os.set_blocking(fd, blocking)
    except (OSError, termios.error):
        pass
    finally:
        line_mode(fd, flags, on=False)
        with contextlib.suppress(OSError, termios.error):
            now = termios.tcgetattr(fd)
            if termios.VEOF not in (termios.VMIN, termios.VTIME):  # shared on some systems
                now[6][termios.VEOF] = modes[6][termios.VEOF]
                termios.tcsetattr(fd, termios.TCSANOW, now)
    return bytes(typed)


def _disabled(fd: int) -> bytes:
    """The terminal's "no key" character (``_POSIX_VDISABLE``: NUL on Linux, 0xff on macOS)."""
    try:
        value = os.fpathconf(fd, "PC_VDISABLE")
    except (OSError, ValueError):
        return b"\0"
    return bytes([value]) if 0 <= value <= 0xFF else b"\0"


def hung_up(fd: int) -> bool:
    """Whether the terminal on ``fd`` hung up (an end of input that is no Ctrl-D)."""
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return any(event & select.POLLHUP for _, event in poller.poll(0))
    except (OSError, ValueError):
        return False


def canonical(fd: int) -> bool:
    """Whether the terminal on ``fd`` is in its normal (line) mode."""
    try:
        return bool(termios.tcgetattr(fd)[3] & termios.ICANON)
    except (OSError, termios.error):
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
