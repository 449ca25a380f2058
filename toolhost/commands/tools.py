"""``toolhost tools FILE``: what the model will see, and (--explain) where each value came from."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolhost.compile import CompiledTools
    from toolhost.config.model import HostConfig

HELP = "list every server and tool: wire name, description, generated inputSchema"

DESCRIPTION = """\
Load and compile a config and list every server and tool the way the model sees them: the
wire name (mcp__<server>__<tool>), the description, and the generated inputSchema (from the
params you declared, a Python signature, or a command's template placeholders).

--json prints one JSON document (the same for a YAML file and its TOML twin).
--explain adds every effective config value with the file:line that set it, which shows what
extends, the user layer and toolhost.local.* contributed. Secrets are printed as ***.

Examples:
  toolhost tools team.yaml
  toolhost tools team.yaml --json | jq '.servers[].tools[].wireName'
  toolhost tools team.yaml --explain
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="the config file (YAML or TOML)")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.add_argument("--explain", action="store_true",
                        help="also show each effective value and the file:line that set it")
    parser.add_argument("--no-layers", action="store_true",
                        help="ignore the user config and toolhost.local.* files")


def main(args: argparse.Namespace) -> int:
    from toolhost.commands._configs import close, compile_config, redacted
    from toolhost.config.loader import load_config
    from toolhost.errors import ConfigError
    from toolhost.redaction.values import redact_strings

    try:
        # --explain shows the merged data the config was built from, with its marks: read
        # once (a second read of a file of 499,000 values took the process to 547 MB)
        merged: list[Any] = []
        config = load_config(args.config, layers=not args.no_layers,
                             merged_out=merged if args.explain else None)
        try:
            compiled = compile_config(config)
        except ConfigError as exc:
            raise ConfigError(redacted(config, exc.problems)) from None
    except ConfigError as exc:
        for problem in exc.problems:
            print(str(problem), file=sys.stderr)
        return 1
    try:
        listing = _listing(config, compiled)
    finally:
        close(compiled)
    explained = _explain(merged[0]) if merged else []
    del merged
    if args.json:
        out: dict[str, Any] = {"servers": listing}
        if args.explain:
            out["explain"] = explained
        # value by value first: a number spelling a secret becomes "***" (still JSON); then
        # a bidi override, a C1 control or a lone surrogate from config text is written as
        # a \uXXXX escape (the same JSON value; harmless when a person cats it)
        from toolhost.jsontext import inert_json

        print(inert_json(config.redact(json.dumps(redact_strings(out, config.redact),
                                                  indent=2, ensure_ascii=False))))
        return 0
    from toolhost.visible import visible

    # a description or a file name from a config (a team's, a fragment's) is shown, never
    # obeyed: an escape sequence, a carriage return or a bidi override is written as text
    # (after redaction, which must see a secret as it is)
    print(visible(config.redact(_render(listing, explained)), lines=True))
    return 0


def _listing(config: HostConfig, compiled: CompiledTools) -> list[dict[str, Any]]:
    servers = []
    for name, server in config.servers.items():
        entry: dict[str, Any] = {"name": name, "version": server.version}
        if server.description:
            entry["description"] = server.description
        if server.external is not None:
            entry["external"] = dict(server.external)
        pending = getattr(compiled.upstreams.get(name), "pending", "")
        if pending:  # required: false, and it did not start: serve and run retry it
            entry["unavailable"] = pending
        tools = []
        for tool in compiled.servers.get(name, ()):
            tools.append({"wireName": tool.wire_name, **tool.descriptor()})
        entry["tools"] = tools
        servers.append(entry)
    return servers


def _explain(merged: Any) -> list[dict[str, Any]]:
    from toolhost.config.merge import CONCAT_LISTS
    from toolhost.config.tree import format_path, mark_for

    out = []
    for key, value in _leaves(merged.data, (), CONCAT_LISTS):
        mark = mark_for(merged.marks, key, merged.file)
        out.append({"key": format_path(key), "value": value,
                    "origin": str(mark.origin(key)), "layer": mark.layer})
    return out


def _leaves(value: Any, path: tuple[Any, ...], split: Collection[tuple[Any, ...]]
            ) -> list[tuple[tuple[Any, ...], Any]]:
    """Scalars, lists of scalars (shown whole, unless in ``split``: their items may come
    from different files) and empty mappings, each with its path."""
    if isinstance(value, dict) and value:
        return [leaf for key, item in value.items()
                for leaf in _leaves(item, (*path, key), split)]
    if isinstance(value, list) and (path in split
                                    or any(isinstance(v, (dict, list)) for v in value)):
        return [leaf for i, item in enumerate(value)
                for leaf in _leaves(item, (*path, i), split)]
    return [(path, value)]


def _render(listing: list[dict[str, Any]], explained: list[dict[str, Any]]) -> str:
    from toolhost.errors import shown  # a file's name, one line whatever it holds

    lines: list[str] = []
    for server in listing:
        head = f"{server['name']} (v{server['version']})"
        if server.get("description"):
            head += ": " + server["description"].replace("\n", "\n    ")
        lines.append(head)
        if "external" in server:
            lines.append(f"  external {server['external'].get('type', 'stdio')} server, "
                         "started by the Claude CLI")
        if "unavailable" in server:
            lines.append(f"  unavailable: {server['unavailable']} (required: false: serve and "
                         "run start without it and retry it)")
        for tool in server["tools"]:
            lines.append(f"  {tool['wireName']}")
            # every line of a description indented under its tool: none reads as another
            lines.append("    " + tool["description"].replace("\n", "\n    "))
            lines.append("    inputSchema: " + json.dumps(tool["inputSchema"], sort_keys=True))
            if tool.get("annotations"):
                lines.append("    annotations: " + json.dumps(tool["annotations"]))
        lines.append("")
    if explained:
        lines.append("Effective values:")
        for item in explained:
            lines.append(f"  {item['key']} = {json.dumps(item['value'])}  "
                         f"[{shown(item['origin'])}, {item['layer']}]")
    return "\n".join(lines).rstrip("\n")
