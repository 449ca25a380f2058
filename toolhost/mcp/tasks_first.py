"""Ask first, then a task: the composition of the stateless round trip (SEP-2322,
``InputRequiredResult``) and tasks (SEP-2663) for a tool whose config says
``task_support: {mode: optional|required, ask_first: true}``.

SEP-2663: "a server that needs client input *before* returning a ``CreateTaskResult`` uses
the multi round-trip request flow on the original request", and resolves those exchanges
synchronously before answering with the task. Only the tool knows where its questions end,
so the tool says it: the call runs in the request (the permission rules first, then the
tool), each question it asks is one more round (``resultType: input_required``, the tool
runs again from the start with the answers, as any round trip), and at
``await ctx.become_task()`` the request is answered with the ``CreateTaskResult`` while the
same run of the tool goes on as the task: questions it asks from then on wait in the task's
``inputRequests`` (``tasks/get`` / ``tasks/update``), their keys their own. A tool that ends
without calling it is answered directly, as a direct call is (the client declared the
extension, so it takes either shape).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, Any

from toolhost.backends.base import ToolFailure
from toolhost.compile.tool import CompiledTool
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp.calls import send_elicit, send_sample
from toolhost.mcp.client_requests import (
    DEFAULT_TIMEOUT,
    RoundTrip,
    client_channel,
    input_required_in,
)
from toolhost.mcp.jsonrpc import RpcError
from toolhost.mcp.round_trip import encode_state
from toolhost.mcp.session_flow import SessionFlows, continued
from toolhost.mcp.tasks import Task, TaskChannel, TaskStore
from toolhost.mcp.tools_call import McpCallContext, _missing_capability
from toolhost.results import ToolResult

if TYPE_CHECKING:
    import asyncio

    from toolhost.backends.base import CallContext

__all__ = ["AskFirstCalls", "Handover"]

_call_log = logging.getLogger("toolhost.call")


class Handover(RoundTrip):
    """The channel of an ask-first call: the request's round trip until the tool calls
    ``ctx.become_task()``, the task's channel from then on (a ``RoundTrip`` to whoever
    asks through it, the permission rules too; it keeps no questions of its own)."""

    def __init__(self, round_trip: RoundTrip, store: TaskStore, owner: Any,
                 capabilities: Mapping[str, Any]) -> None:  # no super(): a proxy
        import asyncio

        self.capabilities = capabilities
        self.refused = round_trip.refused  # the current channel's (the same dict)
        self.round_trip = round_trip
        self.current: RoundTrip = round_trip
        self.task: Task | None = None
        self.runner: asyncio.Task[dict[str, Any]] | None = None
        self._store, self._owner, self._capabilities = store, owner, capabilities
        self._became = asyncio.Event()

    def supports(self, capability: str) -> bool:
        return self.current.supports(capability)

    async def request(self, capability: str, method: str, params: Mapping[str, Any], *,
                      timeout: float = DEFAULT_TIMEOUT, key: str | None = None
                      ) -> Mapping[str, Any]:
        return await self.current.request(capability, method, params, timeout=timeout,
                                          key=key)

    async def become(self) -> bool:
        """``ctx.become_task()``: the task is made (``tasks/get`` finds it), the request is
        answered with it, and this run of the tool goes on as the task."""
        if self.task is not None or self.runner is None:
            return False
        import asyncio

        try:
            task, channel = self._store.open(self._owner, self._capabilities)
        except RpcError as exc:  # busy: the call ends in the request, saying so
            raise ToolFailure(f"could not become a task: {exc.message}") from None
        self.current, self.task, self.refused = channel, task, channel.refused
        task.runner = asyncio.get_running_loop().create_task(
            self._store.record(task, functools.partial(self._finish, task, channel,
                                                       self.runner)),
            name=f"toolhost task {task.id}")
        self._became.set()
        return True

    @staticmethod
    async def _finish(task: Task, channel: TaskChannel,
                      runner: asyncio.Task[dict[str, Any]]) -> None:
        # cancelling the task (tasks/cancel, its ttl, shutdown) cancels this wait, and
        # with it the tool's run it waits for
        import asyncio

        try:
            out = await runner
        except (Exception, asyncio.CancelledError):
            raise
        except BaseException as stopped:  # a control exception that escaped the tool
            raise RpcError(rpc.INTERNAL_ERROR, "Internal error: the task's tool stopped "
                           f"({type(stopped).__name__})") from None
        if channel.refused and out.get("isError"):
            raise _missing_capability(channel.refused)
        task.finish("completed", result=out)

    async def settled(self) -> None:
        """Wait until the tool's run ends or the call becomes a task."""
        import asyncio

        assert self.runner is not None
        became = asyncio.ensure_future(self._became.wait())
        try:
            await asyncio.wait({self.runner, became}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            became.cancel()


class AskFirstCalls:
    """``McpServer``'s ask-first task calls (``TaskCalls._start_task`` hands them here)."""

    tasks: TaskStore
    _modern_meta: dict[str, Any]
    _flows: SessionFlows

    if TYPE_CHECKING:
        def _round_trip(self, params: Mapping[str, Any], meta: Any) -> RoundTrip: ...
        async def _run(self, tool: CompiledTool, arguments: Mapping[str, Any],
                       ctx: CallContext) -> ToolResult: ...

    async def _ask_first(self, tool: CompiledTool, arguments: Mapping[str, Any],
                         request_id: Any, params: Mapping[str, Any], meta: Any,
                         owner: Hashable | None) -> dict[str, Any]:
        import asyncio

        self.tasks.check_room(owner)  # busy: said before the tool runs at all
        caps = meta.get(rpc.CLIENT_CAPABILITIES_META_KEY) if isinstance(meta, Mapping) \
            else None
        handover = Handover(self._round_trip(params, meta), self.tasks, owner,
                            caps if isinstance(caps, Mapping) else {})
        ctx = McpCallContext.made({
            "call_id": str(request_id), "tool": tool.wire_name, "log": _call_log,
            "elicit": functools.partial(send_elicit, handover),
            "sample": functools.partial(send_sample, handover),
            "become_task": handover.become})

        async def call() -> dict[str, Any]:  # the rules, then the tool: as a direct call
            with client_channel(handover):
                done = await self._run(tool, arguments, ctx)
            # read after what the stateless requests were sent, as a direct call's result
            out = continued(self._flows.of(None), done,
                            mask=tool.redact_results or done.is_error).to_mcp()
            out["resultType"] = "complete"
            return out

        runner = asyncio.get_running_loop().create_task(call(),
                                                        name=f"toolhost call {tool.name}")
        handover.runner = runner
        try:
            await handover.settled()
        except BaseException:  # the request was cancelled while the call was its own
            if handover.task is None:
                runner.cancel()
            raise
        if handover.task is not None:
            return {"resultType": "task", **handover.task.envelope(),
                    "_meta": self._modern_meta}
        try:
            out = runner.result()
        except BaseException as stopped:  # InputRequired, or a group of them
            need = input_required_in(stopped)
            if need is None:
                raise
            return {"resultType": "input_required", "inputRequests": need.requests,
                    "requestState": encode_state(need.answered), "_meta": self._modern_meta}
        if handover.round_trip.refused and out.get("isError"):
            raise _missing_capability(handover.round_trip.refused)
        out["_meta"] = self._modern_meta
        return out
