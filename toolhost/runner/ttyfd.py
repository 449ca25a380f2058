"""What is typed on the terminal and not read yet, below ``Terminal``: counted (a line not
finished included), dropped, and a paste still coming drained. (The terminal's modes are
``runner.ttymodes``; how this process holds it, ``runner.ttyheld``.)"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import struct
import termios
import time

from toolhost.runner.ttyheld import foreground, hung_up

__all__ = ["CANON_BUFFER", "drain", "drop", "pending", "pending_with_partial"]


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


