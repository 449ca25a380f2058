"""``toolhost`` command line: one subcommand per module in ``toolhost.commands``.

Each command module exposes ``HELP`` (one line), ``DESCRIPTION`` (the ``--help`` text, with
examples), ``add_arguments(parser)`` and ``main(args) -> int``. Command modules keep their
top-level imports light so that ``toolhost --help`` stays fast.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence

from toolhost.scrub_stream import ScrubbingStream
from toolhost.stdout_guard import fill_closed_stdio
from toolhost.stdout_quiet import HeldStdout

# subcommand -> module; the order is the order of `toolhost --help`.
COMMANDS: dict[str, str] = {
    "init": "toolhost.commands.init",
    "run": "toolhost.commands.run",
    "validate": "toolhost.commands.validate",
    "tools": "toolhost.commands.tools",
    "call": "toolhost.commands.call",
    "permissions": "toolhost.commands.permissions",
    "serve": "toolhost.commands.serve",
    "mcp-config": "toolhost.commands.mcp_config",
    "install": "toolhost.commands.install",
    "plugins": "toolhost.commands.plugins",
    "lock": "toolhost.commands.lock",
    "update": "toolhost.commands.update",
    "schema": "toolhost.commands.schema",
}

# commands that take stdout for themselves (stdout_guard): serve over stdio, run --output json
OWN_STDOUT = frozenset({"run", "serve"})

# subcommand -> the page of docs/ (in toolhost's repository) its --help ends by pointing at
DOCS: dict[str, str] = {
    "init": "docs/getting-started.md",
    "run": "docs/running.md",
    "validate": "docs/config.md",
    "tools": "docs/config.md",
    "call": "docs/backends.md",
    "permissions": "docs/permissions.md",
    "serve": "docs/serve.md",
    "mcp-config": "docs/serve.md",
    "install": "docs/serve.md",
    "plugins": "docs/plugins.md",
    "lock": "docs/sharing.md",
    "update": "docs/sharing.md",
    "schema": "docs/config.md",
}

EPILOG = """\
Start here:
  toolhost init                          write a working toolhost.yaml, a tools module, tests
  toolhost validate toolhost.yaml        check a config, every error at once
  toolhost tools toolhost.yaml           what the model will see
  toolhost run toolhost.yaml -p "..."    a session with the Claude CLI
(In toolhost's clone, examples/configs/demo.yaml is a ready config to try them on.)

Docs: docs/getting-started.md (a first config), docs/config.md (the grammar),
      docs/backends.md (python, command, http), docs/permissions.md (rules),
      docs/running.md (run and scenario files), docs/serve.md, docs/protocol.md (the wire).

Errors are one located line each (file:line:column: key.path: message). An unexpected
failure prints "internal error: ..."; add --debug (or set TOOLHOST_DEBUG=1) for the traceback:
  toolhost --debug validate team.yaml
"""


class _Version(argparse.Action):
    """``--version``: toolhost's version, Python's, and the pinned CLI bundle if installed
    (looked up only when asked, so that every other command starts no slower)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print versions and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        import importlib.metadata as md
        import platform

        def version(dist: str) -> str | None:
            try:
                return md.version(dist)
            except md.PackageNotFoundError:
                return None

        line = f"toolhost {version('toolhost') or 'unknown'} (Python {platform.python_version()}"
        sdk = version("claude-agent-sdk")
        line += f", claude-agent-sdk {sdk})" if sdk else ")"
        print(line)
        parser.exit()


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter, the width worked out as ``shutil.get_terminal_size`` does:
    argparse imports shutil for it (with bz2, lzma and zlib), and every parser makes a
    formatter when an argument is added."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         _columns() - 2 if width is None else width)


def _columns() -> int:
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):  # no stdout, closed, or not a terminal
        return 80


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``only`` (the command a run names), that command alone:
    the others' modules are not imported nor their parsers made, as that run never reads
    them."""
    from toolhost.cli_suggest import SuggestingParser

    parser = SuggestingParser(
        prog="toolhost",
        description="Declare MCP tools in YAML or TOML and host them for Claude agents.",
        epilog=EPILOG,
        formatter_class=_Formatter,
    )
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="more logging on stderr (-vv for debug)")
    parser.add_argument("-V", "--version", action=_Version)
    parser.add_argument("--debug", action="store_true", default=False,
                        help="show Python tracebacks for unexpected errors "
                             "(also TOOLHOST_DEBUG=1)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        if only is not None and name != only:
            continue
        module = importlib.import_module(module_name)
        cmd = sub.add_parser(name, help=module.HELP, description=module.DESCRIPTION,
                             epilog=f"More: {DOCS[name]} (in toolhost's repository); "
                             "`toolhost --help` lists every command.",
                             formatter_class=_Formatter)
        module.add_arguments(cmd)
        # also after the subcommand (`toolhost validate x --debug`); SUPPRESS keeps the
        # global value when the flag is only given before it
        cmd.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                         help=argparse.SUPPRESS)
        cmd.set_defaults(_main=module.main)
    return parser


def debug_wanted(args: argparse.Namespace | None = None) -> bool:
    """True when tracebacks were asked for: ``--debug`` or ``TOOLHOST_DEBUG`` set to a true
    value (anything but empty, ``0``, ``false``, ``no``, ``off``)."""
    if args is not None and getattr(args, "debug", False):
        return True
    from toolhost.failures import debug_enabled

    return debug_enabled()


def _internal_error(raised: BaseException, debug: bool) -> int:
    """One line for an exception nobody planned for (the one inside a group of one);
    the traceback, of all of it, only on request."""
    from toolhost.errors import single_error
    from toolhost.excerpt import cut

    if debug:
        import traceback

        traceback.print_exception(type(raised), raised, raised.__traceback__, file=sys.stderr)
    exc = single_error(raised)
    detail = cut(" ".join(str(exc).split()), 300) if not isinstance(exc, RecursionError) \
        else "input nested too deeply"
    name = type(exc).__name__
    text = f"toolhost: internal error: {name}" + (f": {detail}" if detail else "")
    if not debug:
        text += "; rerun with --debug (or TOOLHOST_DEBUG=1) for the traceback"
    print(text, file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    # Everything written to stdout/stderr (tracebacks and log lines included) is scrubbed of
    # the secrets of every config this process loads (toolhost.redaction).
    fill_closed_stdio()  # started with fd 0, 1 or 2 closed: /dev/null there (stdout_guard)
    out, err = sys.stdout, sys.stderr
    # stdout is the command's output: a thread, atexit hook or child process a plugin or
    # tools module left behind writes to stderr (stdout_quiet); run and serve claim their own
    held = None if _chosen(list(sys.argv[1:] if argv is None else argv)) in OWN_STDOUT \
        else HeldStdout()
    scrubbed = ScrubbingStream(out if held is None else held.stream)
    sys.stdout, sys.stderr = (scrubbed if held is None else held.wrap(scrubbed)), \
        ScrubbingStream(err)
    exited: SystemExit | None = None
    lost: OSError | None = None
    try:
        code = _main(argv)
    except KeyboardInterrupt:
        raise
    except SystemExit as exc:  # argparse's --help, --version, a usage error
        exited, code = exc, 0
    except BaseException as exc:
        code = _internal_error(exc, debug_wanted() or "--debug" in (argv or sys.argv[1:]))
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing to say
                finish = getattr(stream, "finish", None)  # ScrubbingStream, JsonLines
                finish() if callable(finish) else stream.flush()
        if held is not None:  # the process's own command line: the process ends now
            lost = held.release(for_good=argv is None)
        sys.stdout, sys.stderr = out, err
    if lost is not None and not isinstance(lost, BrokenPipeError):  # (a reader that left
        # wanted no more: exit 1 without a word, as _failed does)
        print(f"toolhost: error: stdout: cannot write the output: {lost.strerror or lost}",
              file=sys.stderr)
    if exited is not None:
        raise SystemExit(1) if lost is not None and exited.code in (0, None) else exited
    code = max(code, 1) if lost is not None else code
    # (only when a plugin or a python tool's module was loaded)
    loaded = sys.modules.get("toolhost.backends.import_threads")
    if argv is None and loaded is not None:  # a thread they started must not hold the exit
        loaded.leave_threads(code)
    return code


def _chosen(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs, when the words before it are only global flags (none of
    which takes a value)."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
        if word in ("-h", "--help") or (word.startswith("--") and "=" in word):
            return None
    return None


def _main(argv: Sequence[str] | None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    chosen = _chosen(words)
    parser = build_parser(chosen)
    passed: list[str] = []
    if chosen == "run" and "--" in words:  # what follows is the CLI's, wherever `--` stands
        at = words.index("--")
        words, passed = words[:at], words[at + 1:]
    args = parser.parse_args(words)
    if passed:
        args.cli_args = [*(args.cli_args or ()), *passed]
    # logging (~5 ms with traceback, string and threading) after the parse: `--help`
    # and a usage error end inside parse_args and never log
    import logging

    from toolhost.logformat import JsonFormatter, JsonLines, log_format

    handler = logging.StreamHandler(sys.stderr)
    formatter = log_format()
    handler.setFormatter(formatter)  # TOOLHOST_LOG_FORMAT=json: one object a line
    if isinstance(formatter, JsonFormatter):  # and so is every other line on stderr
        sys.stderr = JsonLines(sys.stderr, formatter)
    logging.basicConfig(
        level=[logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)],
        handlers=[handler])
    if not getattr(args, "_main", None):
        parser.print_help()
        return 2
    try:
        code: int = args._main(args)
    except (SystemExit, GeneratorExit):
        raise
    except BaseException as raised:
        return _failed(raised, args)
    return code


def _failed(raised: BaseException, args: argparse.Namespace) -> int:
    """The exit status (and the line on stderr) for what a command raised. A task group
    wraps even a lone error in an exception group: the one inside is what is classified."""
    from toolhost.errors import Stopped, ToolhostError, single_error

    exc = single_error(raised)
    if isinstance(exc, ToolhostError):
        if debug_wanted(args):
            import traceback

            traceback.print_exception(type(raised), raised, raised.__traceback__,
                                      file=sys.stderr)
        print(f"toolhost: error: {exc}", file=sys.stderr)
        return 1
    if isinstance(exc, KeyboardInterrupt):  # a stop signal reports itself: 143, 129
        return 128 + exc.signum if isinstance(exc, Stopped) else 130
    if isinstance(exc, BrokenPipeError):  # `toolhost schema | head`: the reader left
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the exit-time flush cannot fail again
        return 1
    if isinstance(exc, OSError) and _stdout_fails(exc):  # `toolhost schema > /dev/full`
        print(f"toolhost: error: stdout: cannot write the output: {exc.strerror or exc}",
              file=sys.stderr)
        return 1
    return _internal_error(raised, debug_wanted(args))


def _stdout_fails(exc: OSError) -> bool:
    """Whether ``exc`` is stdout's own (a full disk, an I/O error on it): flushing what it
    holds fails with the same error. The rest is dropped, never retried at exit."""
    try:
        sys.stdout.flush()
    except OSError as again:
        if again.errno != exc.errno:
            return False
        with contextlib.suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            sys.stdout.flush()
        return True
    except (ValueError, AttributeError):
        return False
    return False


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
