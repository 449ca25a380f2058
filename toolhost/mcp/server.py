"""The transport-free MCP server: one JSON-RPC message in, one response (or nothing) out.

Every transport (the CLI control session, ``toolhost serve`` over stdio or HTTP, the SDK
adapter) feeds messages to :meth:`McpServer.handle` and writes back what it returns. Both
MCP eras are served by the same object: a request whose ``params._meta`` names
``io.modelcontextprotocol/protocolVersion`` follows the stateless 2026-07-28 rules (results
carry ``resultType``), anything else follows the 2025-11-25 handshake rules.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from typing import Any

from toolhost.compile.content import ServerContent
from toolhost.compile.tool import CompiledTool
from toolhost.excerpt import cut
from toolhost.failures import log_failure
from toolhost.limits import DEFAULT_LIMITS, Limits
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp.calls import Cancel, Notify
from toolhost.mcp.calls import is_mapping as _is_mapping
from toolhost.mcp.client_log import LEVELS
from toolhost.mcp.content import ContentMethods
from toolhost.mcp.content_calls import ContentCalls
from toolhost.mcp.content_guards import PromptGuard, PromptVisible, ReadGuard, ReadVisible
from toolhost.mcp.content_links import LINKLESS_VERSIONS, without_links
from toolhost.mcp.jsonrpc import RpcError as _RpcError
from toolhost.mcp.session_flow import SessionFlows
from toolhost.mcp.tasks import TASKS_EXTENSION, TaskStore
from toolhost.mcp.tasks_methods import TaskCalls
from toolhost.mcp.tools_call import TOOL_USE_ID_META_KEY, Guard, ToolCalls
from toolhost.mcp.toolset import BadCursor, ToolSet
from toolhost.redaction import scrub

__all__ = ["TOOL_USE_ID_META_KEY", "Cancel", "Guard", "McpServer", "Notify", "PromptGuard",
           "PromptVisible", "ReadGuard", "ReadVisible"]

log = logging.getLogger("toolhost.mcp")
_call_log = logging.getLogger("toolhost.call")


class McpServer(ToolCalls, ContentCalls, TaskCalls):
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
        # called after each ``set_tools`` (the host keeps its policy's view of the tools'
        # defaults in step: an imported server's list changes while it serves)
        self.on_set_tools: list[Callable[[], None]] = []
        # In-flight tools/call cancel scopes (or the transport's cancels) by (peer, JSON-RPC
        # id), for notifications/cancelled.
        self._inflight: dict[tuple[Hashable, Any], Cancel] = {}
        # (peer, progressToken) of the requests in flight that carry one: a second request
        # under a token in use is refused (toolhost.mcp.calls.claim_progress)
        self._progress_tokens: set[tuple[Hashable, Any]] = set()
        self._handlers: dict[str, Callable[..., Awaitable[dict[str, Any]]]] = {
            "initialize": self._initialize,
            "ping": self._ping,
            "tools/list": self._tools_list,
            "tools/call": self._tools_call,
            "server/discover": self._discover,
            "logging/setLevel": self._set_level,
            "tasks/get": self._tasks_get,
            "tasks/update": self._tasks_update,
            "tasks/cancel": self._tasks_cancel,
        }
        self.tasks = TaskStore()  # tools/call answered with a task (toolhost.mcp.tasks)
        self.capabilities["logging"] = {}
        # logging/setLevel per peer (connection); "info" until a client says otherwise
        self._log_levels: dict[Hashable, str] = {}
        # peers that negotiated a revision without resource_link content (before 2025-06-18):
        # their tools/call and prompts/get answers carry each link as a text block
        self._linkless: dict[Hashable, None] = {}
        self._max_peers = 10_000  # peers whose settings are remembered (see max_peers)
        # what each peer was sent, read as one flow: a secret cut between two results
        self._flows = SessionFlows(self._max_peers)
        self._content = ContentMethods(ServerContent() if content is None else content,
                                       page_size)
        self._content_capabilities: tuple[str, ...] = ()
        self.read_guard: ReadGuard | None = None
        self.prompt_guard: PromptGuard | None = None
        # whether the rules would deny what a completion value names (asked of each value a
        # completion source gives; no person is asked, nothing recorded): denied ones are
        # left out, so a completion never lists names a deny covers
        self.read_visible: ReadVisible | None = None
        self.prompt_visible: PromptVisible | None = None
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
        for hook in self.on_set_tools:
            hook()
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
        self._content.table.max_peers = value
        self._flows.limit = value

    def hold_peers_by(self, holder: Callable[[Hashable], Hashable]) -> None:
        """Tell which peers are one client's (``holder``: a peer's client): the subscription
        budget takes from the client holding the most first (``toolhost.mcp.subscriptions``)."""
        self._content.table.holder_of = holder

    def forget_peer(self, peer: Hashable) -> None:
        """Drop what ``peer`` set for itself (its session ended or was evicted)."""
        self._log_levels.pop(peer, None)
        self._linkless.pop(peer, None)
        self._flows.forget(peer)
        self._content.table.forget(peer)

    def set_content(self, content: ServerContent | None) -> None:
        """Swap the resources, prompts and completions (a reload); capabilities follow and
        subscriptions carry over."""
        # (an empty one may still promise capabilities: ``ServerContent.promised``)
        methods = ContentMethods(ServerContent() if content is None else content,
                                 self.page_size)
        if hasattr(self, "_content"):
            methods.table = self._content.table
            self._drop_denied_subscriptions(methods.table.by_peer, methods.table.callers)
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
        if type(message) is dict:
            # The common shape (a tools/call of the 2025 revisions, as JSON parses it): the
            # general path's checks, asked of exact types, all of which it would pass the
            # same way; anything else, or anything it would refuse, takes that path.
            method = message.get("method")
            params = message.get("params")
            request_id = message.get("id")
            version = message.get("jsonrpc")
            # (at most the four members of a request: one with more, a 'result' say, takes
            # the general path, which refuses a request that is also an answer)
            if (type(method) is str and type(params) is dict and len(message) <= 4
                    and (type(request_id) is int or type(request_id) is str)
                    and type(version) is str and version == "2.0"):
                meta = params.get("_meta")
                if meta is None or (type(meta) is dict
                                    and rpc.PROTOCOL_VERSION_META_KEY not in meta):
                    return await self._answer(method, request_id, params, meta, notify,
                                              peer, False, cancel)
        return await self._dispatch(message, notify, peer, cancel)

    async def _dispatch(self, message: Mapping[str, Any], notify: Notify | None,
                        peer: Hashable, cancel: Cancel | None) -> dict[str, Any] | None:
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
        if "result" in message or "error" in message:
            # JSON-RPC: a request or notification has no 'result' or 'error' and an answer
            # has no 'method'; which this was meant to be cannot be told, so neither is done
            return rpc.error_response(
                request_id if rpc.is_valid_id(request_id) else None, rpc.INVALID_REQUEST,
                f"Invalid Request: a message with 'method' ({cut(method, 100)}) is a request "
                "or a notification and has no 'result' or 'error' (an answer has no 'method')")
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
        modern = _is_mapping(meta) and rpc.PROTOCOL_VERSION_META_KEY in meta
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
            problem = rpc.modern_meta_problem(meta)
            if problem is not None:
                return rpc.error_response(request_id, rpc.INVALID_PARAMS, problem)
            if method in rpc.REMOVED_IN_MODERN:
                return rpc.error_response(
                    request_id, rpc.METHOD_NOT_FOUND,
                    f"Method not found: {method} (protocol revision {requested} removed it;"
                    " a request naming that revision in params._meta cannot use it)")
        return await self._answer(method, request_id, params, meta, notify, peer, modern, cancel)

    async def _answer(self, method: str, request_id: Any, params: Mapping[str, Any], meta: Any,
                      notify: Notify | None, peer: Hashable, modern: bool,
                      cancel: Cancel | None) -> dict[str, Any]:
        handler = self._handlers.get(method)
        if handler is None:
            return rpc.error_response(request_id, rpc.METHOD_NOT_FOUND,
                                      f"Method not found: {cut(method, 100)}")
        if meta is not None:
            if type(meta) is dict:
                token = meta.get("progressToken")
                if token is not None and type(token) is not int and type(token) is not str \
                        and not rpc.is_valid_id(token):
                    return rpc.error_response(request_id, rpc.INVALID_PARAMS,
                                              _bad_token(method, token))
            else:
                problem = _meta_problem(method, meta)
                if problem is not None:
                    return rpc.error_response(request_id, rpc.INVALID_PARAMS, problem)
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
        if self._linkless and peer in self._linkless and not modern:
            result = without_links(method, result)
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

    # -- methods ----------------------------------------------------------------------

    async def _initialize(self, request_id: Any, params: Mapping[str, Any], meta: Any,
                          notify: Notify | None, peer: Hashable, modern: bool,
                          cancel: Cancel | None = None) -> dict[str, Any]:
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise _RpcError(rpc.INVALID_PARAMS,
                            "Invalid params: initialize needs a string 'protocolVersion'")
        for name, kind in (("capabilities", "ClientCapabilities"), ("clientInfo",
                                                                     "Implementation")):
            given = params.get(name)
            if given is not None and not _is_mapping(given):
                # what the client can be asked is read from it: garbage is no "nothing"
                raise _RpcError(rpc.INVALID_PARAMS, f"Invalid params: initialize '{name}' "
                                f"must be an object ({kind}), not {_json_kind(given)}")
        version = (requested if requested in rpc.HANDSHAKE_VERSIONS
                   else rpc.LATEST_HANDSHAKE_VERSION)
        # (peer None: the one client of stdio)
        self._linkless.pop(peer, None)
        if version in LINKLESS_VERSIONS:
            if len(self._linkless) >= self._max_peers:  # never grow without bound
                self._linkless.pop(next(iter(self._linkless)))
            self._linkless[peer] = None
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
            "capabilities": self._modern_capabilities(),
            "serverInfo": self.server_info,
            "resultType": "complete", "ttlMs": 0, "cacheScope": "private",
            "_meta": self._modern_meta,
        }
        if self.instructions:
            result["instructions"] = scrub(self.instructions)
        return result

    def _modern_capabilities(self) -> dict[str, Any]:
        # the logging capability is deprecated in 2026-07-28 (SEP-2577): not advertised
        caps = {k: v for k, v in self.capabilities.items() if k != "logging"}
        if any(tool.task_support is not None for tool in self._tools.tools):
            caps["extensions"] = {TASKS_EXTENSION: {}}
        return caps

    async def _tools_list(self, request_id: Any, params: Mapping[str, Any], meta: Any,
                          notify: Notify | None, peer: Hashable, modern: bool,
                          cancel: Cancel | None = None) -> dict[str, Any]:
        try:
            return self._tools.page(params.get("cursor"), modern=modern)
        except BadCursor as exc:
            raise _RpcError(rpc.INVALID_PARAMS, f"Invalid params: {cut(str(exc))}") from None


def _json_kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, float):
        return "a non-finite number"
    return "a number" if isinstance(value, int) else type(value).__name__


def _bad_token(method: str, token: object) -> str:
    # MCP's ProgressToken is string | number: the server could send progress under nothing
    # the client would recognise, and ignoring it hides the client's mistake
    return (f"Invalid params: {cut(method, 100)}: params._meta.progressToken must be a string "
            f"or a number, not {_json_kind(token)}")


def _meta_problem(method: str, meta: object) -> str | None:
    """Why ``params._meta`` of a request is refused (it is an object whose progressToken, if
    any, is a string or a number; null counts as absent), or None."""
    if not _is_mapping(meta):
        return (f"Invalid params: {cut(method, 100)}: params._meta must be an object, not "
                f"{_json_kind(meta)}")
    token = meta.get("progressToken")
    if token is not None and not rpc.is_valid_id(token):
        return _bad_token(method, token)
    return None
