"""``toolhost run``: a Claude CLI session with the config's tools hosted in-process."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from types import FrameType
from typing import IO, TYPE_CHECKING, TextIO, cast

from toolhost.commands._argtypes import Once, interval, positive_int

if TYPE_CHECKING:
    from toolhost.host import Host
    from toolhost.runner.inert_fds import InertDescriptors
    from toolhost.runner.render import Renderer
    from toolhost.runner.run import RunReport
    from toolhost.runner.terminal import Terminal
    from toolhost.scripted.scenario import Scenario

# -p: seconds the CLI gets to end a turn Ctrl-C interrupted before the session is stopped
# ($TOOLHOST_INTERRUPT_GRACE: 0.5 to 600; anything else is this default)
INTERRUPT_GRACE = 5.0


def interrupt_grace(environ: dict[str, str] | None = None) -> float:
    """The seconds of ``INTERRUPT_GRACE``, or ``$TOOLHOST_INTERRUPT_GRACE`` when it is a
    number from 0.5 to 600."""
    from toolhost.env_seconds import env_seconds

    return env_seconds("TOOLHOST_INTERRUPT_GRACE", INTERRUPT_GRACE, 0.5, 600, environ=environ)

HELP = "run a Claude CLI session with the config's tools (one prompt with -p, else interactive)"

DESCRIPTION = """\
Start the Claude CLI with every server of CONFIG hosted in-process, answer its tool calls and
permission checks, and show the conversation.

  -p PROMPT        run one prompt and exit: 0 when the turn ended in success, 1 otherwise,
                   130 when Ctrl-C interrupted it
  (no -p)          interactive: type a turn at the `> ` prompt, Enter to send; Ctrl-C
                   interrupts the turn, a second Ctrl-C (or Ctrl-D at the prompt) exits
  questions        a tool call an `ask` rule (or no rule) covers is asked at the terminal:
                   y once, a for this session (the tool; for Bash the exact command), n
                   deny (then a reason for the model). Ctrl-D at a question denies; Ctrl-C
                   denies and interrupts the turn
  signals          SIGTERM, SIGHUP (terminal closed) and a second Ctrl-C all stop the same
                   way: tool calls cancelled (their processes killed), the CLI stopped, the
                   audit log closed; exit status 143, 129, 130
  --script FILE    play the model from a scenario file (a local Messages API on 127.0.0.1):
                   no API key, no network; exits non-zero if a scenario check fails
  --watch          reload CONFIG when it (or a file it includes) changes: new and changed
                   tools reach the model at its next step, new rules the next call;
                   an invalid edit is reported and the last good config stays

Without --script the CLI inherits this environment, so ANTHROPIC_API_KEY and
ANTHROPIC_BASE_URL work as usual. Options given here override the config's `run:` block;
arguments after `--` go to the CLI as they are.

Examples:
  toolhost run examples/configs/demo.yaml --script examples/scenarios/demo.yaml \\
      -p "What is in the demo notes, and what is 6 times 7?"
  toolhost run team.yaml -p "Summarise the last 5 commits" --model claude-sonnet-4-5
  toolhost run team.yaml --output json -p "..." | jq -c 'select(.type == "result")'
  toolhost run team.yaml -- --effort high --continue   # more CLI options (docs/running.md)
  toolhost run team.yaml --watch          # edit team.yaml while the session runs

A scripted model can also run on its own, for any client (prints its URL):
  python -m toolhost.scripted examples/scenarios/demo.yaml --port 8765

See docs/running.md for scenario files and everything the runner does.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", metavar="CONFIG", help="the toolhost config (YAML or TOML)")
    parser.add_argument("-p", "--prompt", action=Once, help="run this one prompt and exit "
                        "(`-p -`: read the prompt from stdin)")
    parser.add_argument("--script", metavar="SCENARIO", action=Once,
                        help="play the model from this scenario file (see docs/running.md)")
    parser.add_argument("--cli", metavar="PATH", help="the Claude CLI to run (default: "
                        "$TOOLHOST_CLI, then `claude` on PATH, then the one bundled in "
                        "claude-agent-sdk)")
    parser.add_argument("--model", help="model name passed to the CLI")
    prompt = parser.add_mutually_exclusive_group()
    prompt.add_argument("--system-prompt", metavar="TEXT", help="replace the system prompt")
    prompt.add_argument("--append-system-prompt", metavar="TEXT",
                        help="append to the CLI's default system prompt")
    parser.add_argument("--max-turns", type=positive_int, metavar="N",
                        help="stop a turn after N model replies (N at least 1; default 100)")
    parser.add_argument("--cwd", metavar="DIR",
                        help="working directory of the CLI (an existing directory)")
    parser.add_argument("--output", choices=("text", "json"), default="text",
                        help="text for people (default), json: the raw message stream")
    parser.add_argument("--yes", action="store_true",
                        help="answer every permission 'ask' with allow (deny rules still apply)")
    parser.add_argument("--watch", action="store_true",
                        help="reload CONFIG when its files change (see docs/running.md)")
    parser.add_argument("--watch-interval", type=interval, default=0.5, metavar="SECONDS",
                        help="how often --watch looks at the files, at least 0.05 "
                             "(default 0.5)")
    parser.add_argument("--no-manifests", dest="manifests", action="store_false",
                        help="let the CLI do the MCP handshake instead of handing it each "
                             "server's tool list at start-up")
    parser.add_argument("cli_args", nargs="*", metavar="-- CLI_ARGS",
                        help="extra arguments for the Claude CLI, after --")


async def _typed_prompts(terminal: Terminal) -> AsyncIterator[str]:
    """Turns typed at the terminal, each read only when the previous turn has ended (the
    ``> `` prompt then shows), until Ctrl-D at the prompt."""
    while True:
        line = await terminal.readline("\n> ")
        if line is None:  # the terminal has gone to a new line (Terminal.readline)
            return
        if line.strip():
            yield line


async def _terminal_prompts(stdin: int = 0) -> AsyncIterator[str]:
    """Turns piped on stdin (read from ``stdin``, a private duplicate of fd 0 while fd 0 is
    ``/dev/null`` for in-process tools: see ``toolhost.runner.terminal.hide_stdin``), one per
    line, until EOF.

    The blocking read runs in a daemon thread of its own, not in anyio's worker pool: a pool
    thread stuck reading after a second Ctrl-C would keep the process alive until someone
    pressed Enter. A daemon thread must not hold ``sys.stdin``'s buffer lock at exit either,
    so piped input is read from the raw file descriptor (a terminal goes through ``input()``,
    which reads C's stdin and keeps line editing).
    """
    import threading

    import anyio
    import anyio.from_thread
    import anyio.lowlevel

    send, receive = anyio.create_memory_object_stream[str | None](1)
    token = anyio.lowlevel.current_token()

    def reader() -> None:
        for line in _stdin_lines(stdin):
            try:
                anyio.from_thread.run(send.send, line, token=token)
            except (RuntimeError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                return  # the session is over
            if line is None:
                return

    threading.Thread(target=reader, name="toolhost-turns", daemon=True).start()
    async with receive:
        async for line in receive:
            if line is None:
                return
            if line.strip():
                yield line


def _stdin_lines(fd: int) -> Iterator[str | None]:
    """Lines read from ``fd``, then None at EOF. A line longer than the terminal's
    ``MAX_LINE`` is not a turn: it is skipped as it streams in (memory stays bounded) and
    said so on stderr."""
    import os

    from toolhost.protocol.framing import LineSplitter, LineTooLong
    from toolhost.runner.terminal import MAX_LINE

    lines = LineSplitter(MAX_LINE)
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        if chunk:
            lines.feed(chunk)
        else:
            lines.finish()
        while lines.ready:
            try:
                raw = lines.pop()
            except LineTooLong as exc:
                print(f"toolhost: a turn on stdin was not sent: {exc}", file=sys.stderr,
                      flush=True)
                continue
            yield raw.decode("utf-8", "replace")
        if not chunk:
            yield None
            return


PROMPT_MAX = 1024 * 1024  # bytes of a ``-p -`` prompt read from stdin


def _prompt_from_stdin(fd: int = 0) -> str | None:
    """``-p -``: the prompt is all of stdin (a pipe, a file, or a terminal until Ctrl-D), as
    ``-`` means for most commands; up to ``PROMPT_MAX`` bytes. None when there is none (empty,
    too long, unreadable): said in one line on stderr."""
    import os

    def refused(why: str) -> str | None:
        print(f"toolhost run: -p -: {why}; nothing was sent", file=sys.stderr)
        return None

    data = bytearray()
    try:
        while len(data) <= PROMPT_MAX:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            data += chunk
    except OSError as exc:
        return refused(f"stdin could not be read ({exc.strerror or exc})")
    if len(data) > PROMPT_MAX:
        return refused(f"the prompt on stdin is over the limit of {PROMPT_MAX:,} bytes")
    text = bytes(data).decode("utf-8", "replace")
    if not text.strip():
        return refused("the prompt on stdin is empty")
    return text.removesuffix("\n")


def unknown_scenario_tools(scenario: Scenario, host: Host) -> list[str]:
    """A line per scenario tool call naming a tool the config does not have: most often a
    typo, which the run would only show as the CLI's "No such tool available" result."""
    from toolhost.permissions.authoring.lint import BUILTIN_TOOLS
    from toolhost.typos import close_matches

    known = [t.wire_name for tools in host.tools.values() for t in tools]
    external = tuple(f"mcp__{name}__" for name in host.external)
    out = []
    for turn in scenario.turns:
        for i, call in enumerate(turn.tool_calls):
            name = call.tool
            if name in known or name in BUILTIN_TOOLS or name.startswith(external):
                continue
            close = close_matches(name, known, n=1)
            if not close and "." in name:  # SERVER.TOOL, as `toolhost call` takes it
                close = [n for n in known if n == "mcp__" + name.replace(".", "__", 1)]
            hint = (f" (did you mean {close[0]}?)" if close
                    else " (the model sees mcp__SERVER__TOOL)")
            out.append(f"{scenario.file}:{call.line}: turn {turn.index}, tool_calls[{i}]: "
                       f"{name} is not a tool of this config{hint}")
    return out


def _drop_terminal_output(guard: InertDescriptors | None = None) -> None:
    """After a hang-up the terminal is gone: what is left to say goes nowhere, and a failed
    flush at exit must not turn exit status 129 into Python's 120."""
    import contextlib
    import os

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    if guard is not None:
        guard.drop_terminal()
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        with contextlib.suppress(OSError):
            if not os.isatty(fd):
                continue  # a file or pipe still works: keep it
            os.dup2(devnull, fd)
    os.close(devnull)


def _working_dir(path: str) -> str:
    """``--cwd``, absolute; refused up front when it is not a directory the CLI can start
    in (otherwise the failure shows only once the CLI is being started)."""
    import os

    from toolhost.errors import RunnerError
    from toolhost.excerpt import cut

    if not os.path.isdir(path):  # False for a missing path, a file, a name the OS refuses
        what = "not a directory" if os.path.lexists(path) else "no such directory"
        raise RunnerError(f"--cwd {cut(path)}: {what}")
    return os.path.abspath(path)


def main(args: argparse.Namespace) -> int:
    from toolhost.commands._startup import collector_off_until_started
    from toolhost.serve.redact_telemetry import redact_telemetry

    redact_telemetry()  # under opentelemetry-instrument: spans and logs redacted as serve's
    # No collections while modules load and the config compiles (toolhost.commands._startup)
    with collector_off_until_started() as started:
        return _run(args, started)


def _run(args: argparse.Namespace, started: Callable[[], None]) -> int:
    from toolhost.config.cli_args import weakening
    from toolhost.errors import ToolhostError
    from toolhost.runner import make_renderer
    from toolhost.runner.inert_fds import InertDescriptors
    from toolhost.runner.render import JsonRenderer
    from toolhost.runner.spill_out import finish_all
    from toolhost.runner.terminal import release_terminal_before_exit
    from toolhost.scripted import load_scenario
    from toolhost.stdout_guard import claim_stdout

    refused = weakening(args.cli_args or ())
    if refused is not None:
        print(f"toolhost run: argument -- CLI_ARGS: {refused[1]}; toolhost's permission rules "
              "decide every tool call under `run`", file=sys.stderr)
        return 2
    if args.prompt == "-":
        args.prompt = _prompt_from_stdin()
        if args.prompt is None:
            return 2
    elif args.prompt is not None and not args.prompt.strip():  # `-p "$UNSET"`
        print("toolhost run: -p: the prompt is empty; nothing was sent", file=sys.stderr)
        return 2
    for flag, value in (("--script", args.script), ("--cwd", args.cwd)):
        if value == "":  # `--script "$UNSET"`: without a
            # scenario the real model would be played, with the API key, over the network
            print(f"toolhost run: {flag}: an empty path; nothing was started", file=sys.stderr)
            return 2
    scenario = None
    if args.script is not None:
        try:
            scenario = load_scenario(args.script)
        except ToolhostError as exc:  # a bad --script is a usage error, as a bad -p (and
            # `python -m toolhost.scripted` exits 2 on the same file): nothing started
            print(f"toolhost: error: {exc}", file=sys.stderr)
            return 2
    # --output json: stdout carries only the message stream; a tool's prints go to stderr
    # (its writes never wait for a reader that stopped reading: ``runner.spill_out``)
    renderer = JsonRenderer(_json_out(claim_stdout())) if args.output == "json" \
        else make_renderer(args.output)
    # From here on what a tool (or a library) prints is shown inert: the renderer keeps the
    # streams it was made with, everything else written to sys.stdout/stderr goes through
    # ``visible`` (cli.main puts the process's own streams back at exit), and so does what
    # is written to fds 1 and 2 below Python (runner.inert_fds; put back by ``_run``).
    guard = InertDescriptors.open()
    code: int | None = None  # (None: an exception ends the run)
    try:
        with _ctrl_c_noted() as pressed:
            code = _guarded(args, started, scenario, renderer, guard)
    except KeyboardInterrupt as exc:
        if pressed:
            raise
        # No Ctrl-C came: a tool module or plugin raised it (at import, while the config
        # loads). Said in one located line, not a silent exit 130.
        import traceback

        from toolhost.cli import debug_wanted
        from toolhost.visible import visible

        renderer.close()
        if debug_wanted(args):
            traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
        print(f"toolhost: error: KeyboardInterrupt raised{_raised_at(exc, visible)} with no "
              "Ctrl-C pressed (a tool module or plugin raised it); the run stopped",
              file=sys.stderr)
        code = 1
    finally:
        # what a slow reader has not taken yet (``runner.spill_out``), first (it comes before
        # what is written from now on): waited for, but after a signal stopped the session
        # only a moment (a SIGTERM ends toolhost even when nobody reads its output)
        finish_all(SIGNAL_DRAIN if code is None or code > 128 else None)
        guard.close()
    release_terminal_before_exit()  # after the last word: see its docstring (tmux)
    return code


SIGNAL_DRAIN = 2.0  # seconds


def _json_out(raw: IO[bytes]) -> TextIO:
    from toolhost.runner.spill_out import SpillingText

    return cast(TextIO, SpillingText(raw.fileno(), keep=raw))


@contextlib.contextmanager
def _ctrl_c_noted() -> Iterator[list[bool]]:
    """A list that is non-empty once a real SIGINT arrived in the block (Python's own handler,
    noting it): a KeyboardInterrupt without one was raised by code, not by the person."""
    pressed: list[bool] = []

    def noted(signum: int, frame: FrameType | None) -> None:
        pressed.append(True)
        signal.default_int_handler(signum, frame)

    installed = False
    with contextlib.suppress(ValueError):  # not the main thread: nothing to note
        installed = signal.getsignal(signal.SIGINT) is signal.default_int_handler
        if installed:
            signal.signal(signal.SIGINT, noted)
    try:
        yield pressed
    finally:
        if installed and signal.getsignal(signal.SIGINT) is noted:
            signal.signal(signal.SIGINT, signal.default_int_handler)


def _raised_at(exc: BaseException, visible: Callable[[str], str]) -> str:
    """`` at FILE:LINE`` of the innermost frame that raised ``exc`` ("" without one)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return ""
    return f" at {visible(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno}"


def _exit_status(report: RunReport, *, one_prompt: bool) -> int:
    """The exit status of a session that ended with ``report`` (docs/running.md)."""
    from toolhost.visible import visible

    if report.signal is not None:
        return 128 + report.signal
    if one_prompt and report.turn_interrupted:
        return 128 + signal.SIGINT
    if not report.turns:
        return 0 if not one_prompt and not report.problems else 1
    if not one_prompt and not report.problems and \
            report.failed_turns == report.failed_interrupted:
        return 0  # interactive: turns the person interrupted are not failures
    if not report.ok and report.stderr.strip() and report.error_subtypes:
        # split at newlines only: a \r or U+2028 in a line is shown, not taken for a line end
        tail = visible("\n".join(report.stderr.strip().split("\n")[-20:]), lines=True)
        print(f"toolhost: the Claude CLI's stderr:\n{tail}", file=sys.stderr)
    return 0 if report.ok else 1


def _guarded(args: argparse.Namespace, started: Callable[[], None], scenario: Scenario | None,
             renderer: Renderer, guard: InertDescriptors) -> int:
    import anyio

    from toolhost.host import load_host
    from toolhost.runner import RunOptions, run_host
    from toolhost.runner.held_output import HoldingStream
    from toolhost.runner.kept_signals import kept_signals
    from toolhost.runner.output_failures import QuietStream
    from toolhost.runner.terminal import Terminal, hide_stdin, restore_stdin
    from toolhost.visible import InertStream, visible

    # stderr is for notes: one that cannot be written (full, its reader gone) is dropped,
    # and the session goes on (toolhost.runner.output_failures)
    quiet = cast(TextIO, QuietStream(sys.stderr))
    # what in-process code prints while a question is open waits for its answer, as what
    # is written to fds 1 and 2 below Python does (runner.held_output)
    sys.stdout = InertStream(cast(TextIO, HoldingStream(sys.stdout, guard.held)))
    sys.stderr = InertStream(cast(TextIO, HoldingStream(quiet, guard.held)))
    renderer.status(f"loading {args.config}")
    cwd = _working_dir(args.cwd) if args.cwd is not None else None
    loading = time.time_ns()  # --watch: an edit saved from now on is reloaded
    with kept_signals() as put_back:  # an import cannot keep the session's signals
        host = load_host(args.config, cwd=cwd)  # relative path rules: against the CLI's cwd
    if put_back:
        print(f"toolhost: warning: loading {visible(args.config)} changed how toolhost takes "
              f"{', '.join(put_back)} (a plugin's or a python tool's import); put back: the "
              "session keeps its own signals", file=sys.stderr)
    if scenario is not None:
        for warning in unknown_scenario_tools(scenario, host):
            print(f"toolhost: warning: {warning}", file=sys.stderr)
    extra = list(args.cli_args or ())
    options = RunOptions.from_config(
        host.config.run, model=args.model, system_prompt=args.system_prompt,
        append_system_prompt=args.append_system_prompt, max_turns=args.max_turns,
        cwd=cwd, cli_args=tuple(extra) or None, manifests=args.manifests)

    def reload(path: str) -> Host:
        return load_host(path, cwd=cwd)

    async def session() -> int:
        started()  # the event loop's modules are loaded too: the start is over
        # a terminal on stdin: fd 0 is /dev/null until closed
        terminal = Terminal.open(stderr=guard.real.get(2, 2))
        if terminal is not None:  # a tool's writes wait while a question is open
            asked = terminal
            guard.held.asking = lambda: asked.question
            terminal.after_question.append(guard.held.release)
        piped: int | None = None  # turns piped on stdin: read from a private duplicate
        prompts: list[str] | AsyncIterator[str]
        if args.prompt is not None:
            prompts = [args.prompt]
        elif terminal is not None and terminal.reads_stdin:
            prompts = _typed_prompts(terminal)
        else:
            piped = hide_stdin()
            prompts = _terminal_prompts(piped)
        try:
            report = await run_host(host, prompts, cli=args.cli, options=options,
                                    scenario=scenario, renderer=renderer, yes=args.yes,
                                    handle_sigint=True, watch=reload if args.watch else None,
                                    watch_interval=args.watch_interval, terminal=terminal,
                                    watch_since=loading,
                                    interrupt_grace=interrupt_grace() if args.prompt is not None
                                    else None)
        finally:
            await host.aclose()
            if terminal is not None:
                terminal.close()
            if piped is not None:  # its reader thread may still hold it: left open
                restore_stdin(piped, close=False)
        if report.signal == signal.SIGHUP:
            _drop_terminal_output(guard)
        for problem in report.problems:
            print(f"toolhost: scenario check failed: {visible(problem, lines=True)}",
                  file=sys.stderr)
        code = _exit_status(report, one_prompt=args.prompt is not None)
        if report.output_error is not None and report.signal is None:
            print(f"toolhost: error: {report.output_error}", file=sys.stderr)
            return code or 1  # a run whose transcript was lost did not succeed
        return code

    return anyio.run(session)
