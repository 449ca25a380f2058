"""Answers to the CLI's control requests: ``mcp_message`` and ``can_use_tool``.

Each function returns the ``response`` payload of a success control_response, or raises
``ControlRequestError`` (any exception, really) for an ``error`` control_response.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Hashable, Mapping
from typing import Any

from toolhost.excerpt import cut
from toolhost.failures import log_failure
from toolhost.mcp import Cancel, McpServer, Notify
from toolhost.mcp import jsonrpc as rpc
from toolhost.permissions.decision import Decision
from toolhost.redaction import scrub

__all__ = ["ACK", "ControlRequestError", "DecideNowFn", "MessageFn", "PermissionFn",
           "answer_can_use_tool", "answer_can_use_tool_now", "answer_mcp_message"]

log = logging.getLogger("toolhost.protocol")

PermissionFn = Callable[[str, dict[str, Any], dict[str, Any]], Awaitable[Decision]]
"""``(tool_name, tool_input, request) -> Decision`` (allow or deny; "ask" resolved).

A permission function may also have a ``decide_now`` method (a ``DecideNowFn``): the
session then answers the calls it decides without a pause (no "ask") the moment they are
read, without a task of their own, and right after writing each such answer calls the
function's ``after_answer()`` method, if it has one (to show the decision: the CLI does not
wait for the screen).
"""

DecideNowFn = Callable[[str, dict[str, Any], dict[str, Any]], "Decision | None"]
"""``(tool_name, tool_input, request) -> Decision``, or None if deciding needs a pause (an
"ask": then the permission function itself is awaited). Same audit and effects as awaiting."""

MessageFn = Callable[[dict[str, Any]], Awaitable[None]]
"""Receives each conversation message (system, assistant, user, result, ...) in order."""

# What the CLI needs back for an mcp_message that carried a notification or a response.
ACK: dict[str, Any] = {"mcp_response": {"jsonrpc": "2.0", "result": {}}}

NO_POLICY_MESSAGE = ("toolhost has no permission policy configured for this session, so "
                     "every tool call that reaches it is denied.")


class ControlRequestError(Exception):
    """The control request cannot be served; its text goes into an error control_response."""


async def answer_mcp_message(request: Mapping[str, Any], servers: Mapping[str, McpServer],
                             notify: Callable[[str], Notify], peer: Hashable,
                             cancel: Cancel | None = None,
                             calls: dict[tuple[str, Any], object] | None = None) -> dict[str, Any]:
    """The answer to an ``mcp_message``. ``calls``: the (server, JSON-RPC id) of this
    session's tools/call in flight (see ``_claim``)."""
    server_name = request.get("server_name")
    message = request.get("message")
    if type(message) is not dict and not isinstance(message, Mapping):  # dict: no ABC check
        raise ControlRequestError("mcp_message without a JSON-RPC 'message' object")
    server = servers.get(server_name) if isinstance(server_name, str) else None
    if server is None:
        known = ", ".join(sorted(servers)) or "none"
        if "id" not in message:
            return ACK  # a notification for a server we don't have: nothing to say
        return {"mcp_response": rpc.error_response(
            _id(message), rpc.METHOD_NOT_FOUND,
            f"Server {cut(repr(server_name), 100)} not found (this host serves: {known})")}
    claimed = None
    if calls is not None:
        claimed = _claim(calls, server.name, message)
        if claimed is not None and claimed[1] is None:
            return {"mcp_response": rpc.error_response(
                message.get("id"), rpc.INVALID_REQUEST,
                f"Invalid Request: id {cut(repr(message.get('id')), 100)} is already the id of "
                "a tools/call in flight (an id names one request at a time)")}
    try:
        response = await server.handle(message, notify=notify(server.name), peer=peer,
                                       cancel=cancel)
    except Exception as exc:  # a bug in the core must not cost the CLI its answer
        log_failure(log, f"MCP server {server_name} on {cut(repr(message.get('method')), 100)}",
                    exc)
        return {"mcp_response": rpc.error_response(
            _id(message), rpc.INTERNAL_ERROR, f"Internal error: {type(exc).__name__}")}
    finally:
        if claimed is not None and calls is not None and calls.get(claimed[0]) is claimed[1]:
            del calls[claimed[0]]
    return ACK if response is None else {"mcp_response": response}


def _claim(calls: dict[tuple[str, Any], object], server: str,
           message: Mapping[str, Any]) -> tuple[tuple[str, Any], object | None] | None:
    """A tools/call's (server, id) entered in ``calls``, with the token that is its claim
    (None when a call in flight has that id already); None for anything else. A
    notifications/cancelled frees the id it names (the call is on its way out).

    The MCP core finds the call a notifications/cancelled names by its id: a second call
    under the id of one in flight would take its place there, leaving the first one
    impossible to cancel (it ran to its end, or the session's) and the cancel reaching the
    second one instead. So the second is refused (JSON-RPC asks ids to be unique).
    """
    method = message.get("method")
    if method == "tools/call":
        request_id = message.get("id")
        if not rpc.is_valid_id(request_id):
            return None
        key = (server, request_id)
        if key in calls:
            return key, None
        token = calls[key] = object()
        return key, token
    if method == "notifications/cancelled":
        params = message.get("params")
        if isinstance(params, Mapping) and rpc.is_valid_id(params.get("requestId")):
            calls.pop((server, params.get("requestId")), None)
    return None


def _permission_request(request: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    tool_name = request.get("tool_name")
    tool_input = request.get("input")
    if not isinstance(tool_name, str):
        raise ControlRequestError("can_use_tool without a string 'tool_name'")
    if tool_input is None:
        tool_input = {}
    if not isinstance(tool_input, dict):
        raise ControlRequestError(f"can_use_tool for {tool_name}: 'input' must be an object")
    return tool_name, tool_input


def _permission_answer(tool_name: str, tool_input: dict[str, Any],
                       decision: Decision) -> dict[str, Any]:
    if decision.behavior == "allow" and decision.updated_input is None:
        # The official SDK always echoes the input; do the same so every CLI version agrees.
        return {"behavior": "allow", "updatedInput": tool_input}
    if decision.behavior == "ask":  # fail closed: nobody resolved the question
        return {"behavior": "deny", "message": scrub(
            decision.message or f"No one could approve {tool_name}; denied.")}
    answer = decision.to_control_response()
    if isinstance(answer.get("message"), str):  # the model reads it; the CLI stores it
        answer["message"] = scrub(answer["message"])
    if answer["behavior"] == "allow" and "updatedInput" not in answer:
        answer["updatedInput"] = tool_input  # (a decision of another kind, if any)
    return answer


async def answer_can_use_tool(request: Mapping[str, Any],
                              permission: PermissionFn | None) -> dict[str, Any]:
    tool_name, tool_input = _permission_request(request)
    if permission is None:
        return {"behavior": "deny", "message": NO_POLICY_MESSAGE}
    decision = await permission(tool_name, tool_input, dict(request))
    return _permission_answer(tool_name, tool_input, decision)


def answer_can_use_tool_now(request: Mapping[str, Any],
                            decide_now: DecideNowFn) -> dict[str, Any] | None:
    """``answer_can_use_tool`` without a pause, or None when that takes one (an "ask", a
    malformed request: ``answer_can_use_tool`` then answers it)."""
    try:
        tool_name, tool_input = _permission_request(request)
    except ControlRequestError:
        return None
    # the parsed request itself (the session keeps no other use of it): no copy per call
    decision = decide_now(tool_name, tool_input,
                          request if type(request) is dict else dict(request))
    return None if decision is None else _permission_answer(tool_name, tool_input, decision)


def _id(message: Mapping[str, Any]) -> Any:
    """The id to answer a message under: its own if valid, else null (JSON-RPC)."""
    request_id = message.get("id")
    return request_id if rpc.is_valid_id(request_id) else None
