"""``tools/call``: from a request's params to its result, the part of the MCP core that every
tool call runs (``McpServer`` inherits it; the dispatch table is in ``toolhost.mcp.server``).

A call's context is built for what the call reads. Its ``ctx.log`` (the logger that also
reaches the client, ``toolhost.mcp.client_log``) is made the first time a tool, a guard or a
backend reads it, with the threshold and the event loop's thread the request had when it
arrived: most calls never log, and making one per call cost about a microsecond. The fields,
their values and what a tool sees are the same as before.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import threading
from collections.abc import Awaitable, Callable, Hashable, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from toolhost.backends.base import CALL_LOG, CANNOT_ROOTS, CallContext
from toolhost.compile.tool import CompiledTool
from toolhost.excerpt import cut
from toolhost.failures import log_failure
from toolhost.limits import Limits
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp import wire
from toolhost.mcp.calls import (
    Cancel,
    ProgressSender,
    cancel_scope,
    claim_progress,
    id_in_use,
    is_mapping,
    may_exceed,
    progress_sender,
    send_elicit,
    send_roots,
    send_sample,
)
from toolhost.mcp.client_log import LEVELS, ClientLog
from toolhost.mcp.client_requests import (
    CallChannel,
    Channel,
    ClientChannel,
    RoundTrip,
    client_channel,
    current_channel,
    input_required_in,
)
from toolhost.mcp.jsonrpc import RpcError
from toolhost.mcp.round_trip import decode_state, encode_state
from toolhost.mcp.session_flow import SessionFlows, continued
from toolhost.mcp.toolset import ToolSet
from toolhost.redaction.flow import Continued
from toolhost.results import ToolResult

__all__ = ["CALL_START", "TOOL_USE_ID_META_KEY", "CallStart", "Guard", "McpCallContext",
           "ToolCalls", "content_context", "end_of_call"]


class CallStart:
    """Whether the tool of a ``tools/call`` has started (its guard let it run). A caller
    that must tell a call cut short from one still waiting on its guard (a permission
    question) sets one in ``CALL_START`` around the call; ``McpServer`` marks it. A caller
    that answered the call already (``stopped``: the host is stopping) keeps its tool from
    starting at all, whatever the guard says after."""

    __slots__ = ("started", "stopped")

    def __init__(self) -> None:
        self.started = False
        self.stopped = False


CALL_START: ContextVar[CallStart | None] = ContextVar("call_start", default=None)

log = logging.getLogger("toolhost.mcp")
_call_log = logging.getLogger("toolhost.call")

Guard = Callable[[CompiledTool, Mapping[str, Any], CallContext],
                 Awaitable[ToolResult | None]]
"""Runs before each tools/call (with the call's arguments and context); a returned result is
sent instead of calling the tool."""

TOOL_USE_ID_META_KEY = "claudecode/toolUseId"  # the Claude CLI's id of the model's tool_use


class _ClientLogOnFirstRead:
    """``McpCallContext.log``: the call's ``ClientLog``, made when first read (a non-data
    descriptor: once made, it is the instance's own attribute, read like any field)."""

    def __get__(self, ctx: Any, owner: Any = None) -> logging.Logger | ClientLog:
        if ctx is None:
            return _call_log
        fields = ctx.__dict__
        notify, level, name, loop_thread, *flow = fields["_log_to_client"]
        made = ClientLog(_call_log, notify, level, name=name, loop_thread=loop_thread,
                         flow=flow[0] if flow else None)
        # two threads reading it first at once (a sync tool's and the loop) get the same one
        return fields.setdefault("log", made)  # type: ignore[no-any-return]


class _RootsThroughElicitsChannel:
    """``McpCallContext.roots``: ``ctx.roots()`` asks through the channel ``ctx.elicit`` is
    bound to (the transport's, the round trip's or the task's), made at first read: nothing
    is made for a call that does not ask, and a sync tool's thread reads it as the loop
    does."""

    def __get__(self, ctx: Any, owner: Any = None) -> Callable[..., Awaitable[Any]]:
        if ctx is None:
            return functools.partial(send_roots, None)
        fields = ctx.__dict__
        elicit = fields.get("elicit")
        bound = isinstance(elicit, functools.partial) and elicit.func is send_elicit
        if not bound:
            # no client to ask at all (``toolhost run``: the CLI has no channel): the same
            # refusal ctx.elicit gives, not serve's "must accept text/event-stream"
            return fields.setdefault("roots", CANNOT_ROOTS)  # type: ignore[no-any-return]
        channel = elicit.args[0] if elicit.args else None
        # kept once made (a non-data descriptor: then the instance's own attribute), so a
        # context equals its dataclasses.replace copy
        return fields.setdefault(  # type: ignore[no-any-return]
            "roots", functools.partial(send_roots, channel))


class McpCallContext(CallContext):
    """The ``CallContext`` of a tools/call served by the MCP core: the same frozen fields (a
    ``dataclasses.replace`` of it is an ordinary copy), its ``log`` made at first read."""

    log = _ClientLogOnFirstRead()
    roots = _RootsThroughElicitsChannel()

    @classmethod
    def made(cls, fields: dict[str, Any]) -> McpCallContext:
        """A context of ``fields`` (``log``, or what makes it: ``_log_to_client``) and the
        others' defaults, in the instance as the frozen dataclass's ``__init__`` sets them,
        without its one ``object.__setattr__`` per field (~1 us a call)."""
        ctx = object.__new__(cls)
        values = _DEFAULTS.copy()  # in the instance, as __init__ puts them: a default that
        values.update(fields)  # is a function is never read through the class as a method
        object.__setattr__(ctx, "__dict__", values)
        return ctx

    def log_made(self) -> ClientLog | None:
        """The call's ``ClientLog`` if something read ``log``, else None (nothing to flush)."""
        made = self.__dict__.get("log")
        return made if isinstance(made, ClientLog) else None


def content_context(request_id: Any, name: str, level: Any, notify: Any, modern: bool,
                    meta: Any = None, round_trip: RoundTrip | None = None,
                    tokens: tuple[set[tuple[Hashable, Any]], Hashable] | None = None,
                    flow: Continued | None = None) -> McpCallContext:
    """The context of a resources/read, prompts/get or completion/complete whose python
    function (or command) runs as a hidden tool: ``ctx.log`` reaches the client as a
    tool's does (``level``: the peer's, or None for none), under the logger ``name``;
    ``ctx.progress`` as ``notifications/progress`` when the request's ``_meta`` (``meta``)
    has a ``progressToken``; and over a transport that can carry requests to the client
    (the 2025 revisions), ``ctx.elicit`` and ``ctx.sample`` ask it, as a tool's do; in the
    stateless era they ask through ``round_trip`` (an ``InputRequiredResult``), when given.
    ``tokens``: the server's progress tokens in flight and this request's peer (a token in
    use is refused, ``claim_progress``); the caller closes ``ctx.progress`` once answered.
    ``flow``: what its log lines and progress messages are redacted after (the session's)."""
    fields: dict[str, Any] = {"call_id": str(request_id), "tool": name}
    if notify is None or level not in LEVELS:
        fields["log"] = CALL_LOG
    else:
        fields["_log_to_client"] = (notify, str(level), name, threading.get_ident(), flow)
    token: Any = meta.get("progressToken") if isinstance(meta, Mapping) else None
    if notify is not None and rpc.is_valid_id(token):  # ProgressToken: string | number
        fields["progress"] = (progress_sender(notify, token) if tokens is None
                              else claim_progress(tokens[0], tokens[1], notify, token, flow))
    channel = round_trip if modern else for_this_call(current_channel())
    if channel is not None:
        fields["elicit"] = functools.partial(send_elicit, channel)
        fields["sample"] = functools.partial(send_sample, channel)
    return McpCallContext.made(fields)


def for_this_call(channel: Channel | None) -> Channel | None:
    """The transport's channel as one request's own (``CallChannel``), closed by
    ``end_of_call``."""
    return CallChannel(channel) if isinstance(channel, ClientChannel) else channel


def end_of_call(ctx: McpCallContext) -> None:
    """The request ``ctx`` serves is answered: its ``ctx.progress`` sends nothing more (its
    token is free again) and its ``ctx.elicit``, ``ctx.sample`` and ``ctx.roots`` ask no
    one (what the tool left running reaches no client)."""
    fields = ctx.__dict__
    progress = fields.get("progress")
    if isinstance(progress, ProgressSender):
        progress.close()
    elicit = fields.get("elicit")
    if isinstance(elicit, functools.partial) and elicit.args \
            and isinstance(elicit.args[0], CallChannel):
        elicit.args[0].close()


_DEFAULTS = {f.name: f.default for f in dataclasses.fields(CallContext)
             if f.name not in ("log", "roots")}
if any(value is dataclasses.MISSING for value in _DEFAULTS.values()):  # pragma: no cover
    raise TypeError("McpCallContext.made needs a default for every CallContext field")


class ToolCalls:
    """``McpServer``'s tools/call method and what it needs of the server."""

    _tools: ToolSet
    _inflight: dict[tuple[Hashable, Any], Cancel]
    _progress_tokens: set[tuple[Hashable, Any]]  # (peer, token) of requests in flight
    _log_levels: dict[Hashable, str]
    _modern_meta: dict[str, Any]
    _flows: SessionFlows
    guard: Guard | None
    limits: Limits
    unavailable: Callable[[str], str | None] | None

    if TYPE_CHECKING:  # toolhost.mcp.tasks_methods.TaskCalls
        def _task_wanted(self, tool: CompiledTool, meta: Any) -> bool: ...
        async def _start_task(self, tool: CompiledTool, arguments: Mapping[str, Any],
                              request_id: Any, params: Mapping[str, Any],
                              meta: Any) -> dict[str, Any]: ...

    def _modern(self, result: dict[str, Any]) -> dict[str, Any]:
        result["resultType"] = "complete"
        result["_meta"] = self._modern_meta
        return result

    async def _tools_call(self, request_id: Any, params: Mapping[str, Any], meta: Any,
                          notify: Any, peer: Hashable, modern: bool,
                          cancel: Cancel | None = None) -> dict[str, Any]:
        name = params.get("name")
        if not isinstance(name, str):
            raise RpcError(rpc.INVALID_PARAMS, "Invalid params: tools/call needs a string 'name'")
        tool = self._tools.by_name.get(name)
        if tool is None:
            why = self.unavailable(name) if self.unavailable is not None else None
            if why:  # a tool of an imported server that has not started yet: not served
                out = ToolResult.error(why).to_mcp()
                return self._modern(out) if modern else out
            raise RpcError(rpc.INVALID_PARAMS, f"Unknown tool: {cut(repr(name), 100)}")
        arguments = params.get("arguments")
        if type(arguments) is dict:  # parsed JSON: the ABC's isinstance only for the rest
            if arguments:
                self._check_size(name, arguments)
        elif arguments is None:
            arguments = {}
        elif not isinstance(arguments, Mapping):
            raise RpcError(rpc.INVALID_PARAMS,
                           f"Invalid params: 'arguments' of tool {name!r} must be an object")
        elif arguments:
            self._check_size(name, arguments)
        if modern and tool.task_support is not None and self._task_wanted(tool, meta):
            return await self._start_task(tool, arguments, request_id, params, meta)
        fields: dict[str, Any] = {"call_id": str(request_id), "tool": tool.wire_name}
        has_meta = is_mapping(meta)
        # 2025 revisions: the level of logging/setLevel (info until set); 2026-07-28: only a
        # request that opts in with _meta's logLevel hears log lines (SEP-2577)
        level = (meta.get(rpc.LOG_LEVEL_META_KEY) if modern and has_meta
                 else self._log_levels.get(peer, "info"))
        if notify is None or level not in LEVELS:
            fields["log"] = CALL_LOG
        else:  # made when read (McpCallContext), on this thread's terms
            fields["_log_to_client"] = (notify, str(level), tool.name, threading.get_ident(),
                                        self._flows.of(peer))
        # Requests to the client: the transport's channel (serve, 2025 revisions), or in the
        # stateless era a round trip through InputRequiredResult (toolhost.mcp.round_trip)
        channel = (self._round_trip(params, meta) if modern
                   else for_this_call(current_channel()))
        if channel is not None:
            fields["elicit"] = functools.partial(send_elicit, channel)
            fields["sample"] = functools.partial(send_sample, channel)
        if has_meta:
            tool_use_id = meta.get(TOOL_USE_ID_META_KEY)
            if type(tool_use_id) is str:
                fields["tool_use_id"] = tool_use_id
            token = meta.get("progressToken")
            if notify is not None and rpc.is_valid_id(token):  # ProgressToken: string | number
                # last before the try below (whose finally frees the token): nothing raises
                # between the claim and it
                fields["progress"] = claim_progress(self._progress_tokens, peer, notify,
                                                    token, self._flows.of(peer))
        ctx = McpCallContext.made(fields)
        try:
            if modern:
                with client_channel(channel):
                    out = await self._call_in_scope(tool, arguments, ctx, peer, request_id,
                                                    modern, cancel)
                if isinstance(channel, RoundTrip) and channel.refused and out.get("isError"):
                    # it failed having asked for what the client did not declare
                    raise _missing_capability(channel.refused)
                return out
            # the 2025 revisions' channel is the transport's, already current
            return await self._call_in_scope(tool, arguments, ctx, peer, request_id, modern,
                                             cancel)
        except BaseException as stopped:  # InputRequired, or a group of them (asked at once)
            need = input_required_in(stopped)
            if need is None:
                raise
            return {"resultType": "input_required",
                    "inputRequests": need.requests,
                    "requestState": encode_state(need.answered), "_meta": self._modern_meta}
        finally:
            end_of_call(ctx)
            client_log = ctx.log_made()
            if client_log is not None and client_log.pending:
                await client_log.flush()

    def _round_trip(self, params: Mapping[str, Any], meta: Any) -> RoundTrip:
        caps = meta.get(rpc.CLIENT_CAPABILITIES_META_KEY) if isinstance(meta, Mapping) else None
        try:
            answered = decode_state(params.get("requestState"), params.get("inputResponses"),
                                    self.limits)
        except ValueError as exc:
            raise RpcError(rpc.INVALID_PARAMS, f"Invalid params: {exc}") from None
        return RoundTrip(caps if isinstance(caps, Mapping) else {}, answered)

    async def _call_in_scope(self, tool: CompiledTool, arguments: Mapping[str, Any],
                             ctx: CallContext, peer: Hashable, request_id: Any,
                             modern: bool, cancel: Cancel | None) -> dict[str, Any]:
        if peer is None:
            out = continued(self._flows.of(None), await self._run(tool, arguments, ctx),
                            mask=tool.redact_results).to_mcp()
            return self._modern(out) if modern else out
        key = (peer, request_id)
        inflight = self._inflight
        if key in inflight:
            raise id_in_use(request_id)
        if cancel is not None:  # the transport's scope, shared (see ``handle``): no scope here
            inflight[key] = cancel
            try:
                result = await self._run(tool, arguments, ctx)
            finally:
                if inflight.get(key) is cancel:
                    del inflight[key]
        else:
            with cancel_scope() as scope:
                inflight[key] = scope
                try:
                    result = await self._run(tool, arguments, ctx)
                finally:
                    if inflight.get(key) is scope:
                        del inflight[key]
            if scope.cancelled_caught:
                raise RpcError(rpc.REQUEST_CANCELLED, rpc.CANCELLED_MESSAGE)
        # read after what this peer was sent before (a secret cut between two results)
        out = continued(self._flows.of(peer), result,
                        mask=tool.redact_results or result.is_error).to_mcp()
        return self._modern(out) if modern else out

    def _check_size(self, name: str, arguments: Mapping[str, Any]) -> None:
        limit = self.limits.max_argument_bytes
        try:
            # A cheap bound first: JSON text is never shorter than the repr-free estimate
            # of its strings, so small arguments skip the encoding entirely.
            size = len(wire.encode(arguments)) if may_exceed(arguments, limit) else 0
        except (TypeError, ValueError) as exc:
            raise RpcError(rpc.INVALID_PARAMS, f"Invalid params: the arguments of tool "
                           f"{name!r} are not JSON ({cut(str(exc), 100)})") from None
        if size > limit:
            raise RpcError(rpc.INVALID_PARAMS, f"Invalid params: the arguments of tool {name!r} "
                           f"are {size:,} bytes of JSON; the limit is {limit:,}")

    async def _run(self, tool: CompiledTool, arguments: Mapping[str, Any],
                   ctx: CallContext) -> ToolResult:
        if self.guard is not None:
            try:
                verdict = await self.guard(tool, arguments, ctx)
            except Exception as exc:  # fail closed: a broken guard never lets a call through
                log_failure(log, f"permission guard for {tool.wire_name}", exc)
                return ToolResult.error(f"Permission check for tool '{tool.name}' failed: "
                                        f"{type(exc).__name__}: {cut(str(exc))}")
            if verdict is not None:
                return verdict
        start = CALL_START.get()
        if start is not None:
            if start.stopped:  # answered while its guard decided: it must not run now
                return ToolResult.error(f"The call of tool '{tool.name}' was not started: "
                                        "the host is stopping.")
            start.started = True
        return await tool.call(arguments, ctx)


def _missing_capability(refused: Mapping[str, Any]) -> RpcError:
    """The 2026-07-28 answer to a call that failed after asking the client for what its
    ``clientCapabilities`` did not declare: -32021 (HTTP 400) naming them, so the client can
    declare them and call again."""
    names = ", ".join(sorted(refused))
    return RpcError(rpc.MISSING_CLIENT_CAPABILITY,
                    f"Missing required client capability: {names} (declare it in "
                    f"_meta['{rpc.CLIENT_CAPABILITIES_META_KEY}'] and call again)",
                    {"requiredCapabilities": {name: {} for name in sorted(refused)}})
