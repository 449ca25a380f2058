"""An upstream's reshaped tools as ``CompiledTool``s: validated, timed out, cut and redacted
like any other tool, with every call forwarded to the upstream."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import anyio

from toolhost.backends.base import CallContext
from toolhost.compile.declared import declared_defaults
from toolhost.compile.schema_meta import metaschema_problem
from toolhost.compile.schema_safety import schema_problem
from toolhost.compile.shaping import cut_text
from toolhost.compile.tool import DEFAULT_MAX_OUTPUT_CHARS, CompiledTool
from toolhost.compile.validators import LazyValidator
from toolhost.config.model import ServerConfig
from toolhost.errors import CompileError, Problem
from toolhost.excerpt import cut
from toolhost.gateway.bounds import bound_blocks
from toolhost.gateway.client import CallStop, UpstreamConnection, UpstreamError
from toolhost.gateway.current import Current
from toolhost.gateway.elicit_pass import Asker
from toolhost.gateway.output_check import output_problem
from toolhost.gateway.pins import UpstreamPins
from toolhost.gateway.reshape import Imported, reshape_tools
from toolhost.gateway.spec import UpstreamSpec
from toolhost.gateway.waiting import CALL_FACTOR, notice_after, still_waiting
from toolhost.results import ToolResult
from toolhost.shown import TooDeep, hidden_name, shown, shown_answer

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = ["Listing", "UpstreamTools", "compile_upstream"]

log = logging.getLogger("toolhost.gateway")


class Listing(NamedTuple):
    """One listing of an upstream, reshaped: the tools to serve and what is wrong with it.
    ``drifted``: some of ``problems`` are definitions that differ from the lock.
    ``sources``: the listed definition of each tool served, by upstream name; ``at``: the
    upstream's tool-list announcements before it was taken (``toolhost.gateway.current``)."""

    tools: tuple[CompiledTool, ...]
    problems: list[Problem]
    drifted: bool
    sources: Mapping[str, Mapping[str, Any]] = {}
    at: int = 0


class UpstreamTools:
    """The tools of one upstream server and the connection behind them (close it).

    ``relist`` lists the upstream again under the same rules (include/exclude, reshaping,
    the lock): what ``toolhost.gateway.refresh`` does when the upstream's tools change.
    """

    def __init__(self, server: ServerConfig, connection: UpstreamConnection, *,
                 redact: Callable[[str], str] | None = None,
                 pins: UpstreamPins | None = None) -> None:
        self.server = server
        self.connection = connection
        self.redact = redact
        self.pins = pins
        self.tools: tuple[CompiledTool, ...] = ()
        # the definitions served now: a call checks its tool against them as it is sent
        self.current = Current(lambda: connection.watch.tools.count)
        # why it is not available yet ("" once it is): a ``required: false`` upstream that
        # could not start (``toolhost.gateway.pending``)
        self.pending = ""

    def build(self, listed: list[dict[str, Any]], *, changed: bool = False,
              at: int = 0) -> Listing:
        """Reshape ``listed`` and check it against the lock. ``changed``: a list the upstream
        changed while serving (a reshaped tool that vanished is gone, not an error); ``at``:
        the upstream's announcements before it was listed."""
        spec, name = self.server.upstream, self.server.name
        imported, problems = reshape_tools(spec, listed, name, missing_ok=changed)
        drift: list[Problem] = []
        if self.pins is not None:
            # exactly what is served: of a tool listed twice, the copy ``reshape_tools`` took
            drift = self.pins.check(name, spec.origin,
                                    {i.upstream_name: i.source for i in imported})
        tools = []
        sources: dict[str, Mapping[str, Any]] = {}
        for item in imported:
            why = _unusable(item)
            if why:
                log.warning("%s: upstream tool %s is left out: %s", name,
                            cut(ascii(item.upstream_name), 300), why)
                continue
            tools.append(_compiled(item, self.server, spec, self.connection, self.redact,
                                   self.current))
            sources[item.upstream_name] = item.source
        return Listing(tuple(tools), problems + drift, bool(drift), sources, at)

    def serve(self, listing: Listing | None, at: int = 0) -> None:
        """Serve ``listing``'s tools from now on (None: none, withdrawn after ``at``
        announcements)."""
        if listing is None:
            self.tools = ()
            self.current.serve({}, at)
        else:
            self.tools = listing.tools
            self.current.serve(listing.sources, listing.at)

    def relist(self) -> Listing:
        """List the upstream again (blocking: call it in a worker thread), reading the lock
        again first (it may have been updated meanwhile). UpstreamError when unreachable."""
        if self.pins is not None:
            self.pins.reread()
        at = self.current.announced()  # (before: news during the listing is news after it)
        return self.build(self.connection.list_tools(), changed=True, at=at)

    async def aclose(self) -> None:
        """Close the connection (and end the upstream process)."""
        await anyio.to_thread.run_sync(self.connection.close)


def compile_upstream(server: ServerConfig, *,
                     redact: Callable[[str], str] | None = None,
                     pins: UpstreamPins | None = None) -> UpstreamTools:
    """Connect to ``server``'s upstream, list and reshape its tools. CompileError (located at
    the ``mcp:`` block or the reshaping entry) when it cannot start, a reshape is wrong, or an
    imported tool's definition differs from the lock (``pins``)."""
    spec: UpstreamSpec = server.upstream
    connection = UpstreamConnection(spec, server.name)
    at = connection.watch.tools.count
    try:
        listed = connection.list_tools()
    except UpstreamError as exc:
        connection.close()
        raise CompileError([spec.origin.problem(str(exc), hint=_start_hint(spec))]) from None
    upstream = UpstreamTools(server, connection, redact=redact, pins=pins)
    listing = upstream.build(listed, at=at)
    if listing.problems:
        connection.close()
        raise CompileError(listing.problems)
    upstream.serve(listing)
    return upstream


def _unusable(item: Imported) -> str:
    """Why an upstream tool's schemas cannot be used (checked here, once per listing, never
    per call: see toolhost.compile.schema_safety), or ""."""
    for key, schema in (("inputSchema", item.input_schema), ("outputSchema", item.output_schema)):
        if schema is None:
            continue
        why = schema_problem(schema)  # (every pattern one the regex engine honours, too)
        if why:
            return f"its {key} cannot be used: {why}"
        # node by node, as a config's schema is: checked whole, a hostile upstream's anyOf
        # of 20,000 $ref items took jsonschema 13 s, at every listing
        found = metaschema_problem(schema)
        if found is not None:
            return (f"its {key} is not valid JSON Schema (at {cut(found[0], 200) or '(root)'}: "
                    f"{cut(found[1], 300)})")
    hidden = hidden_name(item.input_schema)  # (the model reads and sends these names)
    if hidden is not None:
        return (f"its inputSchema names a property '{cut(hidden, 200)}' holding characters "
                "a person cannot see")
    return ""


def _compiled(item: Imported, server: ServerConfig, spec: UpstreamSpec,
              connection: UpstreamConnection,
              redact: Callable[[str], str] | None, current: Current) -> CompiledTool:
    fixed = dict(item.fixed)
    upstream_name = item.upstream_name
    timeout = connection.request_deadline  # the config's timeout, or a default: never none

    output = LazyValidator(item.output_schema) if item.output_schema is not None else None

    def call(sent: dict[str, Any], asker: Asker | None, stop: CallStop) -> dict[str, Any]:
        """In a worker thread: the call, and the check of its answer (output_check)."""
        alike = _alike_inside(sent)
        if alike:
            return {"content": [{"type": "text", "text": _alike_said(alike, item.name)}],
                    "isError": True}
        with still_waiting(lambda waited: (
                f"still waiting for upstream server '{connection.server}' to answer the call "
                f"of {upstream_name!r} ({waited:.0f}s so far; timeout {timeout:g}s)"),
                notice_after() * CALL_FACTOR):
            answer = connection.call_tool(upstream_name, sent, timeout, asker, stop, unsent)
        try:  # (hiding characters written visibly, then checked: what is sent fits)
            answer = shown_answer(answer)
        except TooDeep as exc:
            answer, why = {}, f"it cannot be shown: {exc}"
        else:
            why = output_problem(answer, output) if output is not None else ""
        if not why:
            return answer
        said = (f"upstream server '{connection.server}' answered the call of "
                f"{upstream_name!r} with a result that does not fit: {why}")
        log.warning("%s", said)
        return {"content": [{"type": "text", "text": said}], "isError": True}

    def unsent() -> str:
        """Why the call is not sent: its tool is no longer the one served (gateway.current)."""
        if current.stale(upstream_name, item.source, connection.list_tools):
            return _stale_said(connection.server, item.name)
        return ""

    props = item.input_schema.get("properties")
    known = frozenset(props) if isinstance(props, Mapping) else frozenset()
    folded = {_fold(name): name for name in [*fixed, *known]}

    async def invoke(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        given = sorted(k for k in fixed if k in arguments)
        if given:  # not the model's to choose, and not silently overridden either
            return ToolResult.error(f"argument(s) {', '.join(map(repr, given))} of "
                                    f"'{item.name}' are fixed by the config; leave them out")
        alike = _alike(arguments, known, folded)
        if alike:
            return ToolResult.error(_alike_said(alike, item.name))
        sent = {**arguments, **fixed}
        # an elicitation of the upstream during this call reaches this call's client, and
        # none once the call ended (toolhost.gateway.elicit_pass; only when passed on)
        asker = Asker.here(timeout, connection.server) if spec.elicitation else None
        stop = CallStop()  # a call its client cancels is cancelled upstream, not abandoned
        try:
            answer = await anyio.to_thread.run_sync(call, sent, asker, stop,
                                                    abandon_on_cancel=True)
        except UpstreamError as exc:  # (its message may hold the upstream's words)
            return ToolResult.error(shown(str(exc)))
        except anyio.get_cancelled_exc_class():
            stop.cancel()
            raise
        finally:
            if asker is not None:
                asker.close()
        # _meta dropped, resource links cut; embedded resources count towards the output cut
        result = ToolResult.from_mcp({**answer, "content": bound_blocks(answer.get("content"))})
        return cut_text(result, DEFAULT_MAX_OUTPUT_CHARS, resources=True)

    return CompiledTool(
        name=item.name, server=server.name, description=item.description,
        input_schema=item.input_schema,
        validator=cast("Validator", LazyValidator(item.input_schema, formats=True)),
        invoke=invoke, title=item.title, annotations=item.annotations, timeout=timeout,
        output="text", max_output_chars=DEFAULT_MAX_OUTPUT_CHARS, origin=spec.origin,
        defaults=declared_defaults(item.input_schema), redact=redact)


def _alike(arguments: Mapping[str, Any], known: frozenset[str],
           folded: Mapping[str, str]) -> tuple[str, str] | None:
    """An argument the schema does not name (its open ``additionalProperties`` let it
    through) that differs only in case from one it names, a fixed one or another given one,
    as (it, that one), or a ``__proto__`` (``_PROTO``) as (it, ""); None when there is none.
    An upstream whose JSON binding
    ignores case (Go's ``encoding/json``, .NET's web defaults) reads ``Query`` as ``query``:
    sent beside a ``query`` the rules judged, or instead of a fixed ``repo``, it would be
    what the upstream acts on, unjudged."""
    seen = dict(folded)
    for key in arguments:
        if key == _PROTO:
            return key, ""
        if key in known:
            continue
        fold = _fold(key)
        other = seen.get(fold)
        if other is not None and other != key:
            return key, other
        seen[fold] = key
    return None


def _fold(key: str) -> str:
    """``key`` as a JSON binding that ignores case may read it: upper-cased first (.NET's
    ``OrdinalIgnoreCase`` compares simple upper cases, so a dotless ``ıd`` is ``ID``, which
    ``casefold`` alone keeps apart), then case-folded (Go's ``EqualFold``: ``ſ`` is ``s``,
    the Kelvin sign is ``k``)."""
    return key.upper().casefold()


# JavaScript's ``Object.assign``/merges read a key of this name as the object's prototype:
# an upstream merging its defaults with ``Object.assign({limit: 20}, args)`` would then read
# ``args.query`` from inside it, a value the rules never judged (they saw no ``query``)
_PROTO = "__proto__"


def _alike_said(alike: tuple[str, str], tool: str) -> str:
    if not alike[1]:
        return (f"argument {cut(alike[0], 60)!r} of '{tool}' is a key named '__proto__': "
                "an upstream written in JavaScript may read what it holds as arguments the "
                "rules did not judge (Object.assign takes it as the prototype); leave it out")
    return (f"argument {cut(alike[0], 60)!r} of '{tool}' differs from {cut(alike[1], 60)!r} "
            "only in case: an upstream may read it as that one, which the rules did not "
            "judge; send each argument once, as the schema names it")


def _stale_said(server: str, tool: str) -> str:
    return (f"upstream server '{server}' changed or withdrew the tool '{tool}' after this call "
            "was decided, so it was not sent (the call was judged against the tool as it "
            "was); call it again to have it judged against the tool as it is now")


def _alike_inside(arguments: Mapping[str, Any]) -> tuple[str, str] | None:
    """Two keys of one object inside an argument that differ only in case (see ``_alike``),
    or a ``__proto__`` key (``_PROTO``: as (it, "")), nested keys written ``a.b``; None when
    there are none. In the call's worker thread: an
    argument may hold up to TOOLHOST_MAX_ARGUMENT_VALUES values."""
    todo: list[tuple[str, Any]] = [(str(k), v) for k, v in arguments.items()]
    while todo:  # (the arguments were counted, and their size bounded, before the call)
        path, value = todo.pop()
        if isinstance(value, list):
            todo += [(f"{path}[{i}]", item) for i, item in enumerate(value)]
        elif isinstance(value, Mapping):
            inner: dict[str, str] = {}
            for key in value:
                if key == _PROTO:
                    return f"{path}.{key}", ""
                fold = _fold(str(key))
                if fold in inner:
                    return f"{path}.{key}", f"{path}.{inner[fold]}"
                inner[fold] = str(key)
            todo += [(f"{path}.{k}", v) for k, v in value.items()]
    return None


def _start_hint(spec: UpstreamSpec) -> str:
    if spec.command:
        return (f"check that `{spec.command[0]}` runs here and speaks MCP on stdio "
                "(`toolhost validate --connect` tries it)")
    return "check the URL and headers (`toolhost validate --connect` tries it)"
