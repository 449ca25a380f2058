"""``isolation: process``: a python tool's calls run in worker processes that can be killed.

Design (see docs/backends.md for the user's side):

- **Persistent workers, one call at a time each.** A tool gets up to ``workers`` processes
  (default 2), started on its first calls (``python -m toolhost.backends.worker_main``, a fresh
  interpreter: no fork of a threaded host) and kept for the next ones; more concurrent calls
  wait for a free worker within their own timeout.
- **Killed, not asked.** On timeout, cancel or host shutdown the worker's whole process group
  gets SIGKILL, and so does everything it started that left the group (a ``setsid`` child, a
  double fork: each worker is a ``toolhost.backends.reaper.ToolRun``, with its own
  ``TOOLHOST_RUN_ID``; the watchdog does the same if the host is killed outright); a crash
  (segfault, ``os._exit``, a recursion that overflows) is seen as the pipe closing. Either
  way that call gets an error result and the next call a fresh worker.
  On Linux a worker also dies with its host (``PR_SET_PDEATHSIG``), and a call that ends
  normally leaves nothing behind either: the worker is a subreaper and kills its own
  descendants before it answers (``reaper.end_descendants``), then waits for the next call.
- **Only JSON crosses.** Arguments go as the model sent them and are converted in the worker
  (which imports the function itself, from the host's ``sys.path``); the result is mapped and
  cut to ``max_output_chars`` in the worker, so a huge result never crosses whole, and a line
  from the worker longer than ``MAX_LINE_BYTES`` kills it. ``CallContext.progress`` is relayed;
  ``call_id``, ``tool`` and ``log`` (to stderr) work; nothing else of the host is shared
  (module globals live per worker, and are lost when a worker is killed).
- **No secret crosses.** The worker is sent no secret value (the tool's code could read it
  there): what it writes to fds 1 and 2 is read by the host through its own scrubbing stream
  (``worker_stderr``), and the edge of a result or error message the worker cut is masked
  here, where the secrets are known (the rest is redacted as any tool's result is).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.to_thread
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

from toolhost.backends.base import CallContext, ToolFailure
from toolhost.backends.reaper import ToolRun, enable_subreaper
from toolhost.backends.worker_env import worker_env
from toolhost.backends.worker_stderr import WorkerOutput
from toolhost.compile.shaping import mask_cut_edges
from toolhost.redaction import active
from toolhost.results import ToolResult

__all__ = ["DEFAULT_WORKERS", "WorkerPool", "WorkerSpec"]

DEFAULT_WORKERS = 2
MAX_LINE_BYTES = 64 * 1024 * 1024  # the worker cuts results far below this
EXIT_GRACE = 2.0  # seconds a worker whose pipe closed has to exit before it is killed
_LIVE: set[int] = set()  # process groups of running workers, killed at interpreter exit


@atexit.register
def _kill_leftovers() -> None:
    for pgid in list(_LIVE):
        _killpg(pgid)


def _killpg(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
    _LIVE.discard(pgid)


@dataclass(frozen=True)
class WorkerSpec:
    """What a worker needs to import and run the tool."""

    function: str  # "package.module:attr"
    tool: str  # the tool's name, for messages
    limit: int  # max_output_chars: results are cut to this in the worker
    search: tuple[str, ...] = ()  # the declaring config's directories (module_origin)
    max_memory: int = 0  # bytes a worker may allocate (RLIMIT_DATA); 0: no limit
    # its environment (worker_env): the server's env, and what pass_env takes from the host's
    server_env: Mapping[str, str] = field(default_factory=dict)
    pass_env: tuple[str, ...] = ()


class _RemoteError(Exception):
    """The tool raised in its worker: reads like the same exception raised in-process."""


def _describe_end(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with status {code}"


class _Worker:
    def __init__(self, process: Process, run: ToolRun, output: WorkerOutput) -> None:
        self.process = process
        self.run = run  # its process group and TOOLHOST_RUN_ID: what a kill ends
        self.output = output  # its fds 1 and 2, read here
        self.answers = 0  # calls answered so far (each answer follows a mark on its fd 2)
        assert process.stdout is not None and process.stdin is not None
        self.reader = BufferedByteReceiveStream(process.stdout)

    async def answered(self) -> None:
        """One more answer came: what the call wrote to fds 1 and 2 is out first."""
        self.answers += 1
        if not self.output.out(self.answers):
            await anyio.to_thread.run_sync(self.output.wait, self.answers,
                                           abandon_on_cancel=True)

    async def receive(self) -> dict[str, Any]:
        try:
            line = await self.reader.receive_until(b"\n", MAX_LINE_BYTES)
        except anyio.DelimiterNotFound:
            raise ToolFailure(f"sent a message over {MAX_LINE_BYTES:,} bytes from its worker "
                              "process, which was killed") from None
        except (anyio.EndOfStream, anyio.IncompleteRead, anyio.BrokenResourceError):
            raise ToolFailure(f"crashed: its worker process {await self._end()} (a fresh "
                              "one runs the next call)") from None
        message = json.loads(line)
        if not isinstance(message, dict):
            raise ToolFailure("got a malformed answer from its worker process")
        return message

    async def send(self, message: Mapping[str, Any]) -> None:
        assert self.process.stdin is not None
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        try:
            await self.process.stdin.send(data)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            raise ToolFailure(f"crashed: its worker process {await self._end()}") from None

    async def _end(self) -> str:
        """How the worker ended, once its pipe to the host closed. A worker whose tool
        closed its descriptors (``os.closerange``) lives on with no way to answer: after
        ``EXIT_GRACE`` it is killed (by the caller) rather than waited for until the
        call's timeout."""
        with anyio.move_on_after(EXIT_GRACE):
            return _describe_end(await self.process.wait())
        return "closed its pipes to the host (the tool closed its descriptors) and was killed"

    async def kill(self) -> None:
        # a worker that died before we killed it (a tool's daemon killed it: `kill -9
        # $PPID`) left what it had adopted to the host: swept as well
        self.run.orphaned = self.process.returncode is not None
        _killpg(self.process.pid)
        with anyio.CancelScope(shield=True):
            # and what the tool started that left the group (start_new_session, a double
            # fork): the run's descendants and the processes carrying its TOOLHOST_RUN_ID
            await anyio.to_thread.run_sync(self.run.end)
            await self.process.wait()
            await self.process.aclose()


class WorkerPool:
    """The worker processes of one tool."""

    def __init__(self, spec: WorkerSpec, workers: int = DEFAULT_WORKERS) -> None:
        self.spec = spec
        self.max_workers = workers
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._limiter: anyio.CapacityLimiter | None = None
        self.started = 0  # worker processes started so far (fresh ones after kills included)

    async def call(self, arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        """Run one call in a worker; kill the worker if the call is cancelled or times out."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.max_workers)
        async with self._limiter:
            worker: _Worker | None = None
            healthy = False
            try:
                worker = self._idle.pop() if self._idle else await self._start()
                self._busy.add(worker)
                result = await self._run(worker, arguments, ctx)
                healthy = True
            except _RemoteError:
                healthy = True
                raise
            finally:
                if worker is not None:
                    self._busy.discard(worker)
                    if healthy:
                        self._idle.append(worker)
                    else:
                        await worker.kill()
            return result

    async def _start(self) -> _Worker:
        enable_subreaper()  # a descendant that leaves the worker's group stays in our tree
        run = ToolRun()
        run.starting()  # from now on the watchdog knows the run's id
        output = WorkerOutput()
        try:
            with anyio.CancelScope(shield=True):  # a lost process object could not be killed
                process = await anyio.open_process(
                    [sys.executable, "-m", "toolhost.backends.worker_main"],
                    stderr=output.child_fd, start_new_session=True,
                    env=run.env(worker_env(self.spec.server_env, self.spec.pass_env)))
        except BaseException:
            run.not_started()
            output.not_started()
            raise
        output.started()
        run.started(process.pid)
        _LIVE.add(process.pid)
        self.started += 1
        worker = _Worker(process, run, output)
        try:
            # no secret: what the tool prints is scrubbed here (worker_stderr), and the edge
            # of what it cuts too (_run)
            await worker.send({"sys_path": sys.path, "function": self.spec.function,
                               "search": list(self.spec.search), "limit": self.spec.limit,
                               "max_memory": self.spec.max_memory})
            ready = await worker.receive()
        except BaseException:
            await worker.kill()
            raise
        if not ready.get("ready"):
            await worker.kill()
            raise ToolFailure(f"could not start its worker process: {ready.get('fatal')}")
        return worker

    async def _run(self, worker: _Worker, arguments: Mapping[str, Any],
                   ctx: CallContext) -> ToolResult:
        await worker.send({"call": dict(arguments), "id": ctx.call_id, "tool": ctx.tool})
        while True:
            message = await worker.receive()
            if "progress" in message:
                done, total, note = ([*list(message["progress"]), None, None, None])[:3]
                await ctx.progress(float(done or 0), total, note)
            elif "result" in message:
                await worker.answered()
                # the worker knows no secret: a cut it made may end inside one
                return mask_cut_edges(ToolResult.from_mcp(message["result"]))
            elif "error" in message:
                await worker.answered()
                error = message["error"]
                kind = type(str(error.get("type", "Exception")), (_RemoteError,), {})
                text = str(error.get("message", ""))
                raise kind(active().mask_edges(text, tail=True) if error.get("cut") else text)
            else:
                raise ToolFailure("got a malformed answer from its worker process")

    async def aclose(self) -> None:
        """Kill every worker (host shutdown)."""
        workers, self._idle = [*self._idle, *self._busy], []
        self._busy.clear()
        for worker in workers:
            await worker.kill()
