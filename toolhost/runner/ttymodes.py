"""The terminal's modes while toolhost reads it: line mode and echo off for a read and back
after, the keys the kernel had already made lines of given back as typed."""

from __future__ import annotations

import contextlib
import os
import termios
from collections.abc import Iterator

from toolhost.runner.ttyfd import CANON_BUFFER
from toolhost.runner.ttyheld import foreground, hung_up

__all__ = ["bytewise", "canonical", "line_mode", "line_mode_off"]


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


def canonical(fd: int) -> bool:
    """Whether the terminal on ``fd`` is in its normal (line) mode."""
    try:
        return bool(termios.tcgetattr(fd)[3] & termios.ICANON)
    except (OSError, termios.error):
        return False
