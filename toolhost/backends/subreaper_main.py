"""A command run's own subreaper (Linux): ``python -S -I subreaper_main.py FD CTYPE ARGV...``.

The host starts this small process in the run's new session instead of the program; it makes
itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``), forks and execs the program,
and waits for it. Every descendant the program orphans (a ``setsid`` and double fork, one that
cleared its environment and closed every descriptor) is re-parented to this process, not to
the host, so it stays in the run's process tree whatever it did to leave. When the program
exits, everything left below is killed (again until none is left) and this process exits with
the program's status: the same exit code, or the same signal (no core dump of its own).

When the program cannot be executed, its ``errno`` is written to descriptor ``FD`` (the host
reads it and reports the error as it reports a failed spawn) and the status is 127.

It imports nothing but built-in modules (``os``, ``_signal``, ``_ctypes`` for ``prctl``): it
starts in about as long as ``python -S -I -c pass``. It never runs inside the host (no
fork of a threaded process).
"""

from __future__ import annotations

import os
import sys

# Built-in modules only: ``typing`` and ``signal`` (which imports ``enum``) cost a few ms each
# to import, more than the rest of this process's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal
    from typing import Any
else:
    import _signal as signal

_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_DUMPABLE = 4


def _prctl(option: int, value: int) -> bool:
    """``prctl(option, value)`` through ``_ctypes`` alone: the ``ctypes`` package costs
    more to import than the whole start of this process without it."""
    try:
        import _ctypes

        c: Any = _ctypes

        class _Int(c._SimpleCData):  # type: ignore[misc]
            _type_ = "i"

        class _Function(c.CFuncPtr):  # type: ignore[misc]
            _flags_ = c.FUNCFLAG_CDECL
            _restype_ = _Int

        class _Libc:
            _handle = c.dlopen(None)

        return bool(_Function(("prctl", _Libc()))(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError, ImportError, TypeError):
        return False


def _children() -> list[int]:
    """Our live children (the orphans re-parented to us included)."""
    me = os.getpid()
    try:
        with open(f"/proc/{me}/task/{me}/children", "rb") as f:
            return [int(p) for p in f.read().split()]
    except OSError:  # no CONFIG_PROC_CHILDREN: read every process's parent
        out = []
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    with open(f"/proc/{name}/stat", "rb") as f:
                        raw = f.read()
                except OSError:
                    continue
                fields = raw[raw.rfind(b")") + 2:].split()
                if len(fields) > 1 and int(fields[1]) == me:
                    out.append(int(name))
        return out


def _exec(fd: int, ctype: str, argv: list[str], ignored: frozenset[int]) -> None:
    """In the forked child: the program, with the signal dispositions a program expects and
    the environment the host gave (``ctype``: ``LC_CTYPE`` as it was, ``-`` for unset, ``=``
    and the value if set: Python's start sets it to ``C.UTF-8`` in a C locale)."""
    try:
        os.set_inheritable(fd, False)
        # the program leads its own session and group, as it would without this process:
        # ``kill -- -$$`` and ``getpgrp() == getpid()`` work, and ``kill 0`` misses us
        os.setsid()
        # as ``subprocess`` starts a program: SIGPIPE and SIGXFSZ at their defaults (Python
        # ignores them); every other signal as the host had it (``ignored``: what it ignored,
        # e.g. SIGINT and SIGQUIT under a background shell, SIGHUP under nohup, stays so)
        for sig in (signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(sig, signal.SIG_DFL)
        for kept in ignored:
            signal.signal(kept, signal.SIG_IGN)
        if signal.SIGINT not in ignored:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
        env = dict(os.environb)
        if ctype.startswith("="):
            env[b"LC_CTYPE"] = os.fsencode(ctype[1:])
        else:
            env.pop(b"LC_CTYPE", None)
        os.execvpe(argv[0], argv, env)
    except OSError as exc:
        os.write(fd, str(exc.errno or 0).encode())
    except BaseException:  # never return into the supervisor's code
        os.write(fd, b"0")
    os._exit(127)


def _ignore(signum: int, frame: object) -> None:
    """A signal sent to the run's group (a program's ``kill 0``, ``kill -INT 0``) is the
    program's business: this process lives on and reports the program's own end."""


# Catchable signals whose default ends or stops a process, but not the faults a process
# raises itself (SEGV, BUS, FPE, ILL, TRAP, SYS, ABRT): caught, not ignored, so that the
# program's exec sets them back to their defaults.
_SHIELDED = ("SIGHUP", "SIGINT", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGTERM",
             "SIGSTKFLT", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGXCPU", "SIGVTALRM", "SIGPROF",
             "SIGIO", "SIGPWR")


def _shield() -> frozenset[int]:
    """Catch the group's signals; the ones the host ignored (inherited: this process
    started with them ignored) stay ignored, and are returned, for the program to inherit as
    it would have from the host."""
    ignored = set()
    rt = range(getattr(signal, "SIGRTMIN", 0), getattr(signal, "SIGRTMAX", -1) + 1)
    for sig in (*(getattr(signal, n, 0) for n in _SHIELDED), *rt):
        try:
            if not sig:
                continue
            if signal.getsignal(sig) == signal.SIG_IGN:
                ignored.add(sig)
                continue
            signal.signal(sig, _ignore)
        except (OSError, ValueError):
            continue
    return frozenset(ignored)


def limit_memory(size: object) -> None:
    """``max_memory`` (RLIMIT_DATA: what a process writes — heap, anonymous maps, thread
    stacks —, not address space a runtime only reserves), for a command run's program and
    for a python worker before the tool's module is imported; every process either starts
    inherits it. Past it allocations fail (``MemoryError``). Not a positive int: nothing.
    Built-in modules only: this module is also the command run's ``python -S -I`` process."""
    if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
        return
    try:
        import resource

        hard = resource.getrlimit(resource.RLIMIT_DATA)[1]
        if hard != resource.RLIM_INFINITY:
            size = min(size, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (size, hard))
    except (ImportError, OSError, ValueError, OverflowError):
        pass


def first_to_go() -> None:
    """Make the run (or a python worker) the first the kernel's OOM killer ends
    (``oom_score_adj`` 1000, which every process it starts inherits): a tool that
    allocates without bound is killed, not the host, the Claude CLI, or another tool's run.
    Raising one's own score needs no privilege; where it cannot be written, nothing
    changes."""
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass


def main() -> None:
    fd_text, _, memory = sys.argv[1].partition(":")  # FD or FD:MAX_MEMORY
    fd, ctype, argv = int(fd_text), sys.argv[2], sys.argv[3:]
    ignored = _shield()
    first_to_go()
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    try:
        child = os.fork()
    except OSError as exc:  # EAGAIN (a process limit): reported as the spawn's error
        os.write(fd, str(exc.errno or 0).encode())
        os._exit(127)
    if child == 0:
        if memory.isdigit():
            limit_memory(int(memory))
        _exec(fd, ctype, argv, ignored)
    os.close(fd)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # the program's stdin is the program's: EOF for the host's writes
    os.close(devnull)
    status = 0
    while True:  # the program's end; reaping orphans that end before it
        try:
            pid, status = os.waitpid(-1, 0)
        except InterruptedError:
            continue
        except ChildProcessError:
            break
        if pid == child:
            break
    while True:  # everything the program left: killed; their orphans come to us, killed too
        for pid in _children():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                continue  # gone already
        try:
            os.waitpid(-1, 0)
        except InterruptedError:
            continue
        except ChildProcessError:
            break
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        _prctl(_PR_SET_DUMPABLE, 0)  # the same signal, without a core file of our own
        try:  # (SIGKILL and SIGSTOP have no handler to reset)
            signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        except (OSError, ValueError):
            pass
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


if __name__ == "__main__":
    main()
