"""Command tools die with toolhost, even when toolhost is killed outright (SIGKILL, OOM).

However a command run ends while toolhost lives, ``ToolRun.end()`` kills what it started (see
``reaper``). A SIGKILL of toolhost gives it no chance: its tool processes would be re-parented
to init and run on. A parent-death signal in the tool's leader would only reach the leader, not
the processes it started, and would cost a wrapper process per call (``anyio.open_process`` has
no ``preexec_fn``).

Instead, the first run (a command tool's call, or the Claude CLI of ``toolhost run``, which
carries a run id of its own so its Bash commands do too) starts one *watchdog* per toolhost
process: a few lines of
Python (``-I -S``) in a session of its own (so a Ctrl-C or SIGHUP to the terminal does not end
it) that reads a pipe whose only write end toolhost holds (non-inheritable, so no other child
keeps it open). toolhost writes ``+ 0 RUN_ID`` before a run's process is started,
``+ PGID RUN_ID`` once it runs (the pid is known) and ``- PGID RUN_ID`` when it has ended.
When the pipe reaches end of file, toolhost is gone, however it went: the
watchdog SIGKILLs the process group of every run still open and, where ``/proc`` exists
(Linux), every process whose environment carries one of those runs' ``TOOLHOST_RUN_ID`` with
its process group, again until none is left; then it exits. (A toolhost killed between the
fork and the ``+ PGID`` line, which the event loop writes a moment later: the marker still
finds the leader and its group.) After a clean exit no run is open and it just exits.

Covered: the tool's whole process group, and descendants that left it (``setsid``, double
forks) but kept their environment (Linux). Not covered: a descendant that both left the group
and cleared its environment (``env -i``); a watchdog that was itself killed (it ignores SIGINT,
SIGTERM and SIGHUP, not SIGKILL).

It also turns off the terminal's paste marking (``ESC[?2004l``) that ``toolhost run`` had on
while its ``> `` prompt was read (``pastes_marked``), so a ``kill -9`` at the prompt does not
leave the shell's terminal wrapping every paste in ``ESC[200~`` ... ``ESC[201~``, and puts
back the terminal's signal keys (``ISIG``, ``VEOL``, ``VEOL2``) that the prompt had turned
into line ends, or the ``VEOL`` a permission question had set to ESC
(``toolhost.runner.signal_keys``), unless a shell already set them again. Whatever the
marks (``TERM=dumb`` too), the terminal's modes toolhost changed (line mode and echo, off
while a question's answer is read; the signal keys; ``IUTF8``) are put back as it found them
(``modes_left``), where the terminal is still as toolhost left it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import Any

__all__ = ["closed", "modes_left", "opened", "pastes_marked"]

_SCRIPT = r"""
import os, signal, sys, time
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)
runs, buf, tty, keys, modes = {}, b"", b"", None, None
while True:
    try:
        chunk = os.read(0, 65536)
    except InterruptedError:
        continue
    if not chunk:
        break
    *lines, buf = (buf + chunk).split(b"\n")
    for line in lines:
        parts = line.split(b" ")
        if parts[0] == b"M":
            modes = (parts[1], [int(p) for p in parts[2:]]) if len(parts) == 16 and \
                all(p.isdigit() for p in parts[2:]) else None
        elif len(parts) in (2, 4) and parts[0] == b"T":
            tty = parts[1] if parts[1] != b"-" else b""
            keys = [int(p) for p in parts[2:]] if len(parts) == 4 and tty and \
                parts[2].isdigit() and parts[3].isdigit() else None
        elif len(parts) == 3 and parts[1].isdigit():
            if parts[0] == b"+":
                runs[parts[2]] = int(parts[1])
            else:
                runs.pop(parts[2], None)
if modes is not None:
    # the modes the terminal was found in, put back where toolhost left it so (a shell
    # that set its own since is left alone): line mode, echo, the signal keys, IUTF8
    try:
        import termios
        (path, (im, lm, fi, fl, li, ll, veof, veol, veol2, vmin, vtime, lveol, lveol2,
                either)) = modes
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        m = termios.tcgetattr(fd)
        c = [x if isinstance(x, int) else x[0] for x in m[6]]
        cm = lm & ~either  # bits being changed as toolhost died: either way is toolhost's
        if (m[0] & im, m[3] & cm, c[termios.VEOL], c[termios.VEOL2]) == \
                (li & im, ll & cm, lveol, lveol2):
            m[0], m[3] = m[0] & ~im | fi & im, m[3] & ~lm | fl & lm
            for i, v in ((termios.VEOF, veof), (termios.VEOL, veol), (termios.VEOL2, veol2),
                         (termios.VMIN, vmin), (termios.VTIME, vtime)):
                m[6][i] = bytes([v])
            termios.tcsetattr(fd, termios.TCSANOW, m)
        os.close(fd)
    except Exception:
        pass
if tty:
    try:
        fd = os.open(tty, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
        os.write(fd, b"\x1b[?2004l")
        if keys is not None:
            import termios
            m = termios.tcgetattr(fd)
            # still as toolhost left it (a shell may be first): the prompt's keys off, or a
            # question's ESC line end
            if not m[3] & termios.ISIG or m[6][termios.VEOL] == b"\x1b" != bytes([keys[0]]):
                if m[6][termios.VEOL] == b"\x1b" and not m[3] & termios.ICANON:
                    m[3] |= termios.ICANON | termios.ECHO  # an answer read after its Escape
                m[3] |= termios.ISIG
                m[6][termios.VEOL], m[6][termios.VEOL2] = bytes([keys[0]]), bytes([keys[1]])
                termios.tcsetattr(fd, termios.TCSANOW, m)
        os.close(fd)
    except Exception:
        pass
needles = [b"TOOLHOST_RUN_ID=" + run + b"\0" for run in runs]
me = os.getpid()
for _ in range(50):
    found = 0
    for pgid in runs.values():
        try:
            if pgid > 0:
                os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        pids = []
    for pid in pids:
        if pid == me:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = b"\0" + f.read() + b"\0"
        except OSError:
            continue
        if any(b"\0" + n in env for n in needles):
            try:
                group = os.getpgid(pid)
                os.kill(pid, signal.SIGKILL)
                found += 1
                if group != os.getpgid(0):  # its group: the run's, or one it made
                    os.killpg(group, signal.SIGKILL)
            except OSError:
                pass
    if not found:
        break
    time.sleep(0.02)
"""

_lock = threading.Lock()
_pipe: int | None = None  # the write end; -1 once starting failed
_started_in: int | None = None  # the pid that started it (a forked child must not share it)
_pid: int | None = None  # the watchdog's own pid (a child of the host, never a run's orphan)


def pid() -> int | None:
    """The watchdog process's pid, if this process started one."""
    return _pid if _started_in == os.getpid() else None


def _ensure() -> int | None:
    global _pipe, _started_in, _pid
    with _lock:
        if _pipe is not None and _started_in == os.getpid():
            return _pipe if _pipe >= 0 else None
        _pipe, _started_in = -1, os.getpid()
        read_end, write_end = os.pipe()  # both non-inheritable
        try:
            env = {k: v for k, v in os.environ.items() if k != "TOOLHOST_RUN_ID"}
            actions = [(os.POSIX_SPAWN_DUP2, read_end, 0),
                       (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                       (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
            argv = [sys.executable, "-I", "-S", "-c", _SCRIPT]
            try:
                _pid = os.posix_spawn(sys.executable, argv, env, file_actions=actions,
                                      setsid=True)
            except NotImplementedError:  # no POSIX_SPAWN_SETSID: a group of its own
                _pid = os.posix_spawn(sys.executable, argv, env, file_actions=actions,
                                      setpgroup=0)
        except (OSError, AttributeError, TypeError, NotImplementedError):
            os.close(write_end)
            return None
        finally:
            os.close(read_end)
        os.set_blocking(write_end, False)  # never hold the event loop on a stuck watchdog
        _pipe = write_end
        return _pipe


def _send(line: str, *, start: bool) -> None:
    pipe = _ensure() if start else (_pipe if _started_in == os.getpid() else None)
    if pipe is None or pipe < 0:
        return
    with contextlib.suppress(OSError):  # a dead or stuck watchdog: nothing better to do
        os.write(pipe, line.encode())


def opened(pgid: int, run_id: str) -> None:
    """A command run starts (``pgid`` 0: not yet known) or started: its group and marked
    processes die if toolhost does."""
    if os.name == "posix":
        _send(f"+ {pgid} {run_id}\n", start=True)


def closed(pgid: int, run_id: str) -> None:
    """A command run has ended and everything it started was killed (signal-handler safe)."""
    if os.name == "posix":
        _send(f"- {pgid} {run_id}\n", start=False)


def pastes_marked(tty: str | None, keys: tuple[int, int] | None = None) -> None:
    """The terminal at path ``tty`` marks pastes now (None: no longer): if toolhost is killed
    outright meanwhile, the watchdog turns the marks off (signal-handler safe; only once a
    run has started it). ``keys``: its signal keys are off too (``ISIG`` cleared), and these
    ``VEOL`` and ``VEOL2`` characters are to be put back with ``ISIG``."""
    if os.name == "posix" and (tty is None or (tty and " " not in tty and "\n" not in tty)):
        more = f" {keys[0]} {keys[1]}" if tty and keys is not None else ""
        _send(f"T {tty or '-'}{more}\n", start=False)


def modes_left(tty: str | None, found: list[Any] | None = None,
               left: list[Any] | None = None, iflags: int = 0, lflags: int = 0,
               changing: int = 0) -> None:
    """The terminal at path ``tty`` is left in modes other than ``found`` (``termios``
    lists): if toolhost is killed outright while it is ``left`` so, the watchdog puts back
    the ``iflags`` and ``lflags`` bits and the ``VEOF``, ``VEOL``, ``VEOL2``, ``VMIN`` and
    ``VTIME`` characters it was found with (None: put back now, nothing to do). ``changing``:
    the ``lflags`` bits about to change (said before the change: a kill in the midst of it
    finds them either way, and ``VEOF`` maybe off). Signal-handler safe; only once a run has
    started the watchdog."""
    if os.name != "posix":
        return
    if tty is None or found is None or left is None or " " in tty or "\n" in tty:
        _send("M -\n", start=False)
        return
    import termios
    numbers = [iflags, lflags, found[0], found[3], left[0], left[3],
               *(_cc(found, i) for i in (termios.VEOF, termios.VEOL, termios.VEOL2,
                                         termios.VMIN, termios.VTIME)),
               _cc(left, termios.VEOL), _cc(left, termios.VEOL2), changing & lflags]
    _send(f"M {tty} {' '.join(str(n) for n in numbers)}\n", start=False)


def _cc(modes: list[Any], index: int) -> int:
    value = modes[6][index]
    return value if isinstance(value, int) else value[0] if value else 0
