"""One Claude CLI process with a control session on its stdin/stdout.

``open_cli`` starts the CLI, serves its control requests, sends ``initialize`` and yields a
``CliSession`` to send user turns on. On the way out, whatever happened, the CLI's stdin is
closed, the CLI is given a moment to exit, then terminated, then killed; calls in flight are
cancelled. The CLI's stderr is kept (its tail) to show when something fails.

The CLI runs in a process group of its own (a Ctrl-C at the terminal reaches toolhost only,
which decides what it means) and is stopped as a group. On Linux it is also started with a
parent-death signal (``toolhost.runner.deathsig``): if toolhost is killed outright (SIGKILL,
the OOM killer), the kernel ends the CLI at once instead of leaving it waiting for a model.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager, suppress
from typing import Any

import anyio
import anyio.abc

from toolhost.backends import watchdog
from toolhost.backends.reaper import ToolRun
from toolhost.errors import ProtocolError, RunnerError, single_error
from toolhost.excerpt import cut
from toolhost.mcp import McpServer
from toolhost.permissions.decision import Decision
from toolhost.protocol import DEFAULT_MAX_LINE_BYTES, ControlSession
from toolhost.protocol.pipes import PipeLines
from toolhost.redaction import active
from toolhost.runner.command import CliCommand
from toolhost.runner.deathsig import with_parent_death_signal
from toolhost.runner.diagnose import explain
from toolhost.visible import visible

__all__ = ["CliSession", "open_cli"]

log = logging.getLogger("toolhost.runner")

STDERR_KEEP = 64 * 1024
INITIALIZE_TIMEOUT = 60.0
EXIT_GRACE = 10.0  # seconds the CLI gets to exit after its stdin closes
TERMINATE_GRACE = 3.0
# seconds a CLI whose output ended gets to exit before what it left open is cancelled (so a
# question's audit line can say how it ended); one still running then "closed its output"
OUTPUT_END_GRACE = 1.0
HURRY_GRACE = 2.0  # after a signal (the person wants out): seconds for each step above


def hurry_grace(environ: Mapping[str, str] | None = None) -> float:
    """``HURRY_GRACE``, or ``$TOOLHOST_SIGNAL_GRACE`` when it is a number from 0.5 to 60."""
    from toolhost.env_seconds import env_seconds

    return env_seconds("TOOLHOST_SIGNAL_GRACE", HURRY_GRACE, 0.5, 60, environ=environ)

MessageFn = Callable[[Mapping[str, Any]], None]
PermissionFn = Callable[[str, dict[str, Any], dict[str, Any]], Awaitable[Decision]]


class _Tail:
    """The last ``STDERR_KEEP`` bytes of a stream."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.cut = False  # its start was dropped: the kept text may start inside a secret
        self.done = anyio.Event()  # the stream ended: everything the CLI wrote is here

    async def drain(self, stream: anyio.abc.ByteReceiveStream) -> None:
        try:
            async for chunk in stream:
                self.data += chunk
                if len(self.data) > STDERR_KEEP:
                    del self.data[: len(self.data) - STDERR_KEEP]
                    self.cut = True
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        finally:
            self.done.set()

    def text(self) -> str:
        """What was kept, every secret this process knows hidden: whole ones, and when the
        start was dropped, a start that is the end of one (``Redactor.cut_edges``)."""
        return active().cut_edges(self.data.decode("utf-8", "replace"), head=self.cut)


class _CliLines(PipeLines):
    """The CLI's stdout, read to its end: ``ended`` once the last line was taken."""

    ended = False
    process: anyio.abc.Process | None = None
    on_end: Callable[[], None] | None = None  # told once ``ended`` is set

    async def receive_line(self) -> bytes:
        try:
            return await super().receive_line()
        except anyio.EndOfStream:
            if self.process is not None:  # how it ended is known to what its end cancels
                await _wait_exit(self.process, OUTPUT_END_GRACE)  # (a question's audit line)
            self.ended = True  # before the session cancels what was in flight
            if self.on_end is not None:
                self.on_end()
            raise


class CliSession:
    """A running CLI: send user turns, interrupt, read what it said."""

    def __init__(self, process: anyio.abc.Process, control: ControlSession, stderr: _Tail,
                 results: anyio.abc.ObjectReceiveStream[Mapping[str, Any]],
                 redact: Callable[[str], str] = str) -> None:
        self.process = process
        self.redact = redact  # applied to the errors raised (they quote the CLI's stderr)
        self.control = control
        self._stderr = stderr
        self._results = results
        self.initialize_response: dict[str, Any] = {}
        self.hurry = False  # set by ``abort``: stop fast, calls in flight first
        self.refused: str | None = None  # set by ``refuse``: why the CLI was stopped
        # turns sent whose ``result`` has not come: a result beyond them (a CLI that sent
        # one twice) is no answer to the next turn, which it would end before it began
        self.turns_open = 0
        self._lines: _CliLines | None = None  # its stdout (``output_ended``)
        self._served = anyio.Event()  # the control session is over: nothing more will come
        # told, before the requests still open are cancelled, how the CLI went (``how_gone``)
        self.on_gone: Callable[[str], None] | None = None

    @property
    def output_ended(self) -> bool:
        """The CLI's output has ended (it exited, was killed, or closed it): a request of
        its cancelled from now on was not withdrawn, the CLI is gone."""
        return self._lines is not None and self._lines.ended

    @property
    def how_gone(self) -> str:
        """How the CLI went, once its output ended: ``the Claude CLI exited (exit code 3)``,
        ``... was killed by SIGKILL (...)``, or ``... closed its output`` (still running)."""
        code = self.process.returncode
        if code is None:
            return "the Claude CLI closed its output"
        how, why = _ended(code)
        return f"the Claude CLI {how}{why}"

    def _output_ended(self) -> None:
        if self.on_gone is not None:
            self.on_gone(self.how_gone)

    def abort(self) -> None:
        """End the session fast (toolhost got a signal): when the session is left, the calls
        in flight are cancelled (their process groups killed) before the CLI is stopped, and
        the CLI gets seconds, not the usual grace, to exit."""
        self.hurry = True

    def refuse(self, why: str) -> None:
        """Stop the CLI at once (killed with everything it started), before it can run a
        tool: the turn under way then fails with ``why``."""
        self.refused = why
        self.hurry = True
        _signal_group(self.process, signal.SIGKILL)

    async def wait_gone(self, when: str) -> RunnerError:
        """Wait until the CLI's output has ended and been served to its last line (it exited,
        was killed, or closed it); the error saying how it went ``when``."""
        await self._served.wait()
        await _exited(self)
        return self.gone(when)

    @property
    def stderr(self) -> str:
        """What the CLI wrote on stderr (the last 64 KiB)."""
        return self._stderr.text()

    async def send_prompt(self, prompt: str | list[dict[str, Any]]) -> Mapping[str, Any]:
        """Send one user turn and return the ``result`` message that ends it."""
        self.turns_open += 1  # before sending: its result may come before ``receive``
        try:
            await self.control.send_message({
                "type": "user", "message": {"role": "user", "content": prompt},
                "parent_tool_use_id": None, "session_id": "default"})
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            await _exited(self)
            raise self.gone("before the turn was sent", alive="stopped reading its input"
                            ) from None
        try:
            return await self._results.receive()
        except anyio.EndOfStream:
            await _exited(self)
            raise self.gone("before the turn ended") from None

    async def interrupt(self) -> None:
        """Ask the CLI to stop the current turn (it cancels the tool calls it started)."""
        with anyio.move_on_after(10):
            try:
                await self.control.interrupt()
            except ProtocolError as exc:
                if not self.hurry:  # the session is ending anyway: no answer is expected
                    log.warning("interrupt: %s", exc)

    def gone(self, when: str, *, lead: str = "the Claude CLI",
             alive: str = "closed its output") -> RunnerError:
        """The CLI left ``when`` (``before the turn ended``), said as it went: ``exited
        ... (exit code N)``, ``was killed by SIGKILL ...`` (not "exited": a signal ended
        it), or ``alive`` when it has not ended (yet)."""
        code = self.process.returncode
        if code is None:
            return self.failure(f"{lead} {alive} {when}", ended=False)
        how, why = _ended(code)
        return self.failure(f"{lead} {how} {when}{why}", ended=False)

    def failure(self, what: str, *, ended: bool = True) -> RunnerError:
        """``what`` failed (with how the CLI ended, unless ``ended`` is False: ``what`` said
        it), the tail of the CLI's stderr and a hint when it names a known problem."""
        if self.refused is not None:
            return RunnerError(self.redact(self.refused))
        text = what + (_ended_how(self.process.returncode) if ended else "")
        tail = self.stderr.strip()  # secrets hidden before it is cut to its last lines
        if tail:
            # shown on a terminal: what the CLI wrote cannot act on it (``visible``)
            text += "\n--- the CLI's stderr ---\n" + visible(
                "\n".join(tail.split("\n")[-40:]), lines=True)
            hint = explain(None, tail)
            if hint:
                text += "\n" + hint
        return RunnerError(self.redact(text))


def _ended_how(code: int | None) -> str:
    """`` (exit code N)``, or for a CLI a signal ended `` (killed by SIGKILL: ...)``."""
    if code is None:
        return ""
    if code >= 0:
        return f" (exit code {code})"
    how, why = _ended(code)  # ("was killed by SIGKILL", " (out of memory, ...)")
    return f" ({how.removeprefix('was ')}{': ' + why[2:-1] if why else ''})"


def _ended(code: int) -> tuple[str, str]:
    """How a process that ended with ``code`` went, as a verb and a note:
    ``("exited", " (exit code 3)")``, ``("was killed by SIGKILL", " (out of memory, ...)")``."""
    if code >= 0:
        return "exited", f" (exit code {code})"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        return f"was killed by signal {-code}", ""
    why = {"SIGKILL": "out of memory, or killed from outside",
           "SIGSEGV": "it crashed", "SIGBUS": "it crashed", "SIGILL": "it crashed",
           "SIGABRT": "it aborted"}.get(name)
    return f"was killed by {name}", f" ({why})" if why else ""


KEPT_RESULTS = 100  # turn results the CLI sent that no turn has taken yet


@asynccontextmanager
async def open_cli(command: CliCommand, servers: Mapping[str, McpServer], *,
                   permission: PermissionFn, on_message: MessageFn,
                   manifests: bool = True,
                   redact: Callable[[str], str] = str,
                   started: Callable[[CliSession], None] | None = None,
                   hold_output: Callable[[bool], None] | None = None,
                   ) -> AsyncIterator[CliSession]:
    """Start the CLI, serve it, ``initialize``; yield the session; stop everything after.

    ``redact`` hides secrets in the errors raised (they quote the CLI's stderr).
    ``started`` hears of the session as soon as the CLI runs, before ``initialize`` is
    answered: a signal during start-up can ``abort`` it (the short grace) from then on.
    ``hold_output`` is ``PipeLines.hold_output`` (a read's decision lines flushed once)."""
    # The CLI's stdout is a pipe of our own, read by ``PipeLines`` (the control session's
    # fast input: a permission request decided at once is answered as it arrives).
    read_fd, write_fd = os.pipe()
    # The CLI and all it starts (its Bash commands run in process groups of their own) carry
    # a run id: if toolhost is killed outright, the watchdog kills them (see ``watchdog``).
    run = ToolRun()
    run.starting()
    try:
        process = await anyio.open_process(with_parent_death_signal(command.argv),
                                           env=run.env(dict(command.env)),
                                           cwd=command.cwd, stdin=subprocess.PIPE,
                                           stdout=write_fd, stderr=subprocess.PIPE,
                                           start_new_session=True)
    except BaseException as exc:  # (a cancel too: a start left pending held every sweep 2 s)
        os.close(read_fd)
        run.not_started()
        if isinstance(exc, OSError):
            raise RunnerError(f"cannot start the Claude CLI {command.argv[0]}: {exc}") \
                from exc
        raise
    finally:
        os.close(write_fd)
    run.watched_by_owner()
    watchdog.opened(process.pid, run.run_id)
    assert process.stdin and process.stderr
    lines = await _CliLines.open(read_fd, DEFAULT_MAX_LINE_BYTES)
    lines.hold_output = hold_output
    if isinstance(lines, _CliLines):
        lines.process = process
    stderr = _Tail()
    send_results, receive_results = anyio.create_memory_object_stream[Mapping[str, Any]](
        KEPT_RESULTS)
    dropped = again = 0
    holder: list[CliSession] = []  # the session, once made (``deliver`` runs after that)
    seen: OrderedDict[str, None] = OrderedDict()  # the uuids of the last results that came
    failed: set[tuple[str, str]] = set()  # (message type, error type) a renderer failed on

    async def deliver(message: dict[str, Any]) -> None:
        # Runs on the read loop: it must never wait, or control requests behind this message
        # would never be answered. A result is kept for the turn it ends; one with no turn
        # open (a CLI that sent a turn's result twice) is not shown and not kept, or it would
        # end the next turn at once with an old answer, and every turn after it one late.
        # A result sent again once the next turn is open is told by its uuid (the CLI gives
        # each message its own): dropped the same way.
        nonlocal dropped, again
        if message.get("type") == "result" and _seen_before(seen, message.get("uuid")):
            again += 1
            if again == 1 or again % 1000 == 0:
                log.warning("the Claude CLI sent %d turn results again (a uuid it had sent); "
                            "they are ignored (each turn waits for its own)", again)
            return
        if message.get("type") == "result" and holder and holder[0].turns_open <= 0:
            dropped += 1
            if dropped == 1 or dropped % 1000 == 0:
                log.warning("the Claude CLI sent %d turn results more than turns were sent; "
                            "they are ignored (the next turn waits for its own)", dropped)
            return
        try:
            on_message(message)
        except (OSError, ValueError) as exc:  # stdout piped into `head`, or closed: keep
            log.debug("showing a %r message failed: %r", message.get("type"), exc)  # serving
        except Exception as exc:  # a renderer's bug: said once per kind, the turn goes on
            kind = (cut(str(message.get("type")), 40), type(exc).__name__)
            if kind not in failed and len(failed) < 64:
                failed.add(kind)
                log.warning("could not show a %r message of the Claude CLI (%s: %s); the "
                            "turn goes on (this kind is said once)", kind[0], kind[1],
                            cut(visible(str(exc)), 200))
        if message.get("type") != "result":
            return
        if holder:
            holder[0].turns_open -= 1
        try:
            send_results.send_nowait(message)
        except anyio.WouldBlock:
            with suppress(anyio.WouldBlock):
                receive_results.receive_nowait()
            dropped += 1
            if dropped == 1 or dropped % 1000 == 0:
                log.warning("the Claude CLI sent %d turn results more than turns were sent; "
                            "the oldest unclaimed ones are dropped", dropped)
            send_results.send_nowait(message)

    control = ControlSession(lines, process.stdin, servers=servers,
                             permission=permission, on_message=deliver)

    async def serve() -> None:
        try:
            async with send_results:
                await control.run()
        finally:
            if holder:
                holder[0]._served.set()

    cli = CliSession(process, control, stderr, receive_results, redact)
    cli._lines = lines if isinstance(lines, _CliLines) else None
    if cli._lines is not None:
        cli._lines.on_end = cli._output_ended
    holder.append(cli)
    if started is not None:
        started(cli)
    fields: dict[str, Any] = {}
    if manifests:
        fields["sdkMcpServers"] = list(servers)
        fields["sdkMcpServerManifests"] = {n: s.manifest() for n, s in servers.items()}
    try:
        async with anyio.create_task_group() as tg, receive_results:
            tg.start_soon(stderr.drain, process.stderr)
            tg.start_soon(serve)
            try:
                await _initialize(cli, fields)
                yield cli
            finally:
                with anyio.CancelScope(shield=True):
                    if cli.hurry:  # calls in flight first: their tools must not outlive us
                        await control.aclose()
                    await _stop(process, hurry_grace() if cli.hurry else EXIT_GRACE)
                    await control.aclose()
    except Exception as exc:
        single = single_error(exc)  # task groups wrap what they raise; callers want the error
        if single is not exc:
            raise single from None
        raise
    finally:
        with anyio.CancelScope(shield=True):
            await _stop(process)
            watchdog.closed(process.pid, run.run_id)
            await process.aclose()
            lines.aclose()


KEPT_UUIDS = 1024  # uuids of the last results, to know one sent again
MAX_UUID = 128  # a longer "uuid" is not kept (no CLI sends one): memory stays bounded


def _seen_before(seen: OrderedDict[str, None], uuid: object) -> bool:
    """Whether a result with ``uuid`` came already; noted if not (a result without a short
    string uuid is never a repeat: the turn count alone decides for it)."""
    if type(uuid) is not str or not 0 < len(uuid) <= MAX_UUID:
        return False
    if uuid in seen:
        return True
    seen[uuid] = None
    if len(seen) > KEPT_UUIDS:
        seen.popitem(last=False)
    return False


async def _initialize(cli: CliSession, fields: dict[str, Any]) -> None:
    try:
        with anyio.fail_after(INITIALIZE_TIMEOUT):
            cli.initialize_response = await cli.control.initialize(**fields)
    except TimeoutError:
        raise cli.failure(f"the Claude CLI did not answer 'initialize' within "
                          f"{INITIALIZE_TIMEOUT:g} s") from None
    except ProtocolError as exc:
        await _exited(cli)
        raise cli.failure(f"the Claude CLI failed to start: {exc}") from None
    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
        await _exited(cli)
        # (the same event as a ProtocolError above, seen first when its stdin closed first)
        raise cli.gone("before answering 'initialize'",
                       lead="the Claude CLI failed to start: it") from None


async def _exited(cli: CliSession) -> None:
    """Give a failing CLI a moment to exit and its stderr to be read to the end."""
    await _wait_exit(cli.process, 2.0)
    with anyio.move_on_after(1.0):
        await cli._stderr.done.wait()


async def _wait_exit(process: anyio.abc.Process, seconds: float) -> bool:
    with anyio.move_on_after(seconds):
        await process.wait()
        return True
    return False


def _signal_group(process: anyio.abc.Process, signum: int) -> bool:
    # The CLI leads its own group (start_new_session): whatever it started goes with it.
    try:
        os.killpg(process.pid, signum)
    except (ProcessLookupError, PermissionError):
        return False
    return True


async def _stop(process: anyio.abc.Process, grace: float = EXIT_GRACE) -> None:
    """Close stdin, wait a little, terminate, wait, kill: the CLI never outlives the run."""
    if process.returncode is not None:
        _signal_group(process, signal.SIGKILL)  # anything it left behind in its group
        return
    assert process.stdin is not None
    with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        await process.stdin.aclose()
    if await _wait_exit(process, grace):
        _signal_group(process, signal.SIGKILL)
        return
    log.info("the Claude CLI did not exit after its input closed; terminating it")
    _signal_group(process, signal.SIGTERM)
    if await _wait_exit(process, min(grace, TERMINATE_GRACE)):
        _signal_group(process, signal.SIGKILL)
        return
    if not _signal_group(process, signal.SIGKILL):
        # Only when the group could not be signalled: Popen.kill() polls the child first,
        # and reaping it there steals its status from asyncio's child watcher (which then
        # reports 255 instead of the signal).
        process.kill()
    await process.wait()
