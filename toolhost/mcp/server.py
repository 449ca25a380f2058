"""The transport-free MCP server: one JSON-RPC message in, one response (or nothing) out.

Every transport (the CLI control session, ``toolhost serve`` over stdio or HTTP, the SDK
adapter) feeds messages to :meth:`McpServer.handle` and writes back what it returns. Both
MCP eras are served by the same object: a request whose ``params._meta`` names
``io.modelcontextprotocol/protocolVersion`` follows the stateless 2026-07-28 rules (results
carry ``resultType``), anything else follows the 2025-11-25 handshake rules.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from typing import Any, Protocol, TypeGuard

from toolhost.backends.base import CallContext
from toolhost.compile.content import ServerContent
from toolhost.compile.tool import CompiledTool
from toolhost.excerpt import cut
from toolhost.failures import log_failure
from toolhost.limits import DEFAULT_LIMITS, Limits
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp import wire
from toolhost.mcp.calls import (
    NO_SCOPE,
    Notify,
    cancel_scope,
    may_exceed,
    progress_sender,
    send_elicit,
    send_sample,
)
from toolhost.mcp.client_log import LEVELS, ClientLog
from toolhost.mcp.client_requests import (
    InputRequired,
    RoundTrip,
    client_channel,
    current_channel,
)
from toolhost.mcp.content import MAX_URI_CHARS, ContentMethods, MethodError
from toolhost.mcp.content_guards import PromptGuard, ReadGuard, completion_readable, prompt_allowed
from toolhost.mcp.round_trip import decode_state, encode_state
from toolhost.mcp.toolset import BadCursor, ToolSet
from toolhost.redaction import scrub
from toolhost.results import ToolResult

__all__ = ["Guard", "McpServer", "Notify", "PromptGuard", "ReadGuard"]

log = logging.getLogger("toolhost.mcp")
_call_log = logging.getLogger("toolhost.call")

Guard = Callable[[CompiledTool, Mapping[str, Any], CallContext],
                 Awaitable[ToolResult | None]]
"""Runs before each tools/call (with the call's arguments and context); a returned result is
sent instead of calling the tool."""

TOOL_USE_ID_META_KEY = "claudecode/toolUseId"  # the Claude CLI's id of the model's tool_use



class _RpcError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


class McpServer:
    """One MCP server (a name, a version and a tool set), independent of any transport.

    ``handle`` is safe to call concurrently; a transport runs each request in its own task.
    Results it returns share pre-built dicts: serialise them, never mutate them.
    """

    def __init__(self, name: str, version: str, tools: Sequence[CompiledTool], *,
                 instructions: str | None = None, guard: Guard | None = None,
                 page_size: int = 100, content: ServerContent | None = None,
                 limits: Limits = DEFAULT_LIMITS) -> None:
        self.name = name
        self.limits = limits
        self.version = version
        self.instructions = instructions
        self.guard = guard
        self.page_size = page_size
        self.server_info: dict[str, Any] = {"name": name, "version": version}
        self.capabilities: dict[str, Any] = {"tools": {"listChanged": True}}
        self._modern_meta = {rpc.SERVER_INFO_META_KEY: self.server_info}
        # ttlMs/cacheScope are required on 2026-07-28 list results; 0 because a reload may
        # change the list at any time.
        self._modern_list_extra = {"resultType": "complete", "ttlMs": 0,
                                   "cacheScope": "private", "_meta": self._modern_meta}
        self._tools = ToolSet(tools, page_size, self._modern_list_extra)
        # In-flight tools/call cancel scopes (or the transport's cancels) by (peer, JSON-RPC
        # id), for notifications/cancelled.
        self._inflight: dict[tuple[Hashable, Any], Cancel] = {}
        self._handlers: dict[str, Callable[..., Awaitable[dict[str, Any]]]] = {
            "initialize": self._initialize,
            "ping": self._ping,
            "tools/list": self._tools_list,
            "tools/call": self._tools_call,
            "server/discover": self._discover,
            "logging/setLevel": self._set_level,
        }
        self.capabilities["logging"] = {}
        # logging/setLevel per peer (connection); "info" until a client says otherwise
        self._log_levels: dict[Hashable, str] = {}
        self._max_peers = 10_000  # peers whose settings are remembered (see max_peers)
        self._content = ContentMethods(content or ServerContent(), page_size)
        self._content_capabilities: tuple[str, ...] = ()
        self.read_guard: ReadGuard | None = None
        self.prompt_guard: PromptGuard | None = None
        # a tool name this server does not list -> why (an imported server that is not
        # available yet: ``toolhost.gateway.pending``): a tool error instead of Unknown tool
        self.unavailable: Callable[[str], str | None] | None = None
        self.set_content(content)

    # -- tool set ---------------------------------------------------------------------

    @property
    def tools(self) -> tuple[CompiledTool, ...]:
        return self._tools.tools

    def get_tool(self, name: str) -> CompiledTool | None:
        return self._tools.by_name.get(name)

    def set_tools(self, tools: Sequence[CompiledTool]) -> bool:
        """Swap the tool set atomically; return whether tools/list changed.

        Calls already running finish with the tool they started with. When this returns
        True the transport should send ``notifications/tools/list_changed``.
        """
        new = ToolSet(tools, self.page_size, self._modern_list_extra)
        changed = new.descriptors != self._tools.descriptors
        self._tools = new
        return changed

    @property
    def content(self) -> ServerContent:
        """The resources, prompts and completions served now."""
        return self._content.content

    def resource_subscriptions(self) -> Mapping[Hashable, set[str]]:
        """The URIs each peer subscribed to with ``resources/subscribe``."""
        return self._content.subscriptions

    @property
    def max_peers(self) -> int:
        """How many peers' own settings (log level, subscriptions) are remembered; past it
        the oldest are forgotten. A transport that bounds its clients itself (HTTP sessions)
        raises it to its own bound and calls ``forget_peer`` for a client that is gone."""
        return self._max_peers

    @max_peers.setter
    def max_peers(self, value: int) -> None:
        self._max_peers = value
        self._content.max_subscribers = value

    def forget_peer(self, peer: Hashable) -> None:
        """Drop what ``peer`` set for itself (its session ended or was evicted)."""
        self._log_levels.pop(peer, None)
        self._content.subscriptions.pop(peer, None)

    def set_content(self, content: ServerContent | None) -> None:
        """Swap the resources, prompts and completions (a reload); capabilities follow and
        subscriptions carry over."""
        methods = ContentMethods(content or ServerContent(), self.page_size)
        if hasattr(self, "_content"):
            methods.subscriptions = self._content.subscriptions
            methods.max_subscribers = self._content.max_subscribers
        self._content = methods
        for name in self._content_capabilities:
            self.capabilities.pop(name, None)
        caps = methods.capabilities()
        self.capabilities.update(caps)
        self._content_capabilities = tuple(caps)
        lists = {"resources/list": "resources_list",
                 "resources/templates/list": "templates_list", "prompts/list": "prompts_list"}
        calls = {"resources/read": "resources_read", "prompts/get": "prompts_get",
                 "completion/complete": "complete", "resources/subscribe": "subscribe",
                 "resources/unsubscribe": "unsubscribe"}
        offered = {"resources/list": "resources", "resources/templates/list": "resources",
                   "resources/read": "resources", "prompts/list": "prompts",
                   "prompts/get": "prompts", "completion/complete": "completions",
                   "resources/subscribe": "resources", "resources/unsubscribe": "resources"}
        for method, attr in {**lists, **calls}.items():
            if offered[method] in caps:
                self._handlers[method] = self._content_handler(attr, method in lists)
            else:
                self._handlers.pop(method, None)

    def _content_handler(self, attr: str, listing: bool
                         ) -> Callable[..., Awaitable[dict[str, Any]]]:
        async def handler(request_id: Any, params: Mapping[str, Any], meta: Any,
                          notify: Notify | None, peer: Hashable, modern: bool,
                          cancel: Cancel | None = None) -> dict[str, Any]:
            method = getattr(self._content, attr)
            uri = params.get("uri")
            named = attr in ("resources_read", "subscribe", "unsubscribe")
            if named and isinstance(uri, str) and uri:
                if len(uri) > MAX_URI_CHARS:  # as sent (its canonical form may be longer)
                    raise _RpcError(rpc.INVALID_PARAMS, f"Invalid params: 'uri' is "
                                    f"{len(uri):,} characters; at most {MAX_URI_CHARS:,}")
                # One spelling for the rules, the lookup and subscriptions: a deny on a URI
                # holds for every way of writing it (%73ecret.md, x/../secret.md)
                uri = self._content.content.canonical_uri(uri)
                params = {**params, "uri": uri}
            if (attr in ("resources_read", "subscribe") and self.read_guard is not None
                    and isinstance(uri, str) and uri):  # hearing of changes is a read too
                try:
                    refused = await self.read_guard(uri)
                except Exception as exc:  # fail closed, as for tools
                    log_failure(log, f"permission guard for resources/read {cut(uri, 200)}",
                                exc)
                    refused = "the permission check failed"
                if refused is not None:
                    raise _RpcError(rpc.INVALID_REQUEST, f"Resource read denied: {refused}")
            try:
                if attr in ("prompts_get", "complete") and self.prompt_guard is not None:
                    await prompt_allowed(self.prompt_guard, self._content.content, params,
                                         attr == "complete")
                if attr == "complete" and self.read_guard is not None:
                    await completion_readable(self.read_guard, self._content.content, params)
                if listing:
                    result = await method(params)
                elif attr in ("subscribe", "unsubscribe"):
                    result = await method(params, peer)
                else:
                    ctx = CallContext(call_id=str(request_id), tool=attr, log=_call_log)
                    result = await method(params, ctx)
            except MethodError as exc:
                raise _RpcError(exc.code, exc.message, exc.data) from None
            if not modern:
                return result  # type: ignore[no-any-return]
            return {**result, **self._modern_list_extra} if listing else self._modern(result)
        return handler

    def initialize_result(self, protocol_version: str = rpc.LATEST_HANDSHAKE_VERSION
                          ) -> dict[str, Any]:
        result: dict[str, Any] = {"protocolVersion": protocol_version,
                                  "capabilities": self.capabilities,
                                  "serverInfo": self.server_info}
        if self.instructions:
            result["instructions"] = scrub(self.instructions)
        return result

    def manifest(self) -> dict[str, Any]:
        """The ``sdkMcpServerManifests`` entry that lets the CLI skip the MCP handshake."""
        return {"initializeResult": self.initialize_result(),
                "toolsListResult": self._tools.all_tools_result()}

    # -- dispatch ---------------------------------------------------------------------

    async def handle(self, message: Mapping[str, Any], *, notify: Notify | None = None,
                     peer: Hashable = None, cancel: Cancel | None = None
                     ) -> dict[str, Any] | None:
        """Answer one JSON-RPC message.

        Returns the response for a request, None for a notification or a response.
        ``notify`` carries notifications back to the client (progress). ``peer`` names the
        connection (any hashable, e.g. the transport's session object): when given, the
        core tracks that peer's tools/call by JSON-RPC id, and a ``notifications/cancelled``
        handled with the same ``peer`` cancels the call, which then answers error -32800.
        Without ``peer`` the transport handles cancellation itself (ids are unique per
        connection only, so the core never guesses).

        ``cancel`` (with ``peer``): the transport already runs this request in a cancel scope
        of its own, and offers it (anything with ``cancel()``). A ``notifications/cancelled``
        for this tools/call then calls it instead of a scope the core would open (one scope
        per call, not two: they cost microseconds each), the call's cancellation leaves
        ``handle`` as it does the transport's, and the transport answers the call itself
        (``jsonrpc.cancelled_response``), as the core would have.
        """
        if not _is_mapping(message):
            return rpc.error_response(None, rpc.INVALID_REQUEST,
                                      "Invalid Request: a JSON-RPC message must be an object")
        method = message.get("method")
        request_id = message.get("id")
        if method is None:
            if "result" in message or "error" in message:
                return None  # a response to a request of ours: nothing to answer
            return rpc.error_response(request_id if rpc.is_valid_id(request_id) else None,
                                      rpc.INVALID_REQUEST, "Invalid Request: no 'method'")
        if not isinstance(method, str):
            return rpc.error_response(request_id if rpc.is_valid_id(request_id) else None,
                                      rpc.INVALID_REQUEST,
                                      "Invalid Request: 'method' must be a string")
        params = message.get("params")
        if "id" not in message:
            self._notification(method, params, peer)
            return None
        if not rpc.is_valid_id(request_id):
            return rpc.error_response(None, rpc.INVALID_REQUEST,
                                      "Invalid Request: 'id' must be a string or an integer")
        if message.get("jsonrpc") != "2.0":
            return rpc.error_response(request_id, rpc.INVALID_REQUEST,
                                      "Invalid Request: 'jsonrpc' must be \"2.0\"")
        if params is None:
            params = {}
        elif not _is_mapping(params):
            return rpc.error_response(request_id, rpc.INVALID_PARAMS,
                                      "Invalid params: 'params' must be an object")
        meta = params.get("_meta")
        modern = (_is_mapping(meta) and rpc.PROTOCOL_VERSION_META_KEY in meta
                  and method != "initialize")
        if modern:
            assert isinstance(meta, Mapping)
            requested = meta[rpc.PROTOCOL_VERSION_META_KEY]
            if not isinstance(requested, str) or requested not in rpc.MODERN_VERSIONS:
                shown = cut(repr(requested), 100)
                return rpc.error_response(
                    request_id, rpc.UNSUPPORTED_PROTOCOL_VERSION,
                    f"Unsupported protocol version: {shown}",
                    {"supported": list(rpc.MODERN_VERSIONS),
                     "requested": requested if isinstance(requested, str)
                     and len(requested) <= 100 else shown})
        handler = self._handlers.get(method)
        if handler is None:
            return rpc.error_response(request_id, rpc.METHOD_NOT_FOUND,
                                      f"Method not found: {cut(method, 100)}")
        try:
            result = await handler(request_id, params, meta, notify, peer, modern, cancel)
        except _RpcError as exc:
            return rpc.error_response(request_id, exc.code, exc.message, exc.data)
        except Exception as exc:  # a bug must cost this request only, and say nothing inside
            log_failure(log, f"{self.name}: {cut(method, 100)} (id {cut(repr(request_id), 60)})",
                        exc)
            return rpc.error_response(request_id, rpc.INTERNAL_ERROR,
                                      f"Internal error ({type(exc).__name__}); the server "
                                      "logged it")
        return {"jsonrpc": "2.0", "id": request_id, "result": result}

    def _notification(self, method: str, params: Any, peer: Hashable) -> None:
        if (method == "notifications/cancelled" and peer is not None
                and isinstance(params, Mapping) and rpc.is_valid_id(params.get("requestId"))):
            scope = self._inflight.get((peer, params.get("requestId")))
            if scope is not None:
                log.debug("%s: cancelling request %r (%s)", self.name,
                          params.get("requestId"), params.get("reason", "no reason given"))
                scope.cancel()
        # notifications/initialized and anything else: nothing to do (stateless core).

    def _modern(self, result: dict[str, Any]) -> dict[str, Any]:
        result["resultType"] = "complete"
        result["_meta"] = self._modern_meta
        return result

    # -- methods ----------------------------------------------------------------------

    async def _initialize(self, request_id: Any, params: Mapping[str, Any], meta: Any,
                          notify: Notify | None, peer: Hashable, modern: bool,
                          cancel: Cancel | None = None) -> dict[str, Any]:
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise _RpcError(rpc.INVALID_PARAMS,
                            "Invalid params: initialize needs a string 'protocolVersion'")
        version = (requested if requested in rpc.HANDSHAKE_VERSIONS
                   else rpc.LATEST_HANDSHAKE_VERSION)
        return self.initialize_result(version)

    async def _set_level(self, request_id: Any, params: Mapping[str, Any], meta: Any,
                         notify: Notify | None, peer: Hashable, modern: bool,
                         cancel: Cancel | None = None) -> dict[str, Any]:
        level = params.get("level")
        if level not in LEVELS:
            raise _RpcError(rpc.INVALID_PARAMS, "Invalid params: 'level' is one of "
                            + ", ".join(LEVELS))
        self._log_levels.pop(peer, None)  # newest last: the oldest goes first
        if len(self._log_levels) >= self._max_peers:  # never grow without bound
            self._log_levels.pop(next(iter(self._log_levels)))
        self._log_levels[peer] = str(level)
        return self._modern({}) if modern else {}

    async def _ping(self, request_id: Any, params: Mapping[str, Any], meta: Any,
                    notify: Notify | None, peer: Hashable, modern: bool,
                    cancel: Cancel | None = None) -> dict[str, Any]:
        return self._modern({}) if modern else {}

    async def _discover(self, request_id: Any, params: Mapping[str, Any], meta: Any,
                        notify: Notify | None, peer: Hashable, modern: bool,
                        cancel: Cancel | None = None) -> dict[str, Any]:
        result: dict[str, Any] = {
            "supportedVersions": list(rpc.MODERN_VERSIONS),
            # the logging capability is deprecated in 2026-07-28 (SEP-2577): not advertised
            "capabilities": {k: v for k, v in self.capabilities.items() if k != "logging"},
            "serverInfo": self.server_info,
            "resultType": "complete", "ttlMs": 0, "cacheScope": "private",
            "_meta": self._modern_meta,
        }
        if self.instructions:
            result["instructions"] = scrub(self.instructions)
        return result

    async def _tools_list(self, request_id: Any, params: Mapping[str, Any], meta: Any,
                          notify: Notify | None, peer: Hashable, modern: bool,
                          cancel: Cancel | None = None) -> dict[str, Any]:
        try:
            return self._tools.page(params.get("cursor"), modern=modern)
        except BadCursor as exc:
            raise _RpcError(rpc.INVALID_PARAMS, f"Invalid params: {cut(str(exc))}") from None

    async def _tools_call(self, request_id: Any, params: Mapping[str, Any], meta: Any,
                          notify: Notify | None, peer: Hashable, modern: bool,
                          cancel: Cancel | None = None) -> dict[str, Any]:
        name = params.get("name")
        if not isinstance(name, str):
            raise _RpcError(rpc.INVALID_PARAMS, "Invalid params: tools/call needs a string 'name'")
        tool = self._tools.by_name.get(name)
        if tool is None:
            why = self.unavailable(name) if self.unavailable is not None else None
            if why:  # a tool of an imported server that has not started yet: not served
                out = ToolResult.error(why).to_mcp()
                return self._modern(out) if modern else out
            raise _RpcError(rpc.INVALID_PARAMS, f"Unknown tool: {cut(repr(name), 100)}")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        elif not isinstance(arguments, Mapping):
            raise _RpcError(rpc.INVALID_PARAMS,
                            f"Invalid params: 'arguments' of tool {name!r} must be an object")
        elif arguments:
            self._check_size(name, arguments)
        token = meta.get("progressToken") if _is_mapping(meta) else None
        # 2025 revisions: the level of logging/setLevel (info until set); 2026-07-28: only a
        # request that opts in with _meta's logLevel hears log lines (SEP-2577)
        level = (meta.get(rpc.LOG_LEVEL_META_KEY) if modern and _is_mapping(meta)
                 else self._log_levels.get(peer, "info"))
        client_log = None if notify is None or level not in LEVELS else ClientLog(
            _call_log, notify, str(level), name=tool.name)
        log_to: logging.Logger | ClientLog = client_log or _call_log
        extra: dict[str, Any] = {}
        if notify is not None and isinstance(token, (str, int)) and not isinstance(token, bool):
            extra["progress"] = progress_sender(notify, token)
        # Requests to the client: the transport's channel (serve, 2025 revisions), or in the
        # stateless era a round trip through InputRequiredResult (toolhost.mcp.round_trip)
        channel = self._round_trip(params, meta) if modern else current_channel()
        if channel is not None:
            extra["elicit"] = functools.partial(send_elicit, channel)
            extra["sample"] = functools.partial(send_sample, channel)
        if _is_mapping(meta):
            tool_use_id = meta.get(TOOL_USE_ID_META_KEY)
            if type(tool_use_id) is str:
                extra["tool_use_id"] = tool_use_id
        ctx = CallContext(call_id=str(request_id), tool=tool.wire_name, log=log_to, **extra)
        try:
            if modern:
                with client_channel(channel):
                    return await self._call_in_scope(tool, arguments, ctx, peer, request_id,
                                                     modern, cancel)
            # the 2025 revisions' channel is the transport's, already current
            return await self._call_in_scope(tool, arguments, ctx, peer, request_id, modern,
                                             cancel)
        except InputRequired as need:
            return {"resultType": "input_required",
                    "inputRequests": {need.key: need.request},
                    "requestState": encode_state(need.answered), "_meta": self._modern_meta}
        finally:
            if client_log is not None and client_log.pending:
                await client_log.flush()

    def _round_trip(self, params: Mapping[str, Any], meta: Any) -> RoundTrip:
        caps = meta.get(rpc.CLIENT_CAPABILITIES_META_KEY) if isinstance(meta, Mapping) else None
        try:
            answered = decode_state(params.get("requestState"), params.get("inputResponses"),
                                    self.limits)
        except ValueError as exc:
            raise _RpcError(rpc.INVALID_PARAMS, f"Invalid params: {exc}") from None
        return RoundTrip(caps if isinstance(caps, Mapping) else {}, answered)

    async def _call_in_scope(self, tool: CompiledTool, arguments: Mapping[str, Any],
                             ctx: CallContext, peer: Hashable, request_id: Any,
                             modern: bool, cancel: Cancel | None) -> dict[str, Any]:
        if peer is None:
            out = (await self._run(tool, arguments, ctx)).to_mcp()
            return self._modern(out) if modern else out
        key = (peer, request_id)
        scope = None
        if cancel is None:  # no scope of the transport's to share (see ``handle``): ours
            scope = cancel = cancel_scope()
        with scope if scope is not None else NO_SCOPE:
            self._inflight[key] = cancel
            try:
                result = await self._run(tool, arguments, ctx)
            finally:
                if self._inflight.get(key) is cancel:
                    del self._inflight[key]
        if scope is not None and scope.cancelled_caught:
            raise _RpcError(rpc.REQUEST_CANCELLED, rpc.CANCELLED_MESSAGE)
        out = result.to_mcp()
        return self._modern(out) if modern else out

    def _check_size(self, name: str, arguments: Mapping[str, Any]) -> None:
        limit = self.limits.max_argument_bytes
        try:
            # A cheap bound first: JSON text is never shorter than the repr-free estimate
            # of its strings, so small arguments skip the encoding entirely.
            size = len(wire.encode(arguments)) if may_exceed(arguments, limit) else 0
        except (TypeError, ValueError) as exc:
            raise _RpcError(rpc.INVALID_PARAMS, f"Invalid params: the arguments of tool "
                            f"{name!r} are not JSON ({cut(str(exc), 100)})") from None
        if size > limit:
            raise _RpcError(rpc.INVALID_PARAMS, f"Invalid params: the arguments of tool {name!r} "
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
        return await tool.call(arguments, ctx)


class Cancel(Protocol):
    """What cancels one request: an ``anyio.CancelScope``, or a transport's own handle."""

    def cancel(self) -> None: ...


def _is_mapping(value: Any) -> TypeGuard[Mapping[str, Any]]:
    # JSON objects arrive as dicts: the exact type first (an ABC isinstance costs ~0.3 µs,
    # and a call asks five times)
    return type(value) is dict or (value is not None and isinstance(value, Mapping))
