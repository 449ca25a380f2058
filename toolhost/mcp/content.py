"""resources/*, prompts/* and completion/complete over a ``ServerContent``, transport-free.

Each method takes the request's params and returns the result dict (the legacy shape; the
server adds what the 2026-07-28 revision needs) or raises ``MethodError``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any

try:  # what hashlib.blake2b is, without loading OpenSSL's _hashlib (~2.5 ms of serve's start)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter without CPython's built-in module
    from hashlib import blake2b

from toolhost.backends.base import CallContext
from toolhost.compile.content import MAX_COMPLETIONS, ServerContent
from toolhost.compile.content_kinds import PromptError, ResourceError
from toolhost.excerpt import cut
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp.subscriptions import Refused, Subscriptions
from toolhost.mcp.toolset import BadCursor, decode_anchored, encode_cursor
from toolhost.redaction import active
from toolhost.redaction.binary import without_secret_data
from toolhost.redaction.process import scrub_value

__all__ = ["RESOURCE_NOT_FOUND", "ContentMethods", "MethodError", "check_encodable",
           "lone_surrogate", "not_utf8_escape"]

RESOURCE_NOT_FOUND = -32002  # the spec's code for resources/read of an unknown URI
MAX_URI_CHARS = 8192
MAX_CHECKED = 1000  # completion values asked of the rules per answer (the rest: hasMore)
MAX_CONTEXT_ARGUMENTS = 100  # a completion's context.arguments taken into account
MAX_COMPLETED_CHARS = 1_000  # the value being completed: what a person types, not a document
_log = logging.getLogger("toolhost.call")


class MethodError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


def _invalid(message: str) -> MethodError:
    return MethodError(rpc.INVALID_PARAMS, f"Invalid params: {message}")


class ContentMethods:
    """The content methods of one server; swapped whole on reload like the tool set."""

    def __init__(self, content: ServerContent, page_size: int) -> None:
        self.content = content
        self.page_size = page_size
        # resources/subscribe's table (bounded: a peer cannot grow it without end); the
        # server hands it from one ContentMethods to the next on a reload
        self.table = Subscriptions()
        # (caller, URI) -> whether resources/list shows it to that caller under the rules
        # of this build (toolhost.mcp.content_calls); the caller is a Caller or None
        self.visible: dict[tuple[Hashable, str], bool] = {}

    def capabilities(self) -> dict[str, Any]:
        caps: dict[str, Any] = {}
        promised = self.content.promised
        if self.content.resources or "resources" in promised:
            caps["resources"] = {"subscribe": True, "listChanged": True}
        if self.content.prompts or "prompts" in promised:
            caps["prompts"] = {"listChanged": True}
        if self.content.completions:
            caps["completions"] = {}
        return caps

    def _page(self, items: list[dict[str, Any]], key: str, cursor: Any) -> dict[str, Any]:
        """One page of ``items``. A cursor names the offset of the next page and the item it
        follows (a digest of its URI or name): when the list changed between pages (a file
        came or went before that point), the page starts after that item where it is now,
        so no entry is skipped or shown twice; an item gone since falls back to the offset."""
        start = 0
        if cursor is not None:
            try:
                anchor, start = decode_anchored(cursor, f"{key}:")
            except BadCursor as exc:
                raise _invalid(str(exc)) from None
            found = 0 < start <= len(items) and _digest(items[start - 1]) == anchor
            if not found:
                moved = next((index + 1 for index, item in enumerate(items)
                              if _digest(item) == anchor), None)
                found, start = (False, start) if moved is None else (True, moved)
            if start >= len(items) and not found:
                raise _invalid(f"cursor {cut(str(cursor), 100)!r} is past the end of the list")
        end = start + self.page_size
        page: dict[str, Any] = {key: items[start:end]}
        if end < len(items):
            page["nextCursor"] = encode_cursor(end, f"{key}:{_digest(items[end - 1])}:")
        return page

    async def resources_list(self, params: Mapping[str, Any],
                             visible: Callable[[Iterable[str]], set[str]] | None = None
                             ) -> dict[str, Any]:
        """``visible``: of the listed URIs, those a client may see (a URI the rules deny
        reading is not listed: its name is what the deny keeps). The directory walk runs on
        a worker thread (a 200,000-entry directory is ~200 ms of scandir: every other call
        of the server is still answered meanwhile); ``visible`` runs here, on the loop."""
        return self._page(_hidden(await self.listing_off_loop(visible)), "resources",
                          params.get("cursor"))

    async def listing_off_loop(self, visible: Callable[[Iterable[str]], set[str]] | None = None
                               ) -> list[dict[str, Any]]:
        """Every entry resources/list shows (all pages), those ``visible`` keeps; the
        directory walk runs on a worker thread, ``visible`` on the loop."""
        import anyio.to_thread  # here: loading toolhost.mcp stays free of anyio

        return self._kept(await anyio.to_thread.run_sync(self._entries), visible)

    def _entries(self) -> list[dict[str, Any]]:
        """Every entry of the resources (files and directory walks), before any rule."""
        return [entry for r in self.content.resources if not r.is_template
                for entry in r.listed()]

    @staticmethod
    def _kept(items: list[dict[str, Any]],
              visible: Callable[[Iterable[str]], set[str]] | None) -> list[dict[str, Any]]:
        if visible is not None:
            kept = visible(str(entry.get("uri", "")) for entry in items)
            items = [entry for entry in items if str(entry.get("uri", "")) in kept]
        return items

    async def templates_list(self, params: Mapping[str, Any]) -> dict[str, Any]:
        items = [r.descriptor() for r in self.content.resources if r.is_template]
        return self._page(_hidden(items), "resourceTemplates", params.get("cursor"))

    async def resources_read(self, params: Mapping[str, Any], ctx: CallContext
                             ) -> dict[str, Any]:
        uri = params.get("uri")
        if not isinstance(uri, str) or not uri:
            raise _invalid(_uri_needed("resources/read", uri))
        _bounded(uri)
        found = self.content.find(uri)
        if found is None:
            raise MethodError(RESOURCE_NOT_FOUND, f"Resource not found: {cut(uri, 200)}",
                              {"uri": cut(uri, 200)})
        resource, values = found
        try:
            contents = await resource.read(uri, values, ctx)
        except ResourceError as exc:
            if exc.not_found:
                raise MethodError(RESOURCE_NOT_FOUND, str(exc), {"uri": cut(uri, 200)}) \
                    from None
            raise MethodError(rpc.INTERNAL_ERROR, str(exc)) from None
        return {"contents": _hidden(self._labelled(uri, contents))}

    def _labelled(self, uri: str, contents: Any) -> list[dict[str, Any]]:
        """``contents``, each labelled with ``uri``: the URI read, the one the rules decided.
        A backend's own label (an embedded resource for ``file:///etc/passwd`` returned when
        ``notes://a`` was read) never reaches the client: what it names was not asked of the
        rules, and the client would take it as read from there."""
        out: list[dict[str, Any]] = []
        for entry in contents if isinstance(contents, list) else ():
            if not isinstance(entry, Mapping):
                continue
            label = entry.get("uri")
            if label is not None and label != uri:
                _log.debug("resources/read %s: contents labelled %s relabelled",
                           cut(uri, 200), cut(str(label), 200))
            out.append({**entry, "uri": uri})
        return out

    @property
    def subscriptions(self) -> dict[Hashable, set[str]]:
        """The URIs each peer subscribed to."""
        return self.table.by_peer

    async def subscribe(self, params: Mapping[str, Any], peer: Hashable) -> dict[str, Any]:
        from toolhost.permissions.callers.identity import current_caller

        try:
            self.table.add(peer, self._known_uri(params), current_caller())
        except Refused as exc:
            raise _invalid(str(exc)) from None
        return {}

    async def unsubscribe(self, params: Mapping[str, Any], peer: Hashable) -> dict[str, Any]:
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise _invalid(_uri_needed("resources/unsubscribe", uri))
        self.table.discard(peer, uri)
        return {}

    def subscribers(self, uri: str) -> list[Hashable]:
        """The peers subscribed to ``uri`` (for notifications/resources/updated)."""
        return self.table.subscribers(uri)

    def _known_uri(self, params: Mapping[str, Any]) -> str:
        uri = params.get("uri")
        if not isinstance(uri, str) or not uri:
            raise _invalid(_uri_needed("resources/subscribe", uri))
        _bounded(uri)
        if not self.content.exists(uri):  # a read could serve it (not any path of a directory)
            raise MethodError(RESOURCE_NOT_FOUND, f"Resource not found: {cut(uri, 200)}",
                              {"uri": cut(uri, 200)})
        return uri

    async def prompts_list(self, params: Mapping[str, Any]) -> dict[str, Any]:
        items = [p.descriptor() for p in self.content.prompts.values()]
        return self._page(_hidden(items), "prompts", params.get("cursor"))

    async def prompts_get(self, params: Mapping[str, Any], ctx: CallContext) -> dict[str, Any]:
        name = params.get("name")
        if not isinstance(name, str):
            raise _invalid("prompts/get needs a string 'name'")
        prompt = self.content.prompts.get(name)
        if prompt is None:
            raise _invalid(f"unknown prompt {cut(name, 100)!r}")
        try:
            return _hidden(await prompt.get(params.get("arguments"), ctx))  # type: ignore[no-any-return]
        except PromptError as exc:
            if exc.invalid:
                raise _invalid(str(exc)) from None
            raise MethodError(rpc.INTERNAL_ERROR, str(exc)) from None

    async def complete(self, params: Mapping[str, Any], ctx: CallContext,
                       keep: Callable[[str], bool] | None = None) -> dict[str, Any]:
        """``keep``: whether a value may be shown (the rules would not deny what it names);
        a value it refuses, or that it fails on, is left out as if the source never gave it."""
        ref, argument = params.get("ref"), params.get("argument")
        if not isinstance(ref, Mapping) or not isinstance(argument, Mapping):
            raise _invalid("completion/complete needs 'ref' and 'argument' objects")
        kind = ref.get("type")
        key = ref.get("name") if kind == "ref/prompt" else ref.get("uri")
        name, value = argument.get("name"), argument.get("value", "")
        if kind not in ("ref/prompt", "ref/resource") or not isinstance(key, str):
            raise _invalid("'ref' is {type: ref/prompt, name} or {type: ref/resource, uri}")
        if not isinstance(name, str) or not isinstance(value, str):
            raise _invalid("'argument' is {name: string, value: string}")
        problem = self.content.completion_problem(kind, key, name)
        if problem is not None:  # the spec's -32602 for what names nothing to complete
            raise _invalid(problem)
        if len(value) > MAX_COMPLETED_CHARS:
            # cut, it would reach the function as a value nobody typed (its head and a note
            # of what was left out), and the values it gives would complete that
            raise _invalid(f"the value of {cut(name, 100)!r} to complete is {len(value):,} "
                           f"characters; at most {MAX_COMPLETED_CHARS:,}")
        try:
            values, cut_short = await self.content.complete(
                kind, key, name, value, ctx,
                {k: cut(v, 1000) for k, v in context_arguments(params).items()})
        except PromptError as exc:
            raise MethodError(rpc.INTERNAL_ERROR, str(exc)) from None
        if keep is None:
            shown = values[:MAX_COMPLETIONS]
            if cut_short:  # how many there are is not known
                return {"completion": {"values": shown, "hasMore": True}}
            return {"completion": {"values": shown, "total": len(values),
                                   "hasMore": len(values) > len(shown)}}
        shown, more = [], cut_short
        for checked, candidate in enumerate(values):  # up to one past what is shown
            if checked == MAX_CHECKED:  # each costs a decision: typing more narrows them
                more = True
                break
            if not _kept(keep, candidate):
                continue
            if len(shown) == MAX_COMPLETIONS:
                more = True
                break
            shown.append(candidate)
        completion: dict[str, Any] = {"values": shown, "hasMore": more}
        if not more:
            completion["total"] = len(shown)
        return {"completion": completion}


def context_arguments(params: Mapping[str, Any]) -> dict[str, str]:
    """A completion's ``context.arguments`` (what the client already filled in), bounded:
    the first ``MAX_CONTEXT_ARGUMENTS`` string values of string names."""
    context = params.get("context")
    known = context.get("arguments") if isinstance(context, Mapping) else None
    if not isinstance(known, Mapping):
        return {}
    return {k: v for k, v in list(known.items())[:MAX_CONTEXT_ARGUMENTS]
            if isinstance(k, str) and isinstance(v, str)}


def check_encodable(params: Mapping[str, Any]) -> None:
    """Refuse (-32602) a URI, or a value a URI is made of (a completion's value, ref and
    context), holding a lone surrogate: JSON can spell one (``"\\ud800"``), no URI can
    carry it (percent-encoding is of UTF-8), and it would fail deep inside as a bug would."""
    fields: list[tuple[str, Any]] = [("uri", params.get("uri"))]
    ref, argument, context = params.get("ref"), params.get("argument"), params.get("context")
    if isinstance(ref, Mapping):
        fields.append(("ref.uri", ref.get("uri")))
    if isinstance(argument, Mapping):
        fields.append(("argument.value", argument.get("value")))
    given = context.get("arguments") if isinstance(context, Mapping) else None
    if isinstance(given, Mapping):
        fields += [(f"context.arguments.{cut(str(k), 60)}", v) for k, v in given.items()]
    for where, value in fields:
        found = lone_surrogate(value) if isinstance(value, str) else None
        if found is not None:
            raise _invalid(f"{where!r} holds a lone surrogate ({found}), which no URI can "
                           "carry")
    uri = params.get("uri")
    escape = not_utf8_escape(uri) if isinstance(uri, str) else None
    if escape is not None and isinstance(uri, str):
        raise _invalid(f"'uri' {cut(uri, 200)!r} holds {escape}, percent-escapes that are "
                       "not UTF-8 text (a URI's escapes are of UTF-8 bytes)")


_ESCAPES = re.compile(r"(?:%[0-9A-Fa-f]{2})+")  # a run of escapes: linear, no backtracking


def not_utf8_escape(uri: str) -> str | None:
    """The first run of percent-escapes in ``uri`` that is not UTF-8 (``%FF``), or None.

    Decoded leniently, ``%FF`` and ``%FE`` would both become U+FFFD: two URIs, one value
    (one rule's decision, one backend argument) for what the client meant as two. A
    character's bytes are never split by a literal character, so each run is judged alone."""
    if "%" not in uri:
        return None
    for run in _ESCAPES.finditer(uri):
        try:
            bytes.fromhex(run.group().replace("%", "")).decode("utf-8")
        except UnicodeDecodeError:
            return cut(run.group(), 60)
    return None


def lone_surrogate(text: str) -> str | None:
    """The first lone surrogate of ``text``, escaped (``\\ud800``); None if it has none."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return ascii(text[exc.start])[1:-1]
    return None


def _digest(item: Mapping[str, Any]) -> str:
    """16 hex digits naming a listed item (its URI, template or name) in a cursor."""
    named = item.get("uri", item.get("uriTemplate", item.get("name", "")))
    return blake2b(str(named).encode("utf-8", "surrogatepass"),
                           digest_size=8).hexdigest()


def _kept(keep: Callable[[str], bool], value: str) -> bool:
    try:
        return keep(value)
    except Exception as exc:  # fail closed: a value nobody could vouch for is not shown
        _log.warning("a completion value was left out: the permission check failed (%s)",
                     type(exc).__name__)
        return False


def _bounded(uri: str) -> None:
    # The server checks the URI as sent (MAX_URI_CHARS); its canonical form re-encodes each
    # non-ASCII character as up to 12 characters (%XX%XX%XX%XX)
    if len(uri) > 12 * MAX_URI_CHARS:
        raise _invalid(f"'uri' is {len(uri):,} characters once percent-encoded; at most "
                       f"{12 * MAX_URI_CHARS:,}")


def _hidden(value: Any) -> Any:
    # What a client reads of a resource or a prompt: no secret of this process (a prompt
    # written with ${API_KEY}, a file or an endpoint that shows one). Resources have no
    # opt-out, unlike a tool's ``redact_results``. A blob or an image holding one is hidden
    # whole (its bytes are left as they are otherwise).
    return scrub_value(without_secret_data(value, active()))


def _uri_needed(method: str, uri: object) -> str:
    """Why ``uri`` is no URI to ask ``method`` of (missing, not a string, or empty)."""
    if uri == "":
        return f"{method}: 'uri' is empty; send the URI of a resource"
    return f"{method} needs a string 'uri'"
