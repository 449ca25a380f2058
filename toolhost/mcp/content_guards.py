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
from toolhost.mcp.content import MAX_URI_CHARS, MethodError, context_arguments

__all__ = ["PromptGuard", "PromptVisible", "ReadGuard", "ReadVisible", "completion_filter",
           "completion_readable", "prompt_allowed"]

log = logging.getLogger("toolhost.mcp")

ReadGuard = Callable[[str], Awaitable[str | None]]
"""Runs before each resources/read with the URI; a returned message refuses the read."""

PromptGuard = Callable[[str, Mapping[str, Any]], Awaitable[str | None]]
"""Runs before each prompts/get (and completion/complete on a prompt) with the prompt's name
and arguments; a returned message refuses it."""

ReadVisible = Callable[[str], bool]
"""Whether the rules leave a read of the (canonical) URI undenied; asks nobody, records
nothing: what a completion value names is shown only when it is."""

PromptVisible = Callable[[str, Mapping[str, Any]], bool]
"""Whether the rules leave a prompts/get of the prompt with those arguments undenied (asks
nobody, records nothing)."""



async def prompt_allowed(guard: PromptGuard, content: ServerContent,
                         params: Mapping[str, Any], completing: bool,
                         visible: PromptVisible | None = None) -> None:
    """Raise unless ``guard`` allows this prompts/get (or a completion of one of the prompt's
    arguments: decided on the prompt with no arguments). A name no prompt has is not asked
    about (the method answers "unknown prompt"; the audit log holds no made-up names).

    A completion asks nobody: with ``visible`` it is refused only when a rule denies (then
    ``guard`` says why; a deny asks no one), as its values are filtered (an ``ask`` rule
    does not hide a name; the prompts/get itself asks)."""
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
        if completing and visible is not None and visible(name, {}):
            return  # no rule denies it: decided without asking anyone
        refused = await guard(name, arguments if isinstance(arguments, Mapping) else {})
    except Exception as exc:  # fail closed, as for tools
        log_failure(log, f"permission guard for prompts/get {cut(name, 100)}", exc)
        refused = "the permission check failed"
    if refused is not None:
        raise MethodError(rpc.INVALID_REQUEST, f"Prompt denied: {refused}")


async def completion_readable(guard: ReadGuard, content: ServerContent,
                              params: Mapping[str, Any],
                              visible: ReadVisible | None = None) -> None:
    """Raise unless ``guard`` allows reading the URI a completion of a resource template's
    variable is about (in canonical spelling, as a read is decided). With ``visible`` nobody
    is asked: only a deny refuses (``guard`` then says why; a deny asks no one)."""
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
    uri = _about(content, template, argument["name"], value, _context(params))
    try:
        if visible is not None and visible(uri):
            return  # no rule denies it: decided without asking anyone
        refused = await guard(uri)
    except Exception as exc:  # fail closed, as for reads
        log_failure(log, f"permission guard for completion/complete {cut(uri, 200)}", exc)
        refused = "the permission check failed"
    if refused is not None:
        raise MethodError(rpc.INVALID_REQUEST, f"Resource read denied: {refused}")


def completion_filter(content: ServerContent, params: Mapping[str, Any],
                      read_visible: ReadVisible | None, prompt_visible: PromptVisible | None
                      ) -> Callable[[str], bool] | None:
    """Whether each value a completion source gives may be shown: a template variable's
    value names the URI the template gives with it (a deny on ``tickets://S-9`` hides
    ``S-9`` even when what was typed, ``""``, is allowed); a prompt argument's, the prompt
    with that argument (and the completion's ``context.arguments``). None: nothing to ask."""
    ref, argument = params.get("ref"), params.get("argument")
    if not isinstance(ref, Mapping) or not isinstance(argument, Mapping):
        return None
    name = argument.get("name")
    if not isinstance(name, str):
        return None
    if ref.get("type") == "ref/resource" and read_visible is not None:
        template = ref.get("uri")
        if not isinstance(template, str):
            return None
        see, known = read_visible, _context(params)
        return lambda value: see(_about(content, template, name, value, known))
    if ref.get("type") == "ref/prompt" and prompt_visible is not None:
        prompt = ref.get("name")
        if not isinstance(prompt, str):
            return None
        given, look = _context(params), prompt_visible
        return lambda value: look(prompt, {**given, name: value})
    return None


_context = context_arguments  # the completion's context.arguments, bounded


def _about(content: ServerContent, template: str, name: str, value: str,
           known: Mapping[str, str]) -> str:
    """The canonical URI a completion of ``name`` with ``value`` is about: the template with
    the other variables the client filled in (``context.arguments``) and this one."""
    for other, given in known.items():
        if other != name:
            template = filled(template, other, given)
    return content.canonical_uri(filled(template, name, value))
