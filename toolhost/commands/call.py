"""``toolhost call FILE SERVER.TOOL [key=value ...]``: run one tool directly, no model involved."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolhost.visible import visible

if TYPE_CHECKING:
    from toolhost.compile import CompiledTool
    from toolhost.results import ToolResult

HELP = ("run one tool directly and print its result (exit 1 when the result is an error, 2 "
        "when the command line is)")

USAGE = 2  # the command line is wrong (an unknown tool or option, an argument not key=value)

DESCRIPTION = """\
Load and compile a config, call one tool with the given arguments, and print the result: the
way the model will read it (the structured JSON when the tool returns structuredContent and
the model reads it, otherwise the text), images as a one-line summary. --json (or --raw)
prints the MCP CallToolResult as JSON instead, for scripts. The exit status is 1 when the
result has isError: true (a value the tool's schema refuses past its type: a range, a
pattern; a failing tool, a timeout) or the config does not load, 2 when the command line is
wrong (an unknown server, tool or option, an argument that is not key=value, not of its
parameter's type or not one the tool takes, a required one left out: said with the tool's
arguments and a line to copy; JSON that does not parse), 0 otherwise. On a
terminal, control characters in the result (escape sequences, bidi overrides, a bare \\r)
are shown as visible escapes, never acted on; a pipe gets the result as it is.

With no tool named, the tools the config has are listed, each with its arguments
(REQUIRED=TYPE [OPTIONAL=TYPE]), and the exit status is 2.

Arguments are key=value pairs, each value read by the parameter's type in the inputSchema:
integers and numbers as numbers, booleans as true/false (yes/no, 1/0), arrays and objects as
JSON, strings as they are. --json '{...}' (or --json @FILE, a file holding it) gives them all
at once as a JSON object (key=value pairs override it; a key given twice as key=value, or
two --json objects, is an error) and prints the raw result. JSON given
here is JSON strictly: nested at most 256 deep, integers of at most 4,000 digits, no NaN or
Infinity, no key twice; @FILE is a regular file of at most 16 MiB.
The tool may be named SERVER.TOOL or by its wire name mcp__SERVER__TOOL.
The permission rules are not applied (you are the caller, not the model): see what they
decide for the same arguments with
  toolhost permissions check CONFIG mcp__SERVER__TOOL --input '{...}'

Examples:
  toolhost call examples/configs/backends-python.yaml demo.add a=2 b=3
  toolhost call team.yaml git.log count=5
  toolhost call team.yaml search.grep pattern='TODO' files='["src/a.py","src/b.py"]'
  toolhost call team.yaml issues.create --json '{"title": "Bug", "labels": ["p1"]}'
  toolhost call team.yaml git.log count=5 --json          # the raw CallToolResult
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="the config file (YAML or TOML)")
    parser.add_argument("tool", nargs="?",
                        help="SERVER.TOOL or mcp__SERVER__TOOL (left out: the tools "
                        "CONFIG has are listed, with their arguments)")
    # REMAINDER so that options may follow the key=value pairs; main() picks them out.
    parser.add_argument("arguments", nargs=argparse.REMAINDER, metavar="key=value",
                        help="one argument each, parsed by the parameter's schema type")
    parser.add_argument("--json", dest="json_args", nargs="?", const="", metavar="'{...}'",
                        action="append",
                        help="print the MCP CallToolResult as JSON; a JSON object (or "
                             "@FILE) after it gives the arguments")
    parser.add_argument("--raw", action="store_true",
                        help="print the MCP CallToolResult as JSON (same as a bare --json)")
    parser.add_argument("--no-layers", action="store_true",
                        help="ignore the user config and toolhost.local.* files")


class UsageError(ValueError):
    """Bad command-line input; printed without a traceback."""


def split_tool(name: str) -> tuple[str, str]:
    """``server.tool`` or ``mcp__server__tool`` -> (server, tool)."""
    if name.startswith("mcp__") and name.count("__") >= 2:
        server, _, tool = name[len("mcp__"):].partition("__")
        return server, tool
    server, dot, tool = name.partition(".")
    if not dot or not server or not tool:
        raise UsageError(f"name the tool as SERVER.TOOL (or mcp__SERVER__TOOL), not {name!r}")
    return server, tool


def _types(schema: Mapping[str, Any]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [str(k) for k in kind]
    return [t for sub in schema.get("anyOf", []) if isinstance(sub, Mapping)
            for t in _types(sub)]


def _json_value(raw: str, key: str) -> tuple[bool, Any]:
    """(True, value) when ``raw`` is JSON, (False, None) when it is not JSON at all; JSON that
    is refused (too deep, NaN, a 5,000-digit integer) is a UsageError naming the argument."""
    from toolhost.commands._jsonarg import JsonArgumentError, json_text
    from toolhost.excerpt import cut
    from toolhost.jsontext import JsonTextError

    try:
        return True, json_text(f"argument {cut(key, 80)}", raw)
    except JsonArgumentError as exc:
        cause = exc.__cause__
        if isinstance(cause, JsonTextError) and cause.syntax:
            return False, None
        raise UsageError(str(exc)) from None


def parse_value(raw: str, schema: Mapping[str, Any], key: str = "value") -> Any:
    """Read one command-line value by the parameter's schema type."""
    types = _types(schema)
    if not types:  # no type: a JSON literal if it is one, else the string
        ok, value = _json_value(raw, key)
        return value if ok else raw
    for kind in types:
        if kind == "string":
            return raw
        if kind == "null" and raw in ("null", ""):
            return None
        if kind == "boolean" and raw.lower() in ("true", "false", "yes", "no", "1", "0"):
            return raw.lower() in ("true", "yes", "1")
        if kind in ("integer", "number", "array", "object"):
            ok, value = _json_value(raw, key)
            if not ok:
                continue
            if kind == "integer" and isinstance(value, int) and not isinstance(value, bool):
                return value
            if kind == "number" and isinstance(value, (int, float)) and \
                    not isinstance(value, bool):
                return value
            if (kind, type(value)) in (("array", list), ("object", dict)):
                return value
    return raw  # let the validator say what is wrong with it


def build_arguments(tool: CompiledTool, pairs: Sequence[str],
                    json_args: str | None) -> dict[str, Any]:
    from toolhost.commands._jsonarg import JsonArgumentError, json_argument

    arguments: dict[str, Any] = {}
    if json_args:
        try:
            loaded = json_argument("--json", json_args)
        except JsonArgumentError as exc:
            raise UsageError(str(exc)) from None
        if not isinstance(loaded, dict):
            raise UsageError("--json must be a JSON object")
        arguments.update(loaded)
    props = tool.input_schema.get("properties") or {}
    given: set[str] = set()
    for pair in pairs:
        key, eq, raw = pair.partition("=")
        if not eq or not key:
            raise UsageError(_pair_problem(pair, props))
        if key in given:  # n=1 n=2: which one was meant is a guess; --json's keys may be
            # overridden by a pair (documented), a pair by another pair is a typo
            from toolhost.excerpt import cut

            raise UsageError(f"argument {cut(repr(key))} is given twice: give it once "
                             "(an array is one JSON value: key='[1, 2]')")
        given.add(key)
        if key not in props and tool.input_schema.get("additionalProperties") is False:
            raise UsageError(_unknown_argument(key, props, tool.name))
        arguments[key] = parse_value(raw, props.get(key) or {}, key)
    return arguments


def _pair_problem(pair: str, props: dict[str, Any]) -> str:
    """Why ``pair`` is not ``key=value``, with what was probably meant."""
    from toolhost.cli_suggest import suggestion
    from toolhost.excerpt import cut

    if len(pair) > 1000:  # quoted back cut, and no did-you-mean over a huge text
        return f"arguments are key=value, not {cut(repr(pair))}"

    if pair.startswith("-"):
        near = suggestion(pair.split("=", 1)[0], ("--json", "--raw", "--no-layers"))
        return (f"unknown option {pair!r}" + (f" (did you mean '{near}'?)" if near else "")
                + "; the tool's own arguments are key=value")
    if pair in props:
        return f"argument {pair!r} has no value: write {pair}=VALUE"
    return f"arguments are key=value, not {pair!r} (e.g. {next(iter(props), 'name')}=VALUE)"


def _unknown_argument(key: str, props: dict[str, Any], tool: str) -> str:
    from toolhost.cli_suggest import suggestion
    from toolhost.excerpt import cut

    near = suggestion(key, props) if len(key) <= 1000 else None
    takes = cut(", ".join(props)) if props else "no arguments"
    return (f"the tool {tool!r} has no argument {cut(repr(key))}"
            + (f" (did you mean '{near}'?)" if near else "") + f"; it takes: {takes}")


def render(result: ToolResult, tool: CompiledTool) -> str:
    """What the model would read, for a person."""
    lines: list[str] = []
    if result.structured is not None and not result.is_error:
        lines.append(json.dumps(result.structured, indent=2, ensure_ascii=False))
    else:
        for block in result.content:
            if block.get("type") == "text":
                lines.append(str(block.get("text", "")))
    for block in result.content:
        kind = block.get("type")
        if kind in ("image", "audio"):
            size = len(str(block.get("data", ""))) * 3 // 4
            lines.append(f"[{kind}: {block.get('mimeType', '?')}, about {size:,} bytes]")
        elif kind in ("resource_link", "resource"):
            lines.append(f"[{kind}: {json.dumps(block, ensure_ascii=False)}]")
    return "\n".join(lines)


def _options_after_pairs(args: argparse.Namespace) -> None:
    """Move --raw / --json / --no-layers written after the key=value pairs onto ``args``."""
    pairs: list[str] = []
    rest = list(args.arguments)
    given: list[str] = list(args.json_args or [])  # each --json, in order ("": a bare one)
    while rest:
        item = rest.pop(0)
        if item == "--raw":
            args.raw = True
        elif item == "--no-layers":
            args.no_layers = True
        elif item == "--json":
            # a bare --json asks for raw output; a value after it is the arguments object
            nxt = rest[0] if rest else ""
            takes_value = nxt.lstrip()[:1] in ("{", "[", '"') or (
                bool(nxt) and "=" not in nxt and not nxt.startswith("--"))
            given.append(rest.pop(0) if takes_value else "")
        elif item.startswith("--json="):
            given.append(item[len("--json="):])
        else:
            pairs.append(item)
    args.arguments = pairs
    objects = [value for value in given if value]
    if len(objects) > 1:  # the last one won without a word (and a bare --json after one
        # dropped it): which was meant is a guess
        raise UsageError("--json gives the arguments object twice: give it once (key=value "
                         "pairs may add to it)")
    args.json_args = objects[0] if objects else ("" if given else None)


def main(args: argparse.Namespace) -> int:
    import anyio

    from toolhost.backends.base import CallContext
    from toolhost.commands._configs import compile_config, redacted
    from toolhost.compile.build import ToolUnavailable
    from toolhost.config import load_config
    from toolhost.errors import ConfigError
    from toolhost.redaction.values import redact_strings
    from toolhost.serve.redact_telemetry import redact_telemetry

    redact_telemetry()  # under opentelemetry-instrument: spans and logs redacted as serve's
    try:
        _options_after_pairs(args)
        raw = args.raw or args.json_args is not None
        config = load_config(args.config, layers=not args.no_layers)
        try:
            compiled = compile_config(config)
        except ConfigError as exc:
            raise ConfigError(redacted(config, exc.problems)) from None
        if args.tool is None:  # teach: what could be called, and how
            from toolhost.commands._call_menu import tool_menu

            anyio.run(compiled.aclose)
            raise UsageError(tool_menu(args.config, compiled))
        try:
            server, name = split_tool(args.tool)
        except UsageError as exc:
            owners = [f"{s}.{args.tool}" for s, tools in compiled.servers.items()
                      if any(t.name == args.tool for t in tools)]
            # another separator (project/greet, project:greet, project__greet)
            parts = re.split(r"::|[/:\s]|__", args.tool, maxsplit=1)
            if len(parts) == 2 and any(t.name == parts[1]
                                       for t in compiled.servers.get(parts[0], ())):
                owners.append(f"{parts[0]}.{parts[1]}")
            anyio.run(compiled.aclose)
            raise UsageError(f"{exc}" + (f"; did you mean {' or '.join(owners)}?" if owners
                                         else "")) from None
    except (ConfigError, UsageError) as exc:
        print(f"toolhost call: {visible(str(exc), lines=True)}", file=sys.stderr)
        return USAGE if isinstance(exc, UsageError) else 1

    async def progress(done: float, total: float | None, message: str | None) -> None:
        of = f"/{total:g}" if total is not None else ""
        shown = f": {visible(config.redact(message))}" if message else ""
        print(f"progress {done:g}{of}{shown}", file=sys.stderr)

    async def run() -> ToolResult | tuple[str, int]:
        try:
            tool = compiled.tool(server, name)
            arguments = build_arguments(tool, args.arguments, args.json_args)
            from toolhost.commands._call_checks import argument_problem

            problem = argument_problem(tool, arguments, args.config, f"{server}.{name}")
            if problem is not None:  # before the call: how to call it, not a failed result
                raise UsageError(problem)
            ctx = CallContext(call_id="toolhost-call", tool=tool.wire_name, progress=progress)
            return await tool.call(arguments, ctx)
        except ToolUnavailable as exc:  # the host's state, not the command line's
            return str(exc.args[0]), 1
        except KeyError as exc:  # a name no server or tool has
            return str(exc.args[0]), USAGE
        except UsageError as exc:  # arguments that are no key=value, of no parameter's type
            return str(exc), USAGE
        finally:
            await compiled.aclose()

    from toolhost.runner.inert_fds import InertDescriptors
    from toolhost.stdout_quiet import prints_to_stderr

    with prints_to_stderr():  # a tool's own print is not its result (`call --json | jq`)
        # and what it writes to fds 1 and 2 below Python (os.write, a child) passes a
        # pipe that hides secrets and shows it inert (runner.inert_fds)
        guard = InertDescriptors.open()
        try:
            outcome = anyio.run(run)
        finally:
            guard.close()
    if isinstance(outcome, tuple):
        print(f"toolhost call: {visible(outcome[0], lines=True)}", file=sys.stderr)
        return outcome[1]
    tool = compiled.tool(server, name)
    # On a terminal, what the tool returned is shown, never acted on: an escape sequence in a
    # web page or a command's output (a title, the clipboard, a cursor move hiding a line)
    # is written as a visible escape, as `run` shows it. A pipe gets the text as it is.
    shown = visible if sys.stdout.isatty() else _same
    if raw:
        # hidden value by value first: a number spelling a secret becomes "***", not a
        # bare *** that is no JSON
        found = redact_strings(outcome.to_mcp(), config.redact)
        print(shown(_escaped(config.redact(json.dumps(found, indent=2, ensure_ascii=False))),
                    lines=True))
    else:
        text = shown(_escaped(config.redact(render(outcome, tool))), lines=True)
        print(text, end="" if text.endswith("\n") else "\n")  # a tool's own newline is enough
    return 1 if outcome.is_error else 0


def _same(text: str, *, lines: bool = False) -> str:
    return text


_SURROGATE = re.compile("[\ud800-\udfff]")


def _escaped(text: str) -> str:
    """``text`` with each lone surrogate (which JSON can spell, ``"\\ud800"``, and no UTF-8
    output can carry) written as that escape, as the MCP wire writes it."""
    if text.isascii():
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
