"""``run_host``: a whole session of the Claude CLI against a ``Host``, from the Python API.

    report = await run_host(host, ["What is 6 times 7?"], scenario=load_scenario("s.yaml"))
    assert report.ok, report.problems

With a scenario, the CLI talks to the built-in scripted model on 127.0.0.1 (no API key, no
network, a throw-away HOME); without one it inherits toolhost's environment, so
``ANTHROPIC_API_KEY`` and ``ANTHROPIC_BASE_URL`` work as users expect.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
import anyio.lowlevel

from toolhost.errors import RunnerError, single_error
from toolhost.host import Host
from toolhost.permissions.ask import TerminalAsker
from toolhost.permissions.decision import Asker
from toolhost.runner.command import RunOptions, build_command
from toolhost.runner.discovery import find_cli
from toolhost.runner.gate import RunnerGate, make_gate
from toolhost.runner.held_logs import HeldLogs
from toolhost.runner.held_output import NOTES
from toolhost.runner.live import LiveHost, guard_servers
from toolhost.runner.managed_hooks import warnings as managed_warnings
from toolhost.runner.offline import OFFLINE_DROP, OfflineHome
from toolhost.runner.output_failures import OutputWatch
from toolhost.runner.process import CliSession, open_cli
from toolhost.runner.redact import RedactingRenderer
from toolhost.runner.render import Renderer, TextRenderer
from toolhost.runner.signals import Signals
from toolhost.runner.terminal import Terminal
from toolhost.scripted import Scenario, ScriptedModel

if TYPE_CHECKING:
    from toolhost.reload import Reloader

__all__ = ["Reload", "RunReport", "Signals", "run_host"]

Reload = Callable[[str], Host]  # config path -> a freshly loaded host (``load_host``)

log = logging.getLogger("toolhost.runner")
RELOAD_POLL = 0.05  # seconds between looks at a reload building in its thread


KEPT_RESULTS = 16  # turn results a report keeps whole (the last ones): memory stays bounded


@dataclass
class RunReport:
    """What a session ended with.

    A long interactive session has no bound on its turns: the report keeps the last
    ``KEPT_RESULTS`` ``result`` messages whole, and counts every turn (``turns``,
    ``failed_turns``, ...), which is all its verdict (``ok``, the exit status) needs."""

    results: list[Mapping[str, Any]] = field(default_factory=list)  # the last turns' results
    problems: list[str] = field(default_factory=list)  # failed scenario checks
    stderr: str = ""
    interrupted: bool = False  # ended by a signal: Ctrl-C twice, SIGTERM or SIGHUP
    signal: int | None = None  # which one (SIGINT, SIGTERM, SIGHUP)
    turn_interrupted: bool = False  # a Ctrl-C interrupted a turn (or denied a question)
    # the indexes in ``results`` of the turns a Ctrl-C interrupted
    interrupted_turns: set[int] = field(default_factory=set)
    turns: int = 0  # turns that ended, all of them (``results`` keeps the last ones)
    failed_turns: int = 0  # of those, turns that did not end in success
    failed_interrupted: int = 0  # of those, turns a Ctrl-C interrupted
    error_subtypes: int = 0  # turns whose ``subtype`` is not "success" (the CLI failed)
    # the transcript could not all be written (a full disk; not a reader that left): why
    output_error: str | None = None

    def add(self, result: Mapping[str, Any], *, interrupted: bool = False) -> None:
        """Count the ``result`` a turn ended with, and keep it (the oldest kept goes)."""
        self.turns += 1
        if not _succeeded(result):
            self.failed_turns += 1
            self.failed_interrupted += interrupted
        self.error_subtypes += result.get("subtype") != "success"
        if len(self.results) >= KEPT_RESULTS:
            del self.results[0]
            self.interrupted_turns = {i - 1 for i in self.interrupted_turns if i > 0}
        if interrupted:
            self.interrupted_turns.add(len(self.results))
        self.results.append(result)

    @property
    def ok(self) -> bool:
        """Every turn ended in success and every scenario check passed."""
        return (self.turns > 0 and not self.problems and not self.interrupted
                and self.failed_turns == 0)


def _succeeded(result: Mapping[str, Any]) -> bool:
    return result.get("subtype") == "success" and not result.get("is_error")


async def _aiter(prompts: Iterable[str] | AsyncIterable[str]) -> AsyncIterator[str]:
    if isinstance(prompts, AsyncIterable):
        async for prompt in prompts:
            yield prompt
    else:
        for prompt in prompts:
            yield prompt


async def run_host(host: Host, prompts: Iterable[str] | AsyncIterable[str], *,
                   cli: str | None = None, options: RunOptions | None = None,
                   scenario: Scenario | None = None, renderer: Renderer | None = None,
                   yes: bool = False, asker: Asker | None = None,
                   environ: Mapping[str, str] | None = None,
                   handle_sigint: bool = False, watch: Reload | None = None,
                   watch_interval: float = 0.5, terminal: Terminal | None = None,
                   watch_since: int | None = None,
                   interrupt_grace: float | None = None) -> RunReport:
    """Start the CLI, send each prompt as a user turn, and return how it went.

    ``handle_sigint``: toolhost owns SIGINT, SIGTERM and SIGHUP for the session. The first
    Ctrl-C during a turn sends the CLI ``interrupt``; Ctrl-C at a permission question denies
    that call and interrupts the turn. A second Ctrl-C (or one while waiting for input),
    SIGTERM and SIGHUP all end the session the same way: calls in flight cancelled (their
    process groups killed), the CLI stopped, the audit log closed, ``interrupted`` and
    ``signal`` set (the caller exits with 128 + signal).

    ``interrupt_grace``: seconds a turn that a Ctrl-C interrupted may take to end; past
    them the session ends as by a second Ctrl-C (a CLI that ignores ``interrupt`` must not
    keep a ``-p`` run waiting). None (default): wait for the turn, or a second Ctrl-C.

    ``terminal``: where a person types (``Terminal.open()``): permission questions are read
    through it, one owner at a time with the turn prompt.

    ``watch``: how to rebuild the host when its config files change (e.g.
    ``lambda path: load_host(path)``); the session then follows each good edit (new tools
    reach the model, new rules the gate), see ``toolhost.runner.live``; ``watch_since``:
    ``time.time_ns()`` taken before ``host`` was loaded (default: when this is called), so an
    edit saved while it loaded or while the CLI started is reloaded too. Hosts built by
    reloads are closed before this returns; ``host`` itself stays the caller's to close.

    Everything shown (renderer, ``report.stderr``, ``report.problems``, errors) has the
    config's secrets replaced with ``***``.
    """
    options = options or RunOptions.from_config(host.config.run)
    since = time.time_ns() if watch_since is None else watch_since
    path = find_cli(cli, environ=environ)
    gate = make_gate(host, yes=yes, asker=asker)
    if terminal is not None and isinstance(gate.asker, TerminalAsker):
        gate.asker.reader = terminal
    live: list[LiveHost] = []  # set once the session is open

    def redact(text: str) -> str:
        return live[0].redact(text) if live else host.config.redact(text)

    def plain() -> bool:  # whether ``redact`` hides nothing now: no config it reads has a secret
        return live[0].hides_nothing() if live else not host.config.secrets

    shown = renderer or TextRenderer()
    held_logs: HeldLogs | None = None
    if terminal is not None and isinstance(shown, TextRenderer):
        # log lines wait while a question is open, as transcript lines do (held_logs)
        asked = terminal
        held = held_logs = HeldLogs(lambda: asked.question)

        def holding() -> bool:  # see TextRenderer.hold_while; once the question is over,
            if asked.question:  # the log lines it held go out first
                return True
            held.release()
            return False
        shown.hold_while = holding
    output = OutputWatch(shown)  # a transcript that could not be written is said at the end
    renderer = RedactingRenderer(
        output, redact, lambda: live[0].redactor() if live else host.config.redactor,
        plain=plain)
    report = RunReport()
    with contextlib.ExitStack() as stack:
        stack.callback(gate.close)
        # last: what the renderer still holds (a streamed block's held end, lines held while a
        # question was open) is shown however the session ends, a failed one too
        stack.callback(_close_quietly, renderer)
        if held_logs is not None:
            stack.callback(held_logs.install().remove)
        extra_env: dict[str, str] = {}
        drop: tuple[str, ...] = ()
        model = None
        if scenario is not None:
            model = stack.enter_context(ScriptedModel(scenario))
            home = stack.enter_context(OfflineHome())
            extra_env = home.env(model.base_url, environ)
            drop = OFFLINE_DROP
        command = build_command(path, host.tools, external=host.external,
                                disallowed_tools=host.disallowed_tools(), options=options,
                                environ=environ, extra_env=extra_env, drop_env=drop)
        for line in managed_warnings():  # hooks the CLI's own disableAllHooks cannot stop
            with contextlib.suppress(OSError):  # a stderr gone never stops the session
                print(line, file=sys.stderr, flush=True)
        renderer.status(f"starting the Claude CLI ({path})")
        signals = Signals(report, terminal, gate, interrupt_grace=interrupt_grace)
        if terminal is not None:  # a question the CLI's end cancels is not "withdrawn"
            terminal.cli_gone = lambda: signals.session is not None and \
                signals.session.output_ended
            # the terminal closed: the session stops as at SIGHUP (which the kernel may send
            # a moment later, or never under nohup), every open call answered as then
            terminal.on_hangup = signals.hung_up
        if isinstance(shown, TextRenderer):
            shown.interrupted = lambda: signals.interrupting
        opened: list[CliSession] = []
        try:
            async with anyio.create_task_group() as watching:
                if handle_sigint:
                    await watching.start(signals.run)
                try:
                    with signals.scope:
                        on_message = _giving_up(renderer.message, signals, watching)
                        permission = RunnerGate(gate, renderer, tag=shown.tag if isinstance(
                            shown, TextRenderer) else None)
                        # locked before the CLI starts: it may call before ``initialize``
                        guard_servers(host.servers, gate, guard=permission.guard,
                                      claim_read=permission.claim_read)
                        async with open_cli(command, host.servers,
                                            permission=permission,
                                            on_message=on_message,
                                            manifests=options.manifests,
                                            redact=redact,
                                            started=signals.attach,
                                            hold_output=_flushes(shown, output)) as session:
                            opened.append(session)
                            live.append(LiveHost(host, session.control, gate,
                                                 guard=permission.guard,
                                                 claim_read=permission.claim_read))
                            tasks: list[Callable[[], Any]] = [live[0].follow_upstreams]
                            if watch is not None:
                                tasks.append(_noting(_reloader(
                                    host, watch, live[0], watch_interval, since, redact).run))
                            await _converse(session, prompts, signals, tasks)
                finally:
                    # signals that come while shutting down are taken (and ignored) until here
                    watching.cancel_scope.cancel()
                    if live:
                        with anyio.CancelScope(shield=True):
                            await live[0].aclose()
        except Exception as exc:  # a task group wraps even a lone RunnerError: unwrap it
            single = single_error(exc)
            if single is not exc:
                raise single from None
            raise
        if opened:
            report.stderr = redact(opened[0].stderr)
        if model is not None:
            report.problems = [redact(p) for p in model.problems()]
    report.output_error = output.said()  # the renderer's close (its last lines) counted too
    return report


def _close_quietly(renderer: Renderer) -> None:
    with contextlib.suppress(OSError):  # the terminal may be gone (SIGHUP)
        renderer.close()


def _giving_up(show: Callable[[Mapping[str, Any]], None], signals: Signals,
               tg: anyio.abc.TaskGroup) -> Callable[[Mapping[str, Any]], None]:
    """``show``, and an interrupted turn when the API cannot be reached (``gives_up``)."""
    from toolhost.runner.diagnose import (
        gives_up,
        mode_note,
        permission_mode_problem,
        version_note,
    )

    stopping = False  # this turn's interrupt is on its way (not the person's: no 130)
    checked_version = False

    def on_message(message: Mapping[str, Any]) -> None:
        nonlocal stopping, checked_version
        show(message)
        # every init (the CLI repeats it each turn) and every status naming a mode: a mode
        # that asks nobody stops the CLI at once (fail closed: no tool may run this way)
        if message.get("subtype") in ("init", "status") and "permissionMode" in message:
            refused = permission_mode_problem(message)
            if refused is not None and signals.session is not None:
                signals.session.refuse(refused)
                return
        if not checked_version and message.get("subtype") == "init":
            checked_version = True
            for note in (version_note(message), mode_note(message)):
                if note is not None:
                    with contextlib.suppress(OSError):
                        print(note, file=sys.stderr, flush=True)
        if message.get("type") == "result":
            stopping = False
        line = gives_up(message)
        if line is not None and signals.session is not None and not stopping \
                and not signals.interrupting:
            stopping = True
            with contextlib.suppress(OSError):
                print(line, file=sys.stderr, flush=True)
            tg.start_soon(signals.session.interrupt)

    return on_message


def _noting(task: Callable[[], Any]) -> Callable[[], Any]:
    """``task`` with its writes taken as toolhost's own notes (``held_output.NOTES``): the
    reloader says "reloaded" (or why not) at once, even while a question is open, since the
    question is decided by the rules it reloaded."""
    async def noting() -> None:
        NOTES.set(True)  # this task's context only
        await task()
    return noting


def _reloader(host: Host, load: Reload, live: LiveHost, interval: float, since: int,
              redact: Callable[[str], str]) -> Reloader[Host]:
    from toolhost.reload import Reloader

    path = host.config.files[0] if host.config.files else None
    if path is None:
        raise RunnerError("--watch: the host was not loaded from a file")

    async def build(config_path: str) -> Host:
        # In a thread of its own: compiling may import plugins and python tools (an import
        # may take any time), and the session keeps answering the CLI meanwhile. A signal
        # does not wait for it: the build is abandoned (a daemon thread, never joined at
        # exit; what it builds is dropped). A build finished as the session ends is closed.
        built: list[Host] = []
        failed: list[BaseException] = []
        finished = threading.Event()

        def work() -> None:
            try:
                built.append(load(config_path))
            except BaseException as exc:  # handed to the session (a reload error)
                failed.append(exc)
            finally:
                finished.set()

        threading.Thread(target=work, name="toolhost reload", daemon=True).start()
        try:
            while not finished.is_set():
                await anyio.sleep(RELOAD_POLL)
            await anyio.lowlevel.checkpoint()
        except BaseException:
            if built:
                with anyio.CancelScope(shield=True):
                    await built[0].aclose()
            raise
        if failed:
            raise failed[0]
        return built[0]

    def report(exc: BaseException) -> None:
        with contextlib.suppress(OSError):
            print(redact(f"toolhost: reload failed; the session keeps the last good config:\n"
                         f"{exc}"), file=sys.stderr, flush=True)

    return Reloader(path, load=build, on_swap=live.swap, initial=host, interval=interval,
                    on_error=report, since=since)


async def _converse(session: CliSession, prompts: Iterable[str] | AsyncIterable[str],
                    signals: Signals, tasks: list[Callable[[], Any]]) -> None:
    report = signals.report
    gone: list[RunnerError] = []
    async with anyio.create_task_group() as tg:
        for task in tasks:  # beside the conversation: the reloader, the upstreams
            tg.start_soon(task)
        tg.start_soon(_gone_between_turns, session, signals, tg.cancel_scope, gone)
        async for prompt in _aiter(prompts):
            signals.turn_started()
            result = await session.send_prompt(prompt)
            signals.turn = False
            report.add(result, interrupted=signals.interrupting)
        tg.cancel_scope.cancel()
    if gone:
        raise gone[0]


async def _gone_between_turns(session: CliSession, signals: Signals,
                              conversation: anyio.CancelScope,
                              gone: list[RunnerError]) -> None:
    """A CLI that ends while the next turn is awaited (killed at the ``> `` prompt) ends the
    session at once, said how it went: a turn typed after that would be lost (said only
    once it was sent). During a turn, the turn itself says it."""
    failure = await session.wait_gone("while the next turn was awaited")
    if not signals.turn:
        gone.append(failure)
        conversation.cancel()


def _flushes(shown: Renderer, output: OutputWatch) -> Callable[[bool], None] | None:
    """What holds the transcript's flush while one read's decisions are answered inline
    (``PipeLines.hold_output``): a flush that fails is a lost line, as a decision's is."""
    if not isinstance(shown, TextRenderer):
        return None
    text = shown

    def hold(on: bool) -> None:
        lines = text.held_lines
        try:
            text.hold_flush(on)
        except OSError as exc:  # the screen went away: the answers were sent all the same
            output.note(exc, lines)
    return hold
