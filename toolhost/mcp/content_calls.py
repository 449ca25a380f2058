"""``McpServer``'s resources/*, prompts/* and completion/complete handlers: the guards and
the rules in front of ``ContentMethods``, canonical URIs, the listing's visibility, and a
content function's ``ctx`` (log lines, progress, cancellation) like a tool's."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Hashable, Iterable, Mapping
from typing import Any

from toolhost.excerpt import cut
from toolhost.failures import log_failure
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp.calls import Cancel, Notify, cancel_scope, id_in_use
from toolhost.mcp.calls import is_mapping as _is_mapping
from toolhost.mcp.client_requests import RoundTrip, client_channel, input_required_in
from toolhost.mcp.content import (
    MAX_URI_CHARS,
    RESOURCE_NOT_FOUND,
    ContentMethods,
    MethodError,
    check_encodable,
)
from toolhost.mcp.content_guards import (
    PromptGuard,
    PromptVisible,
    ReadGuard,
    ReadVisible,
    completion_filter,
    completion_readable,
    prompt_allowed,
)
from toolhost.mcp.jsonrpc import RpcError as _RpcError
from toolhost.mcp.round_trip import encode_state
from toolhost.mcp.session_flow import SessionFlows, continued_content
from toolhost.mcp.tools_call import content_context, end_of_call

__all__ = ["MAX_REMEMBERED", "ContentCalls"]

log = logging.getLogger("toolhost.mcp")
MAX_REMEMBERED = 100_000  # resources/list decisions remembered per build (then forgotten)
# the logger name a content method's ctx.log lines carry to the client
_METHOD_NAMES = {"resources_read": "resources/read", "prompts_get": "prompts/get",
                 "complete": "completion/complete"}


class ContentCalls:
    """What ``McpServer`` answers of its ``ContentMethods`` and what it needs of the server."""

    _content: ContentMethods
    _inflight: dict[tuple[Hashable, Any], Cancel]
    _progress_tokens: set[tuple[Hashable, Any]]  # (peer, token) of requests in flight
    _log_levels: dict[Hashable, str]
    _flows: SessionFlows
    _modern_list_extra: dict[str, Any]
    read_guard: ReadGuard | None
    prompt_guard: PromptGuard | None
    read_visible: ReadVisible | None
    prompt_visible: PromptVisible | None

    _modern: Callable[[dict[str, Any]], dict[str, Any]]  # ToolCalls' (McpServer has both)
    _round_trip: Callable[[Mapping[str, Any], Any], RoundTrip]  # ToolCalls' too
    _modern_meta: dict[str, Any]

    async def visible_resources(self) -> list[dict[str, Any]]:
        """What resources/list shows now, all pages (the rules of the moment applied); the
        directory walk runs on a worker thread, the rules on the loop."""
        return await self._content.listing_off_loop(
            None if self.read_visible is None else self._listed)

    def _listed(self, uris: Iterable[str]) -> set[str]:
        """``still_visible`` for resources/list, remembered per caller and URI until the
        content is swapped: the rules change only with a reload, which swaps the content too
        (a listing of 1,000 files asks up to 3,000 decisions otherwise, on every page). Per
        caller: a rule with ``callers:`` shows one caller what it hides from another."""
        from toolhost.permissions.callers.identity import (
            current_caller,  # not on stdio's first answer
        )

        cache = self._content.visible
        if len(cache) > MAX_REMEMBERED:
            cache.clear()
        caller = current_caller()
        kept = set()
        for uri in uris:
            seen = cache.get((caller, uri))
            if seen is None:
                seen = cache[(caller, uri)] = bool(self.still_visible((uri,)))
            if seen:
                kept.add(uri)
        return kept

    def _drop_denied_subscriptions(self, subscriptions: dict[Hashable, set[str]],
                                   callers: Mapping[Hashable, Any]) -> None:
        """A reload may bring a deny on a URI a client subscribed to while it was allowed:
        hearing of its changes is a read too, so the subscription ends (the client can
        subscribe again, and is refused while the deny holds). Each peer's are judged as
        the caller it subscribed as (``callers``): rules with ``callers:`` hold."""
        if not subscriptions:
            return
        from toolhost.permissions.callers.identity import as_caller

        for peer, uris in subscriptions.items():
            with as_caller(callers.get(peer)):
                uris.intersection_update(self.still_visible(uris))

    def still_visible(self, uris: Iterable[str]) -> set[str]:
        """Those of ``uris`` the rules of the moment let a client hear about (all of them
        when reads are not decided here); a check that fails counts as a deny."""
        visible = self.read_visible
        if visible is None:
            return set(uris)
        kept = set()
        for uri in uris:
            try:
                if visible(uri):
                    kept.add(uri)
            except Exception:  # fail closed
                pass
        return kept

    def _content_handler(self, attr: str, listing: bool
                         ) -> Callable[..., Awaitable[dict[str, Any]]]:
        async def handler(request_id: Any, params: Mapping[str, Any], meta: Any,
                          notify: Notify | None, peer: Hashable, modern: bool,
                          cancel: Cancel | None = None) -> dict[str, Any]:
            if peer is None or listing:
                return await answer(request_id, params, meta, notify, peer, modern)
            # Cancellable and holding its id from the start: its guard may ask a person (an
            # ask rule), and a cancel meant for it then, or a request under its id, must
            # find it (tools/call's guard runs in its scope too)
            key = (peer, request_id)
            if key in self._inflight:
                raise id_in_use(request_id)
            return await self._cancellable(
                answer(request_id, params, meta, notify, peer, modern), key, cancel)

        async def answer(request_id: Any, params: Mapping[str, Any], meta: Any,
                         notify: Notify | None, peer: Hashable, modern: bool
                         ) -> dict[str, Any]:
            method = getattr(self._content, attr)
            if attr in ("resources_read", "subscribe", "unsubscribe", "complete"):
                try:
                    check_encodable(params)
                except MethodError as exc:
                    raise _RpcError(exc.code, exc.message) from None
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
                                         attr == "complete", self.prompt_visible)
                if attr == "complete" and self.read_guard is not None:
                    await completion_readable(self.read_guard, self._content.content, params,
                                              self.read_visible)
                if attr == "resources_list" and self.read_visible is not None:
                    result = await method(params, self._listed)
                elif listing:
                    result = await method(params)
                elif attr in ("subscribe", "unsubscribe"):
                    result = await method(params, peer)
                else:
                    result = await self._content_call(attr, method, request_id, params, meta,
                                                      notify, peer, modern)
            except MethodError as exc:
                code = exc.code
                if modern and code == RESOURCE_NOT_FOUND:  # 2026-07-28 (SEP-2164): -32602
                    code = rpc.INVALID_PARAMS
                raise _RpcError(code, exc.message, exc.data) from None
            if not modern:
                return result  # type: ignore[no-any-return]
            if result.get("resultType") == "input_required":  # the client asks, then repeats
                return result  # type: ignore[no-any-return]
            # a read is cacheable too (2026-07-28 ReadResourceResult: ttlMs, cacheScope)
            return ({**result, **self._modern_list_extra} if listing or attr == "resources_read"
                    else self._modern(result))
        return handler

    async def _content_call(self, attr: str, method: Callable[..., Awaitable[dict[str, Any]]],
                            request_id: Any, params: Mapping[str, Any], meta: Any,
                            notify: Notify | None, peer: Hashable, modern: bool
                            ) -> dict[str, Any]:
        """A content method that may run a function: its ``ctx.log`` lines reach the client
        as a tool's do (at the level the client asked for), sent before the answer. (Its
        ``notifications/cancelled`` is the handler's: the whole request is cancellable.)"""
        level = (meta.get(rpc.LOG_LEVEL_META_KEY) if modern and _is_mapping(meta)
                 else self._log_levels.get(peer, "info"))
        # 2026-07-28: a read's or a prompt's function asks through InputRequiredResult, as a
        # tool's does (a completion asks nobody)
        trip = self._round_trip(params, meta) if modern and attr != "complete" else None
        flow = self._flows.of(peer)  # (the session's: a secret cut between two answers)
        ctx = content_context(request_id, _METHOD_NAMES[attr], level, notify, modern, meta,
                              trip, (self._progress_tokens, peer), flow)
        try:
            if trip is not None:
                with client_channel(trip):
                    return continued_content(flow, await self._run_content(attr, method,
                                                                           params, ctx))
            return continued_content(flow, await self._run_content(attr, method, params, ctx))
        except BaseException as stopped:  # InputRequired, or a group of them (asked at once)
            need = input_required_in(stopped)
            if need is None:
                raise
            return {"resultType": "input_required", "inputRequests": need.requests,
                    "requestState": encode_state(need.answered), "_meta": self._modern_meta}
        finally:
            end_of_call(ctx)
            client_log = ctx.log_made()
            if client_log is not None and client_log.pending:
                await client_log.flush()

    async def _run_content(self, attr: str, method: Callable[..., Awaitable[dict[str, Any]]],
                           params: Mapping[str, Any], ctx: Any) -> dict[str, Any]:
        if attr == "complete":
            return await method(params, ctx, completion_filter(
                self._content.content, params, self.read_visible, self.prompt_visible))
        return await method(params, ctx)

    async def _cancellable(self, run: Awaitable[dict[str, Any]],
                           key: tuple[Hashable, Any], cancel: Cancel | None
                           ) -> dict[str, Any]:
        """``run`` in a scope ``notifications/cancelled`` finds by ``key`` (peer, id): the
        transport's own (its cancellation leaves as the transport's) or one opened here
        (-32800 "Request cancelled")."""
        inflight = self._inflight
        if cancel is not None:
            inflight[key] = cancel
            try:
                return await run
            finally:
                if inflight.get(key) is cancel:
                    del inflight[key]
        with cancel_scope() as scope:
            inflight[key] = scope
            try:
                result = await run
            finally:
                if inflight.get(key) is scope:
                    del inflight[key]
        if scope.cancelled_caught:
            raise _RpcError(rpc.REQUEST_CANCELLED, rpc.CANCELLED_MESSAGE)
        return result
