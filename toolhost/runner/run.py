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
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio

from toolhost.host import Host
from toolhost.permissions.decision import Asker
from toolhost.runner.command import RunOptions, build_command
from toolhost.runner.discovery import find_cli
from toolhost.runner.gate import RunnerGate, make_gate
from toolhost.runner.offline import OFFLINE_DROP, OfflineHome
from toolhost.runner.process import CliSession, open_cli
from toolhost.runner.render import Renderer, TextRenderer
from toolhost.scripted import Scenario, ScriptedModel

__all__ = ["RunReport", "run_host"]

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
                   handle_sigint: bool = False) -> RunReport:
    """Start the CLI, send each prompt as a user turn, and return how it went.

    ``handle_sigint``: the first Ctrl-C during a turn sends the CLI ``interrupt``; a second
    one (or one while waiting for input) ends the session with ``interrupted`` set.
    """
    renderer = renderer or TextRenderer()
    options = options or RunOptions.from_config(host.config.run)
    path = find_cli(cli, environ=environ)
    gate = RunnerGate(make_gate(host, yes=yes, asker=asker), renderer)
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
        async with open_cli(command, host.servers, permission=gate,
                            on_message=renderer.message, manifests=options.manifests) as session:
            await _converse(session, prompts, report, renderer, handle_sigint)
        report.stderr = session.stderr
        if model is not None:
            report.problems = model.problems()
    renderer.close()
    return report


async def _converse(session: CliSession, prompts: Iterable[str] | AsyncIterable[str],
                    report: RunReport, renderer: Renderer, handle_sigint: bool) -> None:
    state = {"turn": False, "interrupting": False}
    async with anyio.create_task_group() as tg:
        if handle_sigint:
            tg.start_soon(_watch_sigint, session, state, report, renderer, tg.cancel_scope)
        async for prompt in _aiter(prompts):
            state["turn"], state["interrupting"] = True, False
            result = await session.send_prompt(prompt)
            state["turn"] = False
            report.results.append(result)
        tg.cancel_scope.cancel()


async def _watch_sigint(session: CliSession, state: dict[str, bool], report: RunReport,
                        renderer: Renderer, scope: anyio.CancelScope) -> None:
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
