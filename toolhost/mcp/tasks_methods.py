"""The tasks surface of the MCP core (``McpServer`` inherits it): starting a task from a
``tools/call``, and ``tasks/get``, ``tasks/update``, ``tasks/cancel``
(``toolhost.mcp.tasks`` keeps the tasks).

A task's call keeps every guarantee of a direct call: the permission rules (the guard) run
in the request, before the tool starts (a denial is answered at once, as a plain result);
the tool then runs through ``CompiledTool.call`` (argument checks, its timeout, redaction,
``outputSchema``, ``max_output_chars``).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, Any

from toolhost.compile.tool import CompiledTool
from toolhost.excerpt import cut
from toolhost.failures import log_failure
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp.calls import Cancel, send_elicit, send_sample
from toolhost.mcp.client_requests import RoundTrip, client_channel, input_required_in
from toolhost.mcp.jsonrpc import RpcError
from toolhost.mcp.round_trip import encode_state
from toolhost.mcp.session_flow import SessionFlows, continued
from toolhost.mcp.tasks import (
    TERMINAL,
    TaskChannel,
    TaskStore,
    declares_tasks,
    tasks_required,
)
from toolhost.mcp.tasks_first import AskFirstCalls
from toolhost.mcp.tools_call import Guard, McpCallContext, _missing_capability
from toolhost.results import ToolResult

__all__ = ["TaskCalls"]

log = logging.getLogger("toolhost.mcp")
_call_log = logging.getLogger("toolhost.call")


def _owner() -> str | None:
    """Whose task: the subject of serve's authenticated caller (None: no auth)."""
    from toolhost.permissions.callers.identity import (
        current_caller,  # flow: the caller of serve's auth
    )
    caller = current_caller()
    return None if caller is None else caller.subject


class TaskCalls(AskFirstCalls):
    """``McpServer``'s task methods and what they need of the server."""

    tasks: TaskStore
    _flows: SessionFlows
    guard: Guard | None
    _modern_meta: dict[str, Any]

    if TYPE_CHECKING:
        def _round_trip(self, params: Mapping[str, Any], meta: Any) -> RoundTrip: ...

    def _task_wanted(self, tool: CompiledTool, meta: Any) -> bool:
        """Whether this 2026-07-28 call of a task-supporting tool runs as a task: when its
        client declares the extension; -32021 for a ``required`` one whose client did not."""
        if declares_tasks(meta):
            return True
        if tool.task_support == "required":
            raise tasks_required(f"tool {tool.name!r} runs only as a task")
        return False

    async def _start_task(self, tool: CompiledTool, arguments: Mapping[str, Any],
                          request_id: Any, params: Mapping[str, Any],
                          meta: Any) -> dict[str, Any]:
        """The permission rules, then the tool started as a task: the ``CreateTaskResult``
        (an ask-first tool's call: ``toolhost.mcp.tasks_first``)."""
        if tool.task_ask_first:
            return await self._ask_first(tool, arguments, request_id, params, meta, _owner())
        channel = self._round_trip(params, meta)  # what the guard may ask, as a direct call
        fields: dict[str, Any] = {
            "call_id": str(request_id), "tool": tool.wire_name, "log": _call_log,
            "elicit": functools.partial(send_elicit, channel),
            "sample": functools.partial(send_sample, channel)}
        ctx = McpCallContext.made(fields)
        if self.guard is not None:
            try:
                with client_channel(channel):
                    verdict = await self.guard(tool, arguments, ctx)
            except Exception as exc:  # fail closed: a broken guard never lets a call through
                log_failure(log, f"permission guard for {tool.wire_name}", exc)
                verdict = ToolResult.error(f"Permission check for tool '{tool.name}' failed: "
                                           f"{type(exc).__name__}: {cut(str(exc))}")
            except BaseException as stopped:  # the rules ask the person (round trip)
                need = input_required_in(stopped)
                if need is None:
                    raise
                return {"resultType": "input_required", "inputRequests": need.requests,
                        "requestState": encode_state(need.answered),
                        "_meta": self._modern_meta}
            if verdict is not None:  # refused (or answered) by the rules: no task
                if channel.refused and verdict.is_error:
                    raise _missing_capability(channel.refused)
                out = verdict.to_mcp()
                out["resultType"] = "complete"
                out["_meta"] = self._modern_meta
                return out
        caps = meta.get(rpc.CLIENT_CAPABILITIES_META_KEY)
        capabilities = caps if isinstance(caps, Mapping) else {}

        async def run(task_channel: TaskChannel) -> dict[str, Any]:
            task_ctx = McpCallContext.made({
                "call_id": str(request_id), "tool": tool.wire_name, "log": _call_log,
                "elicit": functools.partial(send_elicit, task_channel),
                "sample": functools.partial(send_sample, task_channel)})
            done = await tool.call(arguments, task_ctx)
            # read after what the stateless requests were sent, as a direct call's result
            out = continued(self._flows.of(None), done,
                            mask=tool.redact_results or done.is_error).to_mcp()
            out["resultType"] = "complete"
            return out

        task = self.tasks.start(_owner(), capabilities, run, _missing_capability)
        return {"resultType": "task", **task.envelope(), "_meta": self._modern_meta}

    def _task_request(self, params: Mapping[str, Any], meta: Any, modern: bool,
                      method: str) -> Any:
        if not modern:
            raise RpcError(rpc.METHOD_NOT_FOUND, f"Method not found: {method} (tasks are "
                           "served to requests of protocol revision 2026-07-28 only)")
        if not declares_tasks(meta):
            raise tasks_required(method)
        return params.get("taskId")

    async def _tasks_get(self, request_id: Any, params: Mapping[str, Any], meta: Any,
                         notify: Any, peer: Hashable, modern: bool,
                         cancel: Cancel | None = None) -> dict[str, Any]:
        task_id = self._task_request(params, meta, modern, "tasks/get")
        task = self.tasks.find(_owner(), task_id)
        out = task.detailed()
        if task.status in TERMINAL:
            task.read = True  # its caller has the result (a shutdown no longer waits for it)
        out["resultType"] = "complete"
        out["_meta"] = self._modern_meta
        return out

    async def _tasks_update(self, request_id: Any, params: Mapping[str, Any], meta: Any,
                            notify: Any, peer: Hashable, modern: bool,
                            cancel: Cancel | None = None) -> dict[str, Any]:
        task_id = self._task_request(params, meta, modern, "tasks/update")
        self.tasks.update(_owner(), task_id, params.get("inputResponses"))
        return {"resultType": "complete", "_meta": self._modern_meta}

    async def _tasks_cancel(self, request_id: Any, params: Mapping[str, Any], meta: Any,
                            notify: Any, peer: Hashable, modern: bool,
                            cancel: Cancel | None = None) -> dict[str, Any]:
        task_id = self._task_request(params, meta, modern, "tasks/cancel")
        self.tasks.cancel(_owner(), task_id)
        return {"resultType": "complete", "_meta": self._modern_meta}
