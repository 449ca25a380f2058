"""Run one child process without a shell: feed stdin, collect capped output, kill its group.

The child starts in a new session (its own process group). However the run ends (the program
exits, a timeout cancels it, the caller is cancelled, the output cap is hit, the host shuts
down), everything it started is killed with SIGKILL: its group and, on Linux, descendants that
left the group (see ``reaper``). A background child that kept stdout open cannot hold the call:
once the program has exited and its processes are killed, the pipes get at most
``DRAIN_GRACE`` seconds more.

For the runner's shutdown: ``kill_all_tool_processes()`` (from ``reaper``) ends every live run.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio
from anyio.abc import Process

from toolhost.backends.reaper import ToolRun, enable_subreaper, kill_all_tool_processes
from toolhost.redaction import active

__all__ = ["Outcome", "kill_all_tool_processes", "kill_group", "run_process"]

STDERR_TAIL = 64 * 1024
MAX_STDERR_LINES = 1000  # per call, sent to on_stderr
MAX_LINE = 4096  # bytes of one stderr line sent to on_stderr
OnLine = Callable[[str], Awaitable[None]]
DRAIN_GRACE = 2.0  # seconds the pipes may stay open after everything was killed


@dataclass(frozen=True)
class Outcome:
    """How a command's process ended, with its (capped) output."""

    returncode: int
    stdout: bytes
    stderr: bytes  # the last STDERR_TAIL bytes
    truncated: bool  # stdout hit the cap and the process group was stopped


class StderrLines:
    """Splits a stream into lines for ``on_stderr``, secrets hidden: a line is cut at
    ``MAX_LINE`` bytes (between characters), and after ``MAX_STDERR_LINES`` lines one last
    note says the rest was not sent.

    Secrets are hidden before the stream is cut into lines or pieces, across them: a secret
    that holds line breaks (a PEM key) is one match, and text that could be the start of one
    waits for what comes next (``Redactor.stream_split``)."""

    def __init__(self, on_line: OnLine) -> None:
        self.on_line = on_line
        self.sent = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._raw = ""  # not yet redacted: could still be the start of a secret
        self._out = ""  # redacted, not yet sent

    async def feed(self, chunk: bytes) -> None:
        if self.sent > MAX_STDERR_LINES:
            return  # over the limit: nothing more is kept
        shown, self._raw = active().stream_split(self._raw + self._decoder.decode(chunk))
        self._out += shown
        await self._lines()

    async def end(self, *, cut: bool = False) -> None:
        """The stream ended; ``cut``: because the program was stopped (it may have been
        writing a secret: a start of one held back is ``***``, as at any cut)."""
        if self.sent <= MAX_STDERR_LINES:
            rest = self._raw + self._decoder.decode(b"", final=True)
            self._out += active().cut_edges(rest, tail=True) if cut else active().redact(rest)
            await self._lines()
            if self._out:
                await self._send(self._out)
        self._raw = self._out = ""

    async def _lines(self) -> None:
        while self.sent <= MAX_STDERR_LINES:
            end = self._out.find("\n")
            if end < 0:
                if len(self._out.encode("utf-8", "surrogatepass")) < MAX_LINE:
                    return
                # a "line" with no end in sight is sent in pieces, cut between characters
                end = len(self._out.encode("utf-8", "surrogatepass")[:MAX_LINE]
                          .decode("utf-8", "ignore"))
                line, self._out = self._out[:end], self._out[end:]
            else:
                line, self._out = self._out[:end], self._out[end + 1:]
            await self._send(line)
        self._raw = self._out = ""  # over the limit: nothing more is kept

    async def _send(self, line: str) -> None:
        self.sent += 1
        if self.sent > MAX_STDERR_LINES:
            await self.on_line(f"(more stderr lines were not sent; the first "
                               f"{MAX_STDERR_LINES:,} were)")
            return
        text = line.rstrip("\r")
        if text.strip():
            await self.on_line(text)


def _supervisor() -> tuple[str, ...] | None:
    """How to start a run's own subreaper (Linux, where ``prctl`` makes one), or None."""
    if not sys.platform.startswith("linux") or not sys.executable or getattr(
            sys, "frozen", False):  # (a frozen app's executable is not a Python)
        return None
    if os.environ.get("TOOLHOST_COMMAND_SUBREAPER", "1").strip() == "0":
        return None  # turned off: a Python start less per call; a daemon may escape
    return (sys.executable, "-S", "-I", str(Path(__file__).with_name("subreaper_main.py")))


_SUPERVISOR = _supervisor()


def _exec_error(fd: int) -> int | None:
    """The errno the run's subreaper wrote when the program could not be executed."""
    try:
        os.set_blocking(fd, False)
        data = os.read(fd, 32)
    except OSError:
        data = b""
    finally:
        os.close(fd)
    return int(data) if data.strip().isdigit() else None


def kill_group(process: Process) -> None:
    """SIGKILL the child's whole process group (it is the group leader)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):  # already gone
        os.killpg(process.pid, signal.SIGKILL)


async def run_process(argv: Sequence[str], *, stdin: bytes | None, env: Mapping[str, str],
                      cwd: str | None, max_output_bytes: int,
                      on_stderr: OnLine | None = None, max_memory: int = 0) -> Outcome:
    """Run ``argv`` to completion. Raises ``OSError`` when it cannot start. ``on_stderr``
    hears each line of stderr as it is written (at most ``MAX_STDERR_LINES``).
    ``max_memory``: the program's RLIMIT_DATA (set by its subreaper, so Linux only)."""
    run = ToolRun(supervised=enable_subreaper() and _SUPERVISOR is not None)
    # Shielded: a cancel that landed while the child was being started would lose the
    # process object, and with it the only handle to kill what the child starts.
    run.starting()  # killed before ``started``: the watchdog still knows the run's id
    mark = run.inherited_mark()
    fds: tuple[int, ...] = (mark,)
    spawn, failed = list(argv), -1
    if run.supervised and _SUPERVISOR is not None:  # its own subreaper, before the program
        failed, status = os.pipe()
        ctype = env.get("LC_CTYPE")  # as given: Python's start would make it C.UTF-8
        fds, spawn = (mark, status), [*_SUPERVISOR, f"{status}:{max_memory}" if max_memory
                                      else str(status),
                                      "-" if ctype is None else f"={ctype}", *argv]
    try:
        with anyio.CancelScope(shield=True):
            process = await anyio.open_process(
                spawn, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                env=run.env(dict(env)), start_new_session=True, pass_fds=fds)
    except BaseException as exc:
        run.not_started()
        if failed >= 0:
            os.close(failed)
            if isinstance(exc, OSError) and exc.errno == errno.E2BIG:
                # too long with the subreaper's few words too: the program's error, as before
                raise OSError(exc.errno, exc.strerror, argv[0]) from None
        raise
    finally:
        for fd in fds:
            os.close(fd)
    run.started(process.pid)
    run.note_outputs(process.pid)
    out = bytearray()
    err = bytearray()
    truncated = False

    async def read_stdout() -> None:
        nonlocal truncated
        assert process.stdout is not None
        async for chunk in process.stdout:
            room = max_output_bytes - len(out)
            out.extend(chunk[:room])
            if len(chunk) > room:
                truncated = True
                # enough: stop it rather than drain forever (its subreaper last)
                await anyio.to_thread.run_sync(run.end)
                return

    lines = StderrLines(on_stderr) if on_stderr is not None else None

    async def read_stderr() -> None:
        assert process.stderr is not None
        async for chunk in process.stderr:
            err.extend(chunk)
            if len(err) > STDERR_TAIL:
                del err[:-STDERR_TAIL]
            if lines is not None:
                await lines.feed(chunk)
        if lines is not None:  # (ended by our stop at the output cap: a cut)
            await lines.end(cut=truncated)

    async def feed_stdin() -> None:
        assert process.stdin is not None and stdin is not None
        try:
            await process.stdin.send(stdin)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass  # the program did not read all of its input; not our failure
        finally:
            await process.stdin.aclose()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read_stdout)
            tg.start_soon(read_stderr)
            if stdin is not None:
                tg.start_soon(feed_stdin)
            returncode = await process.wait()
            # the run's subreaper died of a signal we did not send (a daemon's `kill -9
            # $PPID`): what it had adopted is the host's now, and is swept as well
            run.orphaned = run.supervised and returncode < 0 and not run.ended
            # the program is done: so is everything it started (a /proc walk: off the loop)
            await anyio.to_thread.run_sync(run.end)
            tg.cancel_scope.deadline = anyio.current_time() + DRAIN_GRACE
    finally:
        with anyio.CancelScope(shield=True):
            if not run.ended:
                await anyio.to_thread.run_sync(run.end)
            await process.aclose()
            if failed >= 0:
                error = _exec_error(failed)
                if error is not None:  # the subreaper could not execute the program
                    raise OSError(error, os.strerror(error), argv[0])
    return Outcome(returncode=returncode, stdout=bytes(out), stderr=bytes(err),
                   truncated=truncated)
