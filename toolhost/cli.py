"""``toolhost`` command line: one subcommand per module in ``toolhost.commands``.

Each command module exposes ``HELP`` (one line), ``DESCRIPTION`` (the ``--help`` text, with
examples), ``add_arguments(parser)`` and ``main(args) -> int``. Command modules keep their
top-level imports light so that ``toolhost --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence

from toolhost.errors import ToolhostError

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

EPILOG = """\
Start here:
  toolhost validate examples/configs/demo.yaml      check a config, every error at once
  toolhost tools examples/configs/demo.yaml         what the model will see
  toolhost run examples/configs/demo.yaml -p "..."  a session with the Claude CLI

Docs: docs/getting-started.md (a first config), docs/config.md (the grammar),
      docs/backends.md (python, command, http), docs/permissions.md (rules),
      docs/running.md (run and scenario files), docs/serve.md, docs/protocol.md (the wire).
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolhost",
        description="Declare MCP tools in YAML or TOML and host them for Claude agents.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="more logging on stderr (-vv for debug)")
    parser.add_argument("-V", "--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)
        cmd = sub.add_parser(name, help=module.HELP, description=module.DESCRIPTION,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(cmd)
        cmd.set_defaults(_main=module.main)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=[logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)],
        format="toolhost: %(levelname)s: %(message)s", stream=sys.stderr)
    if not getattr(args, "_main", None):
        parser.print_help()
        return 2
    try:
        code: int = args._main(args)
    except ToolhostError as exc:
        print(f"toolhost: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `toolhost schema | head`: the reader left, nothing to report
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the exit-time flush cannot fail again
        return 1
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
