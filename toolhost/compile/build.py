"""``compile_tools``: bind every declared tool to its backend, once.

Per tool: find the kind, ``bind`` it (imports, templates, clients), lay the config's params over
the generated schema, check the schemas, compile the validators. Every bad tool is reported,
not just the first: one ``CompileError`` carries them all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, cast

from toolhost.backends.base import BackendKind, BindContext
from toolhost.compile.content import ServerContent, compile_content
from toolhost.compile.declared import declared_defaults
from toolhost.compile.integers import integer_normalizer
from toolhost.compile.schema import (
    closed_schema,
    merge_input_schema,
    schema_problems,
    wire_name_problem,
)
from toolhost.compile.tool import DEFAULT_MAX_OUTPUT_CHARS, CompiledTool
from toolhost.compile.validators import LazyValidator
from toolhost.config.gcpause import gc_paused
from toolhost.config.model import HostConfig, ServerConfig, ToolConfig
from toolhost.config.wirenames import wire_name_problems
from toolhost.errors import CompileError, ConfigError, Problem

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = ["CompiledTools", "ToolUnavailable", "compile_tool", "compile_tools"]


class ToolUnavailable(KeyError):
    """The server that has the tool did not start (an imported server, ``required: false``):
    a state of the host, not a name no server has."""


class Closeable(Protocol):
    """Something compiling opened and closing releases (a backend context, an upstream)."""

    async def aclose(self) -> None: ...


class CompiledTools:
    """The compiled tools of a config, by server. Close it to release per-server resources."""

    def __init__(self, servers: Mapping[str, tuple[CompiledTool, ...]],
                 contexts: tuple[Closeable, ...] = (),
                 content: Mapping[str, ServerContent] | None = None,
                 upstreams: Mapping[str, Any] | None = None) -> None:
        self.servers: Mapping[str, tuple[CompiledTool, ...]] = dict(servers)
        self._contexts = contexts
        # resources, prompts and completions by server (only servers that declare some)
        self.content: Mapping[str, ServerContent] = dict(content or {})
        # imported servers (``mcp:``): toolhost.gateway.compile.UpstreamTools, by server
        self.upstreams: Mapping[str, Any] = dict(upstreams or {})

    def tool(self, server: str, name: str) -> CompiledTool:
        """The tool ``name`` of ``server``; ``KeyError`` with the known names otherwise."""
        # a name typed (100,000 characters) or 10,000 tools: each part is cut, the line is
        # not that long
        from toolhost.excerpt import cut
        from toolhost.typos import close_matches

        if server not in self.servers:
            close = close_matches(server, list(self.servers), n=1)
            raise KeyError(f"no server '{cut(server, 200)}' (servers: "
                           f"{cut(', '.join(self.servers), 300) or 'none'})"
                           + (f"; did you mean '{close[0]}'?" if close else ""))
        for tool in self.servers[server]:
            if tool.name == name:
                return tool
        pending = getattr(self.upstreams.get(server), "pending", "")
        if pending:  # a required: false upstream that did not start (toolhost.gateway.pending)
            raise ToolUnavailable(f"upstream server '{server}' is not available: {pending}")
        names = [t.name for t in self.servers[server]]
        close = close_matches(name, names, n=1)
        raise KeyError(f"server '{server}' has no tool '{cut(name, 200)}' (tools: "
                       f"{cut(', '.join(names), 300) or 'none'})"
                       + (f"; did you mean '{close[0]}'?" if close else ""))

    @property
    def holds_resources(self) -> bool:
        """Whether ``aclose`` has anything to do (an HTTP client, a worker pool, an upstream):
        ``validate`` and ``tools`` then need no event loop (asyncio is ~20 ms of imports)."""
        return any(not isinstance(c, BindContext) or c._closers for c in self._contexts)

    def __iter__(self) -> Iterator[CompiledTool]:
        return (tool for tools in self.servers.values() for tool in tools)

    async def aclose(self) -> None:
        """Close every server's shared resources (HTTP clients, ...)."""
        contexts, self._contexts = self._contexts, ()
        for ctx in contexts:
            await ctx.aclose()

    async def __aenter__(self) -> CompiledTools:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.aclose()


def _problem(tool: ToolConfig, message: str, *, suffix: str = "", hint: str = "") -> Problem:
    return tool.origin.problem(message, key=suffix, hint=hint)


def compile_tool(tool: ToolConfig, server: ServerConfig, kinds: Mapping[str, BackendKind],
                 ctx: BindContext, *,
                 redact: Callable[[str], str] | None = None) -> CompiledTool:
    """Compile one tool. Raises ``CompileError`` listing everything wrong with it."""
    kind = kinds.get(tool.backend.kind)
    if kind is None:
        raise CompileError([_problem(tool, f"unknown backend kind '{tool.backend.kind}'",
                                     hint="known: " + ", ".join(sorted(kinds)))])
    try:
        binding = kind.bind(tool, ctx)
    except ConfigError:
        raise
    except Exception as exc:  # a plugin's kind failing to bind is still a config problem
        raise CompileError([_problem(tool, f"the '{kind.name}' backend could not bind this "
                                     f"tool: {type(exc).__name__}: {exc}")]) from exc
    except SystemExit as exc:  # a module calling sys.exit() (argparse at import) or a
        # plugin's kind: said where, not the whole command ending with its status, unsaid
        raise CompileError([_problem(tool, f"the '{kind.name}' backend could not bind this "
                                     f"tool: it called exit({exc.code!r}) (sys.exit at "
                                     "import time, or argparse parsing toolhost's "
                                     "arguments?)")]) from None
    except BaseException as exc:  # a module's own BaseException at import (a class of its
        # own, GeneratorExit, CancelledError): said where, as an Exception is; it was an
        # internal error, and took a `serve --watch` server down on a reload
        import threading

        if isinstance(exc, KeyboardInterrupt) and \
                threading.current_thread() is threading.main_thread():
            raise  # a person's Ctrl-C (no signal reaches a reload's thread: there it is not)
        raise CompileError([_problem(tool, f"the '{kind.name}' backend could not bind this "
                                     f"tool: {type(exc).__name__} (a BaseException): "
                                     f"{exc}")]) from exc
    problems: list[Problem] = []
    wire = wire_name_problem(tool)
    if wire:
        problems.append(_problem(tool, wire))
    input_schema = merge_input_schema(binding.input_schema, tool)
    where = ".input_schema" if tool.input_schema is not None else ".params"
    if (tool.input_schema is not None and tool.backend.kind == "python"
            and binding.input_schema.get("additionalProperties") is False):
        # a declared schema the function cannot take would fail on every call
        takes = set(binding.input_schema.get("properties") or {})
        extra = sorted(set(input_schema.get("properties") or {}) - takes)
        if extra:
            problems.append(_problem(tool, f"the backend takes no argument(s) "
                                     f"{', '.join(map(repr, extra))} (it takes "
                                     f"{', '.join(sorted(takes)) or 'none'})", suffix=where))
        input_schema, open_problem = closed_schema(input_schema, takes)
        if open_problem:
            problems.append(_problem(tool, open_problem, suffix=where))
    problems += [_problem(tool, m, suffix=where) for m in schema_problems(input_schema)]
    output_schema = tool.output_schema if tool.output_schema is not None \
        else binding.output_schema
    if output_schema is not None:
        problems += [_problem(tool, m, suffix=".output_schema")
                     for m in schema_problems(output_schema, what="outputSchema")]
    stdout = tool.backend.options.get("stdout") or "text"
    if tool.output_schema is not None and tool.backend.kind == "command" \
            and stdout in ("text", "binary"):
        problems.append(_problem(
            tool, f"an output_schema promises structured content, which a command's "
            f"`stdout: {stdout}` output never has, so every call would fail (set `stdout: json` "
            "to read its output as JSON, or drop output_schema)", suffix=".output_schema"))
    if problems:
        raise CompileError(problems)
    # RE2 answers `pattern` and `format: regex`: a pattern can never hang a call. Built at
    # the first call: loading needs no jsonschema.
    return CompiledTool(
        name=tool.name,
        server=tool.server,
        description=tool.description or binding.description or tool.title or tool.name,
        input_schema=input_schema,
        validator=cast("Validator", LazyValidator(input_schema, formats=True)),
        invoke=binding.invoke,
        title=tool.title,
        output_schema=output_schema,
        output_validator=(None if output_schema is None
                          else cast("Validator", LazyValidator(output_schema))),
        annotations=dict(tool.annotations),
        timeout=tool.timeout if tool.timeout is not None else server.defaults.timeout,
        output=tool.output or binding.output,
        max_output_chars=tool.max_output_chars or DEFAULT_MAX_OUTPUT_CHARS,
        origin=tool.origin,
        defaults=declared_defaults(input_schema),
        integers=integer_normalizer(input_schema),
        redact=redact,
        redact_results=tool.redact_results,
        task_support=tool.task_support,
        shown=tool.shown,
        task_ask_first=tool.task_ask_first,
    )


@gc_paused
def compile_tools(config: HostConfig, kinds: Mapping[str, BackendKind] | None = None, *,
                  problems: list[Problem] | None = None, connect: bool = True,
                  pins: Any = None, cwd: str | None = None) -> CompiledTools:
    """Compile every tool of ``config``. ``kinds`` defaults to the built-in kinds plus those
    of the plugins the config enables. Imported servers (``mcp:``) are started and listed;
    with ``connect=False`` (an offline ``validate``) they offer no tools. Their tools are
    checked against the lock beside the config unless ``pins`` (a
    ``toolhost.gateway.pins.UpstreamPins``) says otherwise. A stdio upstream without an
    ``mcp.cwd`` runs in ``cwd`` (the directory the permission rules judge relative paths
    against), else in ``run.cwd``, else here.

    Raises one ``CompileError`` with a problem for every tool that cannot be built; with
    ``problems`` (``validate``), they are appended there and the tools that did compile are
    returned.
    """
    from toolhost.backends.templating import template_budget
    from toolhost.config.repotree import remembered

    # each tool asks where its declaring file lies: once per file; the templates of one
    # config are bounded in all (each tag costs compile time)
    with remembered(), template_budget():
        return _compile_all(config, kinds, problems, connect, pins,
                            cwd if cwd is not None else config.run.cwd)


def _compile_all(config: HostConfig, kinds: Mapping[str, BackendKind] | None,
                 problems: list[Problem] | None, connect: bool, pins: Any,
                 cwd: str | None) -> CompiledTools:
    collect = problems
    if kinds is None and not config.plugins:  # what activating no plugin gives, without
        from toolhost.backends.registry import builtin_kinds  # the plugin machinery

        kinds = builtin_kinds()
    elif kinds is None:
        from toolhost.plugins import kinds_for
        kinds = kinds_for(config.plugins)
    redact = config.redactor if config.secrets else None  # a Redactor: lists of lines too
    servers: dict[str, tuple[CompiledTool, ...]] = {}
    content: dict[str, ServerContent] = {}
    contexts: list[Closeable] = []
    upstreams: dict[str, Any] = {}
    # every layer's servers together: two files may each be fine and still collide
    problems = wire_name_problems(config.servers)
    imports = [s for s in config.servers.values() if s.upstream is not None
               and s.external is None] if connect else []
    started: dict[str, Any] = {}
    if imports:  # all at once: the start waits for the slowest, not for their sum
        from toolhost.gateway.start import start_upstreams

        started = start_upstreams(imports, redact=redact, cwd=cwd,
                                  pins=pins if pins is not None else _pins_beside(config))
    for name, server in config.servers.items():
        if server.external is not None or (server.upstream is not None and not connect):
            servers[name] = ()
            continue
        if server.upstream is not None:
            got = started[name]
            if isinstance(got, ConfigError):
                problems.extend(got.problems)
                servers[name] = ()
                continue
            if isinstance(got, BaseException):
                for other in started.values():  # the others started: stop them
                    if not isinstance(other, BaseException):
                        other[0].connection.close()
                raise got
            imported, shared = got
            contexts.append(imported)
            upstreams[name] = imported
            servers[name] = imported.tools
            if shared or shared.promised:  # resources and prompts (or a pending one's promise)
                content[name] = shared
            continue
        ctx = BindContext(server)
        contexts.append(ctx)
        tools: list[CompiledTool] = []
        for tool in server.tools.values():
            try:
                tools.append(compile_tool(tool, server, kinds, ctx, redact=redact))
            except ConfigError as exc:
                problems.extend(exc.problems)
        servers[name] = tuple(tools)
        if server.resources or server.prompts:
            try:
                content[name] = compile_content(server, kinds, ctx, compile_tool)
            except ConfigError as exc:
                problems.extend(exc.problems)
    if problems:  # a tool of a fetched fragment: its cache path names no repository
        from toolhost.config.repolinks import name_checkouts

        problems = name_checkouts(problems)
    if problems and collect is None:
        for closing in contexts:  # imported servers started before the failure stop now
            if hasattr(closing, "connection"):
                closing.connection.close()
        raise CompileError(problems)
    if collect is not None:
        collect.extend(problems)
    return CompiledTools(servers, tuple(contexts), content, upstreams)


def _pins_beside(config: HostConfig) -> Any:
    """The upstream pins of the lock beside the config's main file (none: nothing checked),
    and of the lock beside a user's or local file for the servers that file declares."""
    from toolhost.lockfile.personal import pins_for

    return pins_for(config.files)
