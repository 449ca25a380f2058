"""The permission doors of the content methods: prompts/get and completion/complete.

``resources/read`` and ``resources/subscribe`` ask the read guard in the server's dispatch
(``McpServer._content_handler``); here are the others. A prompt is asked of the prompt guard
(``GetMcpPromptTool`` rules: ``toolhost.serve.guard.prompt_guard``), and so is completing one
of its arguments; completing a resource template's variable asks the read guard about the
URI it is about (the template with the value typed so far), so a read deny also keeps a
completion function from running and listing what it covers. A guard that fails refuses
(fail closed). Refusals are ``MethodError`` -32600.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from toolhost.compile.content import ServerContent
from toolhost.compile.resource_uri import filled
from toolhost.excerpt import cut
from toolhost.failures import log_failure
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp.content import MAX_URI_CHARS, MethodError

__all__ = ["PromptGuard", "ReadGuard", "completion_readable", "prompt_allowed"]

log = logging.getLogger("toolhost.mcp")

ReadGuard = Callable[[str], Awaitable[str | None]]
"""Runs before each resources/read with the URI; a returned message refuses the read."""

PromptGuard = Callable[[str, Mapping[str, Any]], Awaitable[str | None]]
"""Runs before each prompts/get (and completion/complete on a prompt) with the prompt's name
and arguments; a returned message refuses it."""


async def prompt_allowed(guard: PromptGuard, content: ServerContent,
                         params: Mapping[str, Any], completing: bool) -> None:
    """Raise unless ``guard`` allows this prompts/get (or a completion of one of the prompt's
    arguments: decided on the prompt with no arguments). A name no prompt has is not asked
    about (the method answers "unknown prompt"; the audit log holds no made-up names)."""
    arguments: Any = {}
    if completing:
        ref = params.get("ref")
        if not isinstance(ref, Mapping) or ref.get("type") != "ref/prompt":
            return  # a template's completion: see completion_readable
        name = ref.get("name")
    else:
        name, arguments = params.get("name"), params.get("arguments")
    if not isinstance(name, str) or name not in content.prompts:
        return  # the method says what is wrong
    try:
        refused = await guard(name, arguments if isinstance(arguments, Mapping) else {})
    except Exception as exc:  # fail closed, as for tools
        log_failure(log, f"permission guard for prompts/get {cut(name, 100)}", exc)
        refused = "the permission check failed"
    if refused is not None:
        raise MethodError(rpc.INVALID_REQUEST, f"Prompt denied: {refused}")


async def completion_readable(guard: ReadGuard, content: ServerContent,
                              params: Mapping[str, Any]) -> None:
    """Raise unless ``guard`` allows reading the URI a completion of a resource template's
    variable is about (in canonical spelling, as a read is decided)."""
    ref, argument = params.get("ref"), params.get("argument")
    if not (isinstance(ref, Mapping) and ref.get("type") == "ref/resource"
            and isinstance(ref.get("uri"), str) and isinstance(argument, Mapping)
            and isinstance(argument.get("name"), str)
            and isinstance(argument.get("value", ""), str)):
        return  # a prompt's completion, or the method says what is wrong
    template: str = ref["uri"]
    if len(template) > MAX_URI_CHARS:
        raise MethodError(rpc.INVALID_PARAMS, f"Invalid params: 'uri' is {len(template):,} "
                          f"characters; at most {MAX_URI_CHARS:,}")
    value = str(argument.get("value", ""))[:1000]  # as much as the method completes on
    uri = content.canonical_uri(filled(template, argument["name"], value))
    try:
        refused = await guard(uri)
    except Exception as exc:  # fail closed, as for reads
        log_failure(log, f"permission guard for completion/complete {cut(uri, 200)}", exc)
        refused = "the permission check failed"
    if refused is not None:
        raise MethodError(rpc.INVALID_REQUEST, f"Resource read denied: {refused}")
