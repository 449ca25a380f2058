"""An upstream's resources, resource templates and prompts, offered as the imported server's.

They are listed when the upstream is connected (like its tools), listed again when it
announces that they changed (``toolhost.gateway.content_refresh``), and read or rendered by
the upstream on each request; what comes back is checked for shape and size. They go through
the same doors as a declared server's: ``resources/read`` meets the ``ReadMcpResourceTool``
rules, the lists are paginated by toolhost, and several served servers keep prompt names
apart (``<server>__<prompt>``). Under ``serve``, the upstream's ``resources/updated`` for a
URI toolhost's clients subscribed to is passed on (``toolhost.serve.upstream_updates`` finds
the upstream through a resource's ``connection``; ``toolhost.gateway.updates`` subscribes).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import anyio

from toolhost import regex
from toolhost.backends.base import CallContext
from toolhost.compile.content import ServerContent
from toolhost.compile.content_claims import arrange
from toolhost.compile.content_kinds import Prompt, PromptError, Resource, ResourceError
from toolhost.compile.resource_uri import normalize
from toolhost.excerpt import cut
from toolhost.gateway.bounds import MAX_TITLE, bound_entry
from toolhost.gateway.call_stop import CallStop
from toolhost.gateway.client import MAX_PAGES, UpstreamConnection, UpstreamError
from toolhost.gateway.content_cut import cut_contents, cut_messages
from toolhost.gateway.content_shape import shaped_contents, shaped_prompt
from toolhost.gateway.prompt_case import alike, ambiguous
from toolhost.gateway.sendable import unsendable
from toolhost.shown import TooDeep, hiding, shown, shown_value

__all__ = ["list_content", "upstream_content"]

log = logging.getLogger("toolhost.gateway")

RESOURCE_NOT_FOUND = -32002  # MCP's code for resources/read of an unknown URI
_NOT_FOUND_CODES = frozenset({RESOURCE_NOT_FOUND, -32602})  # -32602: invalid params (the URI)
MAX_ITEMS = 10_000  # resources, templates or prompts taken from one upstream
MAX_ENTRY_CHARS = 65_536  # of one listed resource, template or prompt (bigger ones are skipped)
MAX_CONTENT_CHARS = 10_000_000  # of one resources/read or prompts/get answer, refused beyond
# (what is kept of one is then cut like a tool's answer: toolhost.gateway.content_cut)
_EXPRESSION = re.compile(r"\{([^{}]*)\}")


def upstream_content(connection: UpstreamConnection, server: str) -> ServerContent:
    """What the upstream offers besides tools (empty when it offers nothing, or listing it
    failed: that is logged, and the tools are served all the same)."""
    try:
        return list_content(connection, server)
    except UpstreamError as exc:
        log.warning("%s: its upstream's resources and prompts are not offered: %s", server,
                    cut(str(exc), 300))
        return ServerContent()


def list_content(connection: UpstreamConnection, server: str) -> ServerContent:
    """List the upstream's resources, resource templates and prompts (blocking: call it
    outside the connection's thread). UpstreamError when any listing fails."""
    within = connection.list_deadline
    caps = connection.run(_capabilities)
    resources: list[Resource] = []
    if caps["resources"]:
        listed = connection.run(_every("list_resources", "resources", server), within,
                                "listing of its resources")
        if listed:
            resources.append(UpstreamResources(connection, server, tuple(listed)))
        for template in connection.run(_every("list_resource_templates",
                                              "resource_templates", server), within,
                                       "listing of its resource templates"):
            compiled = UpstreamTemplate.of(connection, template)
            if compiled is not None:
                resources.append(compiled)
    prompts: dict[str, Prompt] = {}
    if caps["prompts"]:
        for prompt in connection.run(_every("list_prompts", "prompts", server), within,
                                     "listing of its prompts"):
            name = prompt.get("name")
            if isinstance(name, str) and len(name) > MAX_TITLE:
                log.warning("upstream server '%s': its prompt %r is left out: its name is "
                            "over %d characters", server, cut(name, 80), MAX_TITLE)
            elif isinstance(name, str) and name and name not in prompts:
                prompts[name] = UpstreamPrompt(connection, name, prompt)
        for name in ambiguous(prompts, server):  # (told apart as a case-blind upstream)
            del prompts[name]
    # toolhost:// names declared resources only: what claims it is left out (with a
    # warning) here, not only when servers are merged (serve), or under `toolhost run` the
    # CLI listed such a URI that every read of then answered "not found"
    kept, _, _ = arrange({server: resources})
    return ServerContent(kept, prompts)


async def _capabilities(client: Any) -> dict[str, bool]:
    caps = client.server_capabilities
    return {"resources": caps.resources is not None, "prompts": caps.prompts is not None}


def _every(method: str, key: str, server: str) -> Any:
    """An operation listing every page of ``method`` (at most MAX_ITEMS entries, MAX_PAGES
    pages: a warning says when the rest is left out)."""
    async def operation(client: Any) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await getattr(client, method)(cursor=cursor, cache_mode="bypass")
            items = getattr(page, key)
            for item in items[:MAX_ITEMS - len(found)]:
                # what the upstream wrote for the model, cut (descriptions, titles)
                entry = bound_entry(item.model_dump(mode="json", by_alias=True,
                                                    exclude_none=True))
                size = len(json.dumps(entry))
                hidden = _hidden_name(entry)
                if hidden:  # (an escape would change how it is called: left out)
                    log.warning("upstream server '%s': one of its %s ('%s') is left out: its "
                                "%s holds characters a person cannot see", server, key,
                                cut(shown(str(entry.get("name") or entry.get("uri")
                                              or entry.get("uriTemplate"))), 80), hidden)
                elif size <= MAX_ENTRY_CHARS:  # a listing, not a payload
                    found.append(entry)
                else:
                    log.warning("upstream server '%s': one of its %s (%r) is left out: it "
                                "is %s characters, over %s", server, key,
                                cut(str(entry.get("name") or entry.get("uri")), 80),
                                f"{size:,}", f"{MAX_ENTRY_CHARS:,}")
            cursor = page.next_cursor
            if len(found) >= MAX_ITEMS and (cursor or len(items) > MAX_ITEMS):
                log.warning("upstream server '%s' lists more than %s %s; the rest are left "
                            "out", server, f"{MAX_ITEMS:,}", key)
                break
            if not cursor:
                break
        else:
            log.warning("upstream server '%s' lists its %s on more than %d pages; the rest "
                        "are left out", server, key, MAX_PAGES)
        return found
    return operation


def _hidden_name(entry: Mapping[str, Any]) -> str:
    """Which name of a listed resource, template or prompt holds a character a person
    cannot see (``uri``, ``uriTemplate``, ``name`` of a prompt, an argument's ``name``), or
    "". A resource's ``name`` is only shown (escaped by bound_entry)."""
    named = ("uri", "uriTemplate") if "uri" in entry or "uriTemplate" in entry \
        else ("name",)
    for key in named:
        if isinstance(entry.get(key), str) and hiding(entry[key]):
            return key
    for argument in entry.get("arguments") or ():
        if isinstance(argument, Mapping) and isinstance(argument.get("name"), str) \
                and hiding(argument["name"]):
            return "argument name"
    return ""


async def _ask(connection: UpstreamConnection, operation: Any) -> Any:
    """Run an operation on the upstream without blocking the event loop. Cancelled (its
    client cancelled the read or the prompt get), it is cancelled upstream too: abandoned,
    the upstream went on with it until its timeout, told nothing."""
    stop = CallStop()
    try:
        return await anyio.to_thread.run_sync(lambda: connection.run(operation, stop=stop),
                                              abandon_on_cancel=True)
    except anyio.get_cancelled_exc_class():
        stop.cancel()
        raise


async def _read(connection: UpstreamConnection, uri: str) -> list[dict[str, Any]]:
    cannot = unsendable(uri)
    if cannot:  # (the mcp client would fail the whole connection writing it)
        raise ResourceError(f"the URI cannot be sent to upstream server "
                            f"'{connection.server}': {cannot}")

    async def operation(client: Any) -> list[dict[str, Any]]:
        result = await client.read_resource(uri)
        return [c.model_dump(mode="json", by_alias=True, exclude_none=True)
                for c in result.contents]

    try:
        contents: list[dict[str, Any]] = await _ask(connection, operation)
    except UpstreamError as exc:  # the upstream's own "not found" is ours too (a resource
        # it dropped, read before its announcement is followed): -32002 as the spec says, or
        # -32602, which the official Python SDK answers for an unknown URI
        raise ResourceError(cut(shown(str(exc)), 500),
                            not_found=exc.code in _NOT_FOUND_CODES) from None
    size = sum(len(str(c.get("text") or c.get("blob") or "")) for c in contents)
    if size > MAX_CONTENT_CHARS:
        raise ResourceError(f"the upstream's answer for {cut(uri, 200)} is {size:,} "
                            f"characters; the limit is {MAX_CONTENT_CHARS:,}")
    try:  # hiding characters written visibly (toolhost.shown), then cut
        return cut_contents(shown_value(shaped_contents(contents)), uri)
    except TooDeep as exc:
        raise ResourceError(f"the upstream's answer for {cut(uri, 200)} cannot be shown: "
                            f"{exc}") from None


class _ReadThrough:
    """A URI matched here is read by the upstream, as it is."""

    connection: UpstreamConnection

    def canonical(self, uri: str, values: Mapping[str, str]) -> str:
        return uri  # normalised; the upstream decodes the rest its own way

    async def read(self, uri: str, values: Mapping[str, str],
                   ctx: CallContext) -> list[dict[str, Any]]:
        return await _read(self.connection, uri)


@dataclass(frozen=True)
class UpstreamResources(_ReadThrough):
    """The upstream's listed (static) resources, read through the upstream."""

    connection: UpstreamConnection
    server: str
    entries: tuple[dict[str, Any], ...]
    uris: frozenset[str] = field(default=frozenset())

    def __post_init__(self) -> None:
        uris = frozenset(normalize(str(e["uri"])) for e in self.entries
                         if isinstance(e.get("uri"), str))
        object.__setattr__(self, "uris", uris)

    is_template = False

    def descriptor(self) -> dict[str, Any]:
        return {"upstream": self.server, "resources": list(self.entries)}

    def listed(self) -> Iterator[dict[str, Any]]:
        yield from (dict(e) for e in self.entries if isinstance(e.get("uri"), str))

    def matches(self, uri: str) -> Mapping[str, str] | None:
        return {} if uri in self.uris else None


@dataclass(frozen=True)
class UpstreamTemplate(_ReadThrough):
    """One of the upstream's resource templates; a URI it matches is read by the upstream."""

    connection: UpstreamConnection
    entry: dict[str, Any]
    pattern: regex.Pattern

    is_template = True

    @classmethod
    def of(cls, connection: UpstreamConnection, entry: dict[str, Any]
           ) -> UpstreamTemplate | None:
        template = entry.get("uriTemplate")
        if not isinstance(template, str) or not template or len(template) > 2000:
            return None
        # Each {expression} matches any text (RFC 6570 levels 1-4 all allowed), in RE2: a
        # hostile template cannot make matching a long URI slow.
        parts, last = [], 0
        for found in _EXPRESSION.finditer(template):
            parts.append(re.escape(template[last:found.start()]))
            parts.append(".*" if found.group(1)[:1] in "+#/?&;." else "[^/?#]*")
            last = found.end()
        parts.append(re.escape(template[last:]))
        try:
            pattern = regex.compile("".join(parts))
        except regex.RegexError:
            return None
        return cls(connection, entry, pattern)

    def descriptor(self) -> dict[str, Any]:
        return dict(self.entry)

    def listed(self) -> Iterator[dict[str, Any]]:
        return iter(())

    def matches(self, uri: str) -> Mapping[str, str] | None:
        return {} if self.pattern.fullmatch(uri) else None


@dataclass(frozen=True)
class UpstreamPrompt:
    """One of the upstream's prompts, rendered by the upstream."""

    connection: UpstreamConnection
    name: str  # as listed here (``<server>__<prompt>`` when several servers are served)
    entry: dict[str, Any]

    def descriptor(self) -> dict[str, Any]:
        return {**self.entry, "name": self.name}

    def renamed(self, name: str) -> UpstreamPrompt:
        return replace(self, name=name)

    async def get(self, arguments: Any, ctx: CallContext) -> dict[str, Any]:
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in arguments.items()):
            raise PromptError("'arguments' must be an object of strings", invalid=True)
        name, given = str(self.entry["name"]), dict(arguments)
        declared = [a["name"] for a in self.entry.get("arguments") or ()
                    if isinstance(a, Mapping) and isinstance(a.get("name"), str)]
        why = alike(given, declared)
        if why:
            raise PromptError(f"the arguments of prompt {cut(name, 100)!r} cannot be sent: "
                              f"{why}", invalid=True)
        cannot = unsendable(given)
        if cannot:
            raise PromptError(f"the arguments of prompt {cut(name, 100)!r} cannot be sent: "
                              f"{cannot}", invalid=True)

        async def operation(client: Any) -> dict[str, Any]:
            result = await client.get_prompt(name, given)
            return dict(result.model_dump(mode="json", by_alias=True, exclude_none=True))

        try:
            answer: dict[str, Any] = await _ask(self.connection, operation)
        except UpstreamError as exc:
            raise PromptError(cut(shown(str(exc)), 500)) from None
        if len(str(answer)) > MAX_CONTENT_CHARS:
            raise PromptError(f"the upstream's prompt {cut(name, 100)!r} is over "
                              f"{MAX_CONTENT_CHARS:,} characters")
        try:  # hiding characters written visibly (toolhost.shown), then cut
            return cut_messages(shown_value(shaped_prompt(answer)))
        except TooDeep as exc:
            raise PromptError(f"the upstream's prompt {cut(name, 100)!r} cannot be shown: "
                              f"{exc}") from None
