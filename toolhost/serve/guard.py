"""Permission rules inside ``tools/call``: a standalone MCP server has no ``can_use_tool``.

A deny becomes an ``isError`` result carrying the rule's message (the model can read it);
an ``ask`` that nobody can answer is a deny, saying so. An allow that rewrites the input
runs the tool with the rewritten arguments.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Protocol

from toolhost.backends.base import CallContext
from toolhost.compile.defaults import FillRefused, fill_defaults
from toolhost.compile.resource_uri import decoded, resolved
from toolhost.compile.tool import CompiledTool
from toolhost.excerpt import cut
from toolhost.mcp.server import Guard, PromptGuard, PromptVisible, ReadGuard, ReadVisible
from toolhost.permissions.decision import Decision
from toolhost.permissions.sameness import same_json
from toolhost.redaction import scrub
from toolhost.results import ToolResult
from toolhost.serve.metrics import note_decision_metric
from toolhost.serve.telemetry import note_decision

__all__ = ["GET_PROMPT_TOOL", "READ_RESOURCE_TOOL", "Decide", "Gate", "decided",
           "judged_input", "permission_guard", "prompt_guard", "prompt_visible", "read_guard",
           "read_visible", "rules_defaults"]

# The Claude CLI's built-in tool that reads MCP resources: rules name it, under run and serve.
READ_RESOURCE_TOOL = "ReadMcpResourceTool"
# What rules name a prompts/get by (the CLI has no tool for it; named like the one above)
GET_PROMPT_TOOL = "GetMcpPromptTool"

log = logging.getLogger("toolhost.serve")


class Gate(Protocol):
    """What the guard needs of the permission gate: one async decision per call."""

    async def check(self, tool_name: str, tool_input: Mapping[str, Any]) -> Decision: ...


Decide = Callable[[str, Mapping[str, Any]], Decision]
"""The policy's decision on one call, asking nobody and recording nothing (``Policy.decide``)."""


def rules_defaults(gate: object, tool_name: str) -> Mapping[str, Any] | None:
    """The defaults the rules of ``gate`` fill into a call of ``tool_name`` now (its
    policy's, or what its ``rules_defaults`` method says: ``toolhost serve``'s current
    build); ``{}`` for a gate that tells none."""
    by_name = getattr(getattr(gate, "policy", None), "defaults", None)
    if type(by_name) is dict:  # a PermissionGate (every decision: no ABC check, no lookup
        return by_name.get(tool_name)  # of a method it does not have)
    told = getattr(gate, "rules_defaults", None)
    if callable(told):
        found: Mapping[str, Any] | None = told(tool_name)
        return found
    return by_name.get(tool_name) if isinstance(by_name, Mapping) else {}


def judged_input(tool: CompiledTool, arguments: Mapping[str, Any],
                 rules: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """What the rules are to judge of a call of ``tool``: ``arguments`` with the tool's own
    defaults filled in (the ones it runs with) when the defaults the rules fill (``rules``)
    are others, as they are for a moment when an upstream re-lists its tools (or a reload
    comes) between the call's look-up and its decision: the rules then fill only what the
    tool leaves to its upstream. As they are otherwise. Raises ``FillRefused``."""
    if not tool.defaults or rules is tool.defaults:
        return arguments
    return fill_defaults(tool.defaults, arguments)


def permission_guard(gate: Gate, wire_name: Callable[[CompiledTool], str]) -> Guard:
    """A McpServer guard applying ``gate`` to every call, by the config's wire names. The
    rules judge the call with the defaults of the very tool that runs (``judged_input``)."""

    async def guard(tool: CompiledTool, arguments: Mapping[str, Any],
                    ctx: CallContext) -> ToolResult | None:
        name = wire_name(tool)
        try:
            judged = judged_input(tool, arguments, rules_defaults(gate, name))
        except FillRefused as exc:
            return ToolResult.error(exc.said(name))
        decision = await gate.check(name, judged)
        note_decision(decision.behavior, decision.rule)  # on the call's span, if traced
        note_decision_metric(decision.behavior)  # and its metrics, if measured
        nobody = (f"Tool {name} needs approval and there is no one to ask here (toolhost "
                  "serve); denied.") if decision.behavior == "ask" else None
        # The call's own context (its progress token, the client to elicit from), named as
        # the rules name it
        call_ctx = ctx if ctx.tool == name else replace(ctx, tool=name)
        return await decided(decision, tool, arguments, call_ctx, name, refused=nobody)

    return guard


async def decided(decision: Decision, tool: CompiledTool, arguments: Mapping[str, Any],
                  ctx: CallContext, name: str, *, refused: str | None = None
                  ) -> ToolResult | None:
    """What a guard answers for ``decision``: None to run the call as it is, the call run
    with the input an allow rewrote, or a denial's error result (the model reads it) with
    the rule's message, else ``refused``, else a plain one; redacted, since a rule's message
    may quote a ${SECRET}."""
    if decision.behavior == "allow":
        # Strict JSON sameness: ``true`` is not ``1``; when unsure, run the rewritten input
        if decision.updated_input is not None and not same_json(
                dict(decision.updated_input), dict(arguments)):
            return await tool.call(decision.updated_input, ctx)
        return None
    message = scrub(decision.message or refused or f"Tool {name} is denied by toolhost policy.")
    log.info("denied %s: %s", name, message)
    return ToolResult.error(message)


def read_guard(gate: Gate, server: str,
               owner: Callable[[str], str | None] | None = None,
               claim: Callable[[str, str], bool] | None = None) -> ReadGuard:
    """A McpServer read guard: every resources/read is decided as the CLI's
    ``ReadMcpResourceTool`` with input ``{server, uri}`` (the CLI itself asks nobody before it
    reads a resource, so this is where rules on it take effect). An ask nobody can answer is
    a deny. ``server`` is the served server that owns the URI (``owner(uri)``: several servers
    served as one), else ``server``.

    ``uri`` is the canonical spelling (``ServerContent.canonical_uri``: what is read). When
    its fully decoded form differs (``%20``, ``%2F`` in a value), or what it means to a server
    that decodes it and resolves its dot-segments (``a/..%2Fsecret`` is ``secret``:
    ``resolved``), rules are asked about each form and the read needs every one allowed: a
    rule written any way holds, and an upstream that decodes a URI its own way cannot be led
    past a deny. A URI that keeps changing as it is decoded is refused.

    ``claim(server, uri)``: whether this very read was allowed already (``toolhost run``: the
    CLI asked ``can_use_tool`` about the same input, ``NotedReads``); only a URI with no
    other form to decide is claimed."""

    async def guard(uri: str) -> str | None:
        final = resolved(uri)
        if final is None:
            message = f"reading {cut(uri, 200)} is refused: it is encoded over and over"
            log.info("denied resources/read %s: %s", scrub(uri)[:200], message)
            return scrub(message)
        named = (owner(uri) if owner is not None else None) or server
        forms = dict.fromkeys((uri, decoded(uri), final))
        if claim is not None and len(forms) == 1 and claim(named, uri):
            return None  # decided (and asked, audited) as the CLI's can_use_tool
        for form in forms:
            decision = await gate.check(READ_RESOURCE_TOOL, {"server": named, "uri": form})
            if decision.behavior != "allow":
                break
        else:
            return None
        message = decision.message or (
            f"reading {uri} needs approval and nobody can be asked here"
            if decision.behavior == "ask" else f"reading {uri} is denied by toolhost policy")
        message = scrub(message)
        log.info("denied resources/read %s: %s", scrub(uri)[:200], message)
        return message

    return guard


def prompt_guard(gate: Gate, server: str,
                 owner: Callable[[str], tuple[str, str] | None] | None = None) -> PromptGuard:
    """A McpServer prompt guard: every prompts/get is decided as ``GetMcpPromptTool`` with
    input ``{server, name, arguments}`` (as ``ReadMcpResourceTool`` decides a read), so a
    deny or an ask rule can stop a prompt. An ask nobody can answer is a deny. Several
    servers served as one list ``<server>__<prompt>``: ``owner(name)`` gives the server and
    the prompt's own name, so a rule holds under ``--all`` as under ``--server``."""

    async def guard(name: str, arguments: Mapping[str, Any]) -> str | None:
        named, own = (owner(name) if owner is not None else None) or (server, name)
        decision = await gate.check(GET_PROMPT_TOOL, {"server": named, "name": own,
                                                      "arguments": dict(arguments)})
        if decision.behavior == "allow":
            return None
        message = decision.message or (
            f"prompt {own} of server {named} needs approval and nobody can be asked here"
            if decision.behavior == "ask" else
            f"prompt {own} of server {named} is denied by toolhost policy")
        message = scrub(message)
        log.info("denied prompts/get %s: %s", scrub(cut(name, 200)), message)
        return message

    return guard


def read_visible(decide: Decide, server: str,
                 owner: Callable[[str], str | None] | None = None) -> ReadVisible:
    """Whether no rule denies reading ``uri`` (in any of the forms ``read_guard`` asks
    about): a completion shows a value only then. An ask is not a deny here (the read itself
    still asks); nobody is asked and nothing is recorded."""

    def visible(uri: str) -> bool:
        final = resolved(uri)
        if final is None:
            return False
        named = (owner(uri) if owner is not None else None) or server
        return all(decide(READ_RESOURCE_TOOL, {"server": named, "uri": form}).behavior
                   != "deny" for form in dict.fromkeys((uri, decoded(uri), final)))

    return visible


def prompt_visible(decide: Decide, server: str,
                   owner: Callable[[str], tuple[str, str] | None] | None = None
                   ) -> PromptVisible:
    """Whether no rule denies the prompt with these arguments (as ``prompt_guard`` asks):
    a completion of one of its arguments shows a value only then."""

    def visible(name: str, arguments: Mapping[str, Any]) -> bool:
        named, own = (owner(name) if owner is not None else None) or (server, name)
        return decide(GET_PROMPT_TOOL, {"server": named, "name": own,
                                        "arguments": dict(arguments)}).behavior != "deny"

    return visible
