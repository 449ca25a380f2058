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
import signal
import sys
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
import anyio.lowlevel

from toolhost.errors import RunnerError
from toolhost.host import Host
from toolhost.permissions.decision import Asker
from toolhost.runner.command import RunOptions, build_command
from toolhost.runner.discovery import find_cli
from toolhost.runner.gate import RunnerGate, make_gate
from toolhost.runner.live import LiveHost
from toolhost.runner.offline import OFFLINE_DROP, OfflineHome
from toolhost.runner.process import CliSession, open_cli
from toolhost.runner.redact import RedactingRenderer
from toolhost.runner.render import Renderer, TextRenderer
from toolhost.scripted import Scenario, ScriptedModel

if TYPE_CHECKING:
    from toolhost.reload import Reloader

__all__ = ["Reload", "RunReport", "run_host"]

Reload = Callable[[str], Host]  # config path -> a freshly loaded host (``load_host``)

log = logging.getLogger("toolhost.runner")


@dataclass
class RunReport:
    """What a session ended with."""

    results: list[Mapping[str, Any]] = field(default_factory=list)  # one `result` per turn
    problems: list[str] = field(default_factory=list)  # failed scenario checks
    stderr: str = ""
    interrupted: bool = False  # the user pressed Ctrl-C twice

    @property
    def ok(self) -> bool:
        """Every turn ended in success and every scenario check passed."""
        return (bool(self.results) and not self.problems and not self.interrupted
                and all(r.get("subtype") == "success" and not r.get("is_error")
                        for r in self.results))


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
                   watch_interval: float = 0.5) -> RunReport:
    """Start the CLI, send each prompt as a user turn, and return how it went.

    ``handle_sigint``: the first Ctrl-C during a turn sends the CLI ``interrupt``; a second
    one (or one while waiting for input) ends the session with ``interrupted`` set.

    ``watch``: how to rebuild the host when its config files change (e.g.
    ``lambda path: load_host(path)``); the session then follows each good edit (new tools
    reach the model, new rules the gate), see ``toolhost.runner.live``. Hosts built by
    reloads are closed before this returns; ``host`` itself stays the caller's to close.

    Everything shown (renderer, ``report.stderr``, ``report.problems``, errors) has the
    config's secrets replaced with ``***``.
    """
    options = options or RunOptions.from_config(host.config.run)
    path = find_cli(cli, environ=environ)
    gate = make_gate(host, yes=yes, asker=asker)
    live: list[LiveHost] = []  # set once the session is open

    def redact(text: str) -> str:
        return live[0].redact(text) if live else host.config.redact(text)

    renderer = RedactingRenderer(renderer or TextRenderer(), redact)
    report = RunReport()
    with contextlib.ExitStack() as stack:
        stack.callback(gate.close)
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
        renderer.status(f"starting the Claude CLI ({path})")
        try:
            async with open_cli(command, host.servers, permission=RunnerGate(gate, renderer),
                                on_message=renderer.message, manifests=options.manifests,
                                redact=redact) as session:
                live.append(LiveHost(host, session.control, gate))
                reloader = None
                if watch is not None:
                    reloader = _reloader(host, watch, live[0], watch_interval, redact)
                await _converse(session, prompts, report, handle_sigint, reloader)
        finally:
            if live:
                with anyio.CancelScope(shield=True):
                    await live[0].aclose()
        report.stderr = redact(session.stderr)
        if model is not None:
            report.problems = [redact(p) for p in model.problems()]
    renderer.close()
    return report


def _reloader(host: Host, load: Reload, live: LiveHost, interval: float,
              redact: Callable[[str], str]) -> Reloader[Host]:
    from toolhost.reload import Reloader

    path = host.config.files[0] if host.config.files else None
    if path is None:
        raise RunnerError("--watch: the host was not loaded from a file")

    async def build(config_path: str) -> Host:
        # In a worker thread: compiling may import plugins and python tools, and the
        # session keeps answering the CLI meanwhile. A build finished as the session ends
        # is closed, not leaked.
        with anyio.CancelScope(shield=True):
            new = await anyio.to_thread.run_sync(load, config_path)
        try:
            await anyio.lowlevel.checkpoint()
        except BaseException:
            with anyio.CancelScope(shield=True):
                await new.aclose()
            raise
        return new

    def report(exc: BaseException) -> None:
        print(redact(f"toolhost: reload failed; the session keeps the last good config:\n"
                     f"{exc}"), file=sys.stderr, flush=True)

    return Reloader(path, load=build, on_swap=live.swap, initial=host, interval=interval,
                    on_error=report)


async def _converse(session: CliSession, prompts: Iterable[str] | AsyncIterable[str],
                    report: RunReport, handle_sigint: bool,
                    reloader: Reloader[Host] | None) -> None:
    state = {"turn": False, "interrupting": False}
    async with anyio.create_task_group() as tg:
        if handle_sigint:
            tg.start_soon(_watch_sigint, session, state, report, tg.cancel_scope)
        if reloader is not None:
            tg.start_soon(reloader.run)
        async for prompt in _aiter(prompts):
            state["turn"], state["interrupting"] = True, False
            result = await session.send_prompt(prompt)
            state["turn"] = False
            report.results.append(result)
        tg.cancel_scope.cancel()


async def _watch_sigint(session: CliSession, state: dict[str, bool], report: RunReport,
                        scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGINT) as signals:
        async for _ in signals:
            if state["turn"] and not state["interrupting"]:
                state["interrupting"] = True
                print("\ntoolhost: interrupting the turn (Ctrl-C again to quit)",
                      file=sys.stderr, flush=True)
                await session.interrupt()
                continue
            report.interrupted = True
            scope.cancel()
            return
