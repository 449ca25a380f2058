"""``toolhost schema``: the JSON Schema of the config format, for editors."""

from __future__ import annotations

import argparse
import json

HELP = "print the JSON Schema of the config format (for editor validation and completion)"

DESCRIPTION = """\
Print the JSON Schema (draft 2020-12) of toolhost's config format. Editors use it to check
and complete config files while you type.

By default the backend blocks of the built-in kinds (python, command, http) are included;
--plain prints the schema exactly as shipped (backend blocks left open); --config FILE also
includes the kinds of the plugins that config enables.

Examples:
  toolhost schema > .toolhost.schema.json
  # then, first line of a YAML config (YAML language server, VS Code's YAML extension):
  #   # yaml-language-server: $schema=./.toolhost.schema.json
  # or, first line of a TOML config (Taplo, Even Better TOML):
  #   #:schema ./.toolhost.schema.json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--plain", action="store_true",
                        help="the schema as shipped, without backend kinds")
    parser.add_argument("--config", metavar="FILE",
                        help="include the kinds of the plugins this config enables")


def main(args: argparse.Namespace) -> int:
    from toolhost.config.schema import config_schema

    kinds = None
    if not args.plain:
        from toolhost.config import load_config
        from toolhost.plugins import kinds_for

        kinds = kinds_for(load_config(args.config).plugins if args.config else ())
    print(json.dumps(config_schema(kinds), indent=2))
    return 0
