"""The MCP server ``toolhost serve`` exposes: chosen servers of a config as one McpServer.

With one server selected its tools keep their names; with several, each is exposed as
``<server>__<tool>`` so names stay unique. Permission rules still see the config's own
names (``mcp__<server>__<tool>``). Besides the core's methods this layer serves
``subscriptions/listen`` (2026-07-28: the stream that carries ``tools/list_changed`` to a
modern client) and announces a swapped tool set on every channel a client can hear.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Collection, Hashable, Iterable, Mapping, Sequence
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectSendStream

from toolhost.compile.header_fields import Field, annotated
from toolhost.compile.tool import CompiledTool
from toolhost.mcp import McpServer
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp.server import Notify
from toolhost.mcp.tasks import TERMINAL, TaskStore
from toolhost.serve.base import stream_dropped
from toolhost.serve.listen_request import MAX_LISTEN_URIS, ListenError, check_uris, wanted
from toolhost.serve.metrics import Metrics

__all__ = ["MAX_LISTEN_URIS", "SEPARATOR", "ServedServer", "expose"]

log = logging.getLogger("toolhost.serve")

SEPARATOR = "__"
SUBSCRIPTION_ID_META_KEY = "io.modelcontextprotocol/subscriptionId"
SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"
LIST_CHANGED = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
RESOURCES_CHANGED = "notifications/resources/list_changed"
PROMPTS_CHANGED = "notifications/prompts/list_changed"
SHOWN_CALLERS = 8  # callers whose resources/list a reload compares (a walk each)
RESOURCE_UPDATED = "notifications/resources/updated"
MAX_LISTENERS = 1000  # listen streams open at once (each holds at most 1 MiB)
# notifications waiting for one listen stream (a stream further behind is ended): one tick
# of the resource watcher for every URI it may name, and list changes besides
LISTEN_QUEUE = MAX_LISTEN_URIS + 64

Broadcast = Callable[[dict[str, Any], Collection[Hashable] | None], Awaitable[None]]
"""Sends a message to legacy clients: the peers named (None: every one)."""


def expose(servers: Mapping[str, Sequence[CompiledTool]], selected: Sequence[str]
           ) -> tuple[list[CompiledTool], dict[str, str]]:
    """The tools to serve and, per exposed name, the config's wire name for permissions."""
    tools: list[CompiledTool] = []
    wire_names: dict[str, str] = {}
    for server in selected:
        for tool in servers.get(server, ()):
            exposed = tool if len(selected) == 1 else dataclasses.replace(
                tool, name=f"{server}{SEPARATOR}{tool.name}")
            tools.append(exposed)
            wire_names[exposed.name] = tool.wire_name
    return tools, wire_names


@dataclasses.dataclass(eq=False)  # hashed by identity: one entry per stream
class _Listener:
    """One ``subscriptions/listen`` stream: what it asked to hear, and its own bounded queue
    (a pump sends it on): a client that does not read never holds up anyone else."""

    queue: MemoryObjectSendStream[dict[str, Any]]
    request_id: Any  # the listen request's id: only unique per client, so never a key
    tools: bool
    resources: bool = False
    prompts: bool = False
    uris: frozenset[str] = frozenset()
    done: anyio.Event = dataclasses.field(default_factory=anyio.Event)
    dropped: bool = False
    # the transport's way to end the stream for good (HTTP: close its connection at once)
    on_drop: Callable[[], None] | None = None
    caller: Any = None  # who listens (a Caller, or None): a reload judges its URIs as them
    task_ids: frozenset[str] = frozenset()  # notifications/tasks of these (its caller's)

    def wants(self, method: str, uri: str | None) -> bool:
        if method == RESOURCE_UPDATED:
            return uri in self.uris
        return {LIST_CHANGED["method"]: self.tools, RESOURCES_CHANGED: self.resources,
                PROMPTS_CHANGED: self.prompts}.get(method, False)

    def offer(self, note: dict[str, Any]) -> None:
        """Queue ``note`` without waiting; a stream whose queue is full is ended."""
        if self.dropped:
            return
        try:
            self.queue.send_nowait(note)
        except anyio.WouldBlock:
            self.dropped = True
            log.warning("listen stream %s fell %d notifications behind (its client does not "
                        "read); closing it", repr(self.request_id)[:60], LISTEN_QUEUE)
            self.done.set()
            if self.on_drop is not None:
                self.on_drop()
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass


class ServedServer:
    """An McpServer plus what a standalone server needs: listen streams and announcements.

    ``broadcast`` is how the transport reaches legacy clients (stdio: the one peer, once it
    sent ``initialize``; HTTP: every legacy ``GET`` stream).
    """

    def __init__(self, core: McpServer, wire_names: Mapping[str, str]) -> None:
        self.core = core
        self.wire_names: Mapping[str, str] = dict(wire_names)
        self.broadcast: Broadcast | None = None
        self.legacy_peer = False  # an initialize went through (stdio: the peer is legacy)
        # open listen streams, by the listener itself (ids are unique per client only: one
        # client's id 1 must not replace or end another's)
        self._listeners: set[_Listener] = set()
        core.tasks.on_change = self._task_changed  # notifications/tasks (SEP-2663)
        # called (on the loop) when what clients subscribed to may have changed
        self.on_subscriptions: Callable[[], None] | None = None
        # called (on the loop) with the canonical URIs a client subscribed to, before it is
        # told so: the resource watcher takes their files' stamps then, not at its next look
        self.on_subscribed: Callable[[Iterable[str]], None] | None = None
        from toolhost.serve.telemetry import Telemetry

        self.telemetry = Telemetry.maybe()  # spans and metrics per tools/call (extra otel)
        self.metrics: Metrics | None = None  # Prometheus counters (serve --metrics)
        # what resources/list showed with the rules of the build clients last heard of (set
        # on the first resources/list: a client that never listed has nothing to be told):
        # a reload whose rules newly hide or show a resource changes it even when the
        # resources declared do not
        # One listing per caller who listed (rules may name callers, so what changed for
        # one may not have for another), for at most SHOWN_CALLERS callers: past that, every
        # reload is announced (a needless list_changed costs a client one resources/list; a
        # missed one leaves it with a stale list)
        self._shown: dict[Any, list[dict[str, Any]]] = {}
        self._shown_for_all = True  # every caller who listed has a listing above
        # each listed tool's x-mcp-header fields, with the schema they were read from
        self._param_fields: dict[str, tuple[Mapping[str, Any], list[Field]]] = {}

    def wire_name(self, tool: CompiledTool) -> str:
        """The name permission rules use for ``tool`` (``mcp__<server>__<tool>``)."""
        return self.wire_names.get(tool.name, tool.wire_name)

    def param_fields(self, name: object) -> list[Field]:
        """The ``x-mcp-header`` fields of the tool listed as ``name`` (SEP-2243; [] for none,
        or for a name no tool has): read once per schema, not per call."""
        if not isinstance(name, str):
            return []
        tool = self.core.get_tool(name)
        if tool is None:
            return []
        kept = self._param_fields.get(name)
        if kept is None or kept[0] is not tool.input_schema:
            kept = (tool.input_schema, annotated(tool.input_schema))
            self._param_fields[name] = kept
        return kept[1]

    async def handle(self, message: Mapping[str, Any], *, notify: Notify | None = None,
                     peer: Hashable = None) -> dict[str, Any] | None:
        """Answer one message; ``peer`` names the client (the HTTP session), so what it sets
        for itself (resources/subscribe, logging/setLevel) is its own."""
        method = message.get("method")
        if method == "resources/list":
            await self._remember_listing()
        if method == "subscriptions/listen" and "id" in message and notify is not None:
            return await self._listen(message, notify)
        if method == "tools/call" and "id" in message:
            if self.metrics is not None:
                return await self.metrics.around_call(
                    message, lambda: self._call(message, notify, peer))
            return await self._call(message, notify, peer)
        answer = await self.core.handle(message, notify=notify, peer=peer)
        if method == "initialize" and answer is not None and "result" in answer:
            self.legacy_peer = True  # (a 2026-07-28 request naming it is -32601)
        if method in ("resources/subscribe", "resources/unsubscribe"):
            if method == "resources/subscribe" and answer is not None and "result" in answer:
                self._subscribed(message)
            self._subscriptions_changed()
        return answer

    async def _call(self, message: Mapping[str, Any], notify: Notify | None,
                    peer: Hashable) -> dict[str, Any] | None:
        """A ``tools/call``, traced when OpenTelemetry is set up."""
        if self.telemetry is not None:
            return await self.telemetry.around(message, self.core.handle, notify=notify,
                                               peer=peer)
        return await self.core.handle(message, notify=notify, peer=peer)

    def _subscribed(self, message: Mapping[str, Any]) -> None:
        params = message.get("params")
        uri = params.get("uri") if isinstance(params, Mapping) else None
        if self.on_subscribed is not None and isinstance(uri, str):
            try:
                self.on_subscribed([self.core.content.canonical_uri(uri)])
            except Exception:  # the watcher's bug must not fail the subscription
                log.exception("noting a subscription failed")

    async def _remember_listing(self) -> None:
        # what this caller is about to see; taken lazily (a directory walk, once per
        # caller), so an initialize, a tools/call, a client that never lists never pays it
        from toolhost.permissions.callers.identity import current_caller

        caller = current_caller()
        if caller in self._shown:
            return
        if len(self._shown) >= SHOWN_CALLERS:
            self._shown_for_all = False
            return
        self._shown[caller] = await self._resources_shown()

    def _subscriptions_changed(self) -> None:
        if self.on_subscriptions is not None:
            self.on_subscriptions()

    async def swap(self, tools: Sequence[CompiledTool], wire_names: Mapping[str, str]) -> bool:
        """Replace the tool set atomically; announce it if tools/list changed."""
        self.wire_names = dict(wire_names)
        self._param_fields.clear()
        changed = self.core.set_tools(tools)
        if changed:
            await self.announce()
        return changed

    async def announce(self) -> None:
        """Send ``notifications/tools/list_changed`` to every client that can hear it."""
        await self._send(LIST_CHANGED["method"])

    async def set_content(self, content: Any) -> None:
        """Install new resources and prompts; announce the lists that changed."""
        old, shown = self.core.content, self._shown
        self.core.set_content(content)  # ends legacy subscriptions the rules now deny
        new = self.core.content
        if self._listeners:  # and a listen stream's, likewise (as the caller listening)
            from toolhost.permissions.callers.identity import as_caller

            for listener in self._listeners:
                with as_caller(listener.caller):
                    listener.uris = frozenset(self.core.still_visible(listener.uris))
        changed = _listing(old.resources) != _listing(new.resources)
        if shown:  # (empty: no client has listed the resources yet)
            from toolhost.permissions.callers.identity import as_caller

            for caller, before in list(shown.items()):  # a caller may list meanwhile
                with as_caller(caller):  # compared as seen by the same caller
                    shown[caller] = await self._resources_shown()
                changed = changed or shown[caller] != before
            changed = changed or not self._shown_for_all
        if changed:
            await self._send(RESOURCES_CHANGED)
        if _listing(old.prompts) != _listing(new.prompts):
            await self._send(PROMPTS_CHANGED)
        self._subscriptions_changed()  # a subscribed URI may belong elsewhere now

    async def _resources_shown(self) -> list[dict[str, Any]]:
        """What resources/list shows now (every page), the rules of the moment applied."""
        try:
            return await self.core.visible_resources()
        except Exception:  # a listing that fails here fails for resources/list itself
            log.debug("could not list the resources shown", exc_info=True)
            return []

    def subscribed_uris(self) -> set[str]:
        """Every resource URI some client asked to hear about (legacy subscriptions and the
        ``resourceSubscriptions`` of listen streams)."""
        uris = set().union(*self.core.resource_subscriptions().values())
        for listener in self._listeners:
            uris |= listener.uris
        return uris

    def subscriptions_by_client(self) -> list[list[str]]:
        """The resource URIs each client (a legacy session, a listen stream) subscribed to,
        one list per client: the watcher shares its budget among them."""
        out = [sorted(uris) for uris in self.core.resource_subscriptions().values() if uris]
        out += [sorted(listener.uris) for listener in self._listeners if listener.uris]
        return out

    async def resource_updated(self, uri: str) -> None:
        """Send ``notifications/resources/updated`` for ``uri`` to the clients subscribed."""
        subscribers = [peer for peer, uris in self.core.resource_subscriptions().items()
                       if uri in uris]
        await self._send(RESOURCE_UPDATED, uri=uri, peers=subscribers)

    async def _send(self, method: str, *, uri: str | None = None,
                    peers: Collection[Hashable] | None = None) -> None:
        """``method`` to the legacy clients (``peers``: only those; None: all) and to every
        listen stream that asked for it."""
        params: dict[str, Any] = {"uri": uri} if uri is not None else {}
        if (peers is None or peers) and self.broadcast is not None:
            message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
            if params:
                message["params"] = dict(params)
            try:
                await self.broadcast(message, peers)
            except Exception:
                log.exception("could not send %s", method)
        for listener in list(self._listeners):
            if listener.wants(method, uri):  # never waits: each stream has its own queue
                listener.offer({"jsonrpc": "2.0", "method": method, "params": {
                    **params, "_meta": {SUBSCRIPTION_ID_META_KEY: listener.request_id}}})

    def _task_changed(self, task: Any) -> None:
        """``notifications/tasks`` to each listen stream of the task's caller that asked
        for it: the task as ``tasks/get`` would show it now (SEP-2663)."""
        shown: dict[str, Any] | None = None
        for listener in list(self._listeners):
            if task.id not in listener.task_ids:
                continue
            owner = None if listener.caller is None else listener.caller.subject
            if owner != task.owner:
                continue
            if shown is None:
                shown = task.detailed()
            listener.offer(_task_note(shown, listener.request_id))
            if task.status in TERMINAL:
                task.read = True  # pushed to its caller (a shutdown no longer waits for it)

    def forget_peer(self, peer: Hashable) -> None:
        """Drop what ``peer`` (an HTTP session that ended or was evicted, a request without
        one that was answered) set for itself: its log level and subscriptions."""
        had = peer in self.core.resource_subscriptions()
        self.core.forget_peer(peer)
        if had:
            self._subscriptions_changed()

    @property
    def tasks(self) -> TaskStore:
        """The tasks of this server (a graceful shutdown waits for them)."""
        return self.core.tasks

    def hold_peers_by(self, holder: Callable[[Hashable], Hashable]) -> None:
        """Which peers are one client's (``McpServer.hold_peers_by``)."""
        self.core.hold_peers_by(holder)

    def make_room_for_peers(self, count: int) -> None:
        """Remember the settings of up to ``count`` peers (the transport bounds them)."""
        self.core.max_peers = max(self.core.max_peers, count)

    def close(self) -> None:
        """End every listen stream gracefully, and stop every running task (server
        shutdown)."""
        for listener in self._listeners:
            listener.done.set()
        self.core.tasks.close()

    async def aclose(self) -> None:
        """``close``, then wait a moment for the tools of the stopped tasks to end (their
        cleanup runs before the server exits, not in the loop's teardown)."""
        self.close()
        await self.core.tasks.aclose()

    async def _listen(self, message: Mapping[str, Any], notify: Notify) -> dict[str, Any]:
        request_id = message["id"]
        try:
            asked = wanted(message)
            uris = await check_uris(asked.uris, self.core.content, self.core.read_guard)
        except ListenError as exc:
            return exc.response(request_id)
        if len(self._listeners) >= MAX_LISTENERS:
            return rpc.error_response(request_id, rpc.SERVER_BUSY, f"Server busy: "
                                      f"{MAX_LISTENERS:,} listen streams are open; send it "
                                      "again later")
        send, receive = anyio.create_memory_object_stream[dict[str, Any]](LISTEN_QUEUE)
        from toolhost.permissions.callers.identity import current_caller

        caller = current_caller()
        owner = None if caller is None else caller.subject  # whose tasks it may hear of
        tasks = [t for t in asked.task_ids or () if self.core.tasks.owns(owner, t)]
        tasks_asked = asked.task_ids is not None
        listener = _Listener(send, request_id, asked.tools, asked.resources, asked.prompts,
                             frozenset(uris), on_drop=stream_dropped.get(),
                             caller=caller, task_ids=frozenset(tasks))
        del asked, message  # the stream keeps only what it hears about
        honored: dict[str, Any] = {key: True for key, on in (
            ("toolsListChanged", listener.tools), ("promptsListChanged", listener.prompts),
            ("resourcesListChanged", listener.resources)) if on}
        if uris:
            honored["resourceSubscriptions"] = list(uris)
        if tasks_asked:  # those agreed to: its caller's tasks kept here
            honored["taskIds"] = tasks
        listener.offer({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                        "params": {"_meta": {SUBSCRIPTION_ID_META_KEY: request_id},
                                   "notifications": honored}})
        for task_id in tasks:  # where each task is now: a change before the stream opened
            listener.offer(_task_note(self.core.tasks.find(owner, task_id).detailed(),
                                      request_id))  # is not missed
        self._listeners.add(listener)
        if uris:
            if self.on_subscribed is not None:
                self.on_subscribed(uris)
            self._subscriptions_changed()

        async def pump() -> None:
            async for note in receive:
                try:
                    await notify(note)
                except Exception:
                    log.debug("listen stream %r is gone", request_id, exc_info=True)
                    listener.done.set()
                    return

        try:
            async with anyio.create_task_group() as tg, send, receive:
                tg.start_soon(pump)
                await listener.done.wait()
                tg.cancel_scope.cancel()
        finally:
            self._listeners.discard(listener)  # this stream's own entry, nobody else's
            if uris:
                self._subscriptions_changed()
        return {"jsonrpc": "2.0", "id": request_id, "result": {
            "resultType": "complete",
            "_meta": {SUBSCRIPTION_ID_META_KEY: request_id,
                      SERVER_INFO_META_KEY: self.core.server_info}}}


def _task_note(shown: Mapping[str, Any], request_id: Any) -> dict[str, Any]:
    """``notifications/tasks`` of a listen stream: the task as ``tasks/get`` shows it."""
    return {"jsonrpc": "2.0", "method": "notifications/tasks", "params": {
        **shown, "_meta": {SUBSCRIPTION_ID_META_KEY: request_id}}}


def _listing(items: Any) -> Any:
    """What a list of resources or prompts shows a client (a change means list_changed)."""
    out = []
    for item in (items.values() if isinstance(items, Mapping) else items or ()):
        descriptor = getattr(item, "descriptor", None)
        out.append(descriptor() if callable(descriptor) else repr(item))
    return out
