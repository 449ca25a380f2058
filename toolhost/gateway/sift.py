"""An upstream's listing with its malformed entries left out, not refused whole.

The ``mcp`` client reads a page of ``tools/list`` (``resources/list``,
``resources/templates/list``, ``prompts/list``) as one typed result: one tool whose
``inputSchema`` lacks ``"type": "object"`` (or is missing, null, an array's) made the whole
listing fail, so a single bad entry among an upstream's 10,000 tools kept every one of them
from being imported, with pydantic's report of several lines as the start's error. Here,
between the transport and the client, the entries of such a page that the client would not
read are left out, each with a one-line warning naming the upstream, the entry and why (at
most ``SAID`` per page, then a count), and the rest of the page is read as usual.

A page is checked as the client checks it, with the ``mcp`` types of each protocol era it
speaks (a good page, the common case, costs one validation per era); the entries pydantic
reports (by their index) are left out. The notifications toolhost never acts on are dropped
here too (``toolhost.gateway.unheard``).
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import AsyncIterator
from typing import Any, cast

import anyio

from toolhost.excerpt import cut
from toolhost.gateway.unheard import Unheard

__all__ = ["sifted"]

log = logging.getLogger("toolhost.gateway")
SAID = 5  # entries left out that are named one by one, per page
_KINDS = {"tools": ("tools/list", "tool"), "resources": ("resources/list", "resource"),
          "resourceTemplates": ("resources/templates/list", "resource template"),
          "prompts": ("prompts/list", "prompt")}
_ANSWERS = ("content", "contents", "messages")  # keys of a call's, read's, prompt's answer


@contextlib.asynccontextmanager
async def sifted(transport: Any, server: str) -> AsyncIterator[Any]:
    """``transport`` (the mcp client's transport context manager, yielding its streams,
    read first), with the listings read from it sifted (see the module)."""
    async with transport as streams, anyio.create_task_group() as tasks:
        inner = streams[0]
        send, receive = anyio.create_memory_object_stream[Any](0)
        era: dict[str, str] = {}  # the version an initialize answer named (none: 2026-era)
        unheard = Unheard()  # notifications toolhost never acts on: dropped here

        async def pump() -> None:
            async with send:
                with contextlib.suppress(anyio.ClosedResourceError,
                                         anyio.BrokenResourceError,
                                         anyio.EndOfStream):
                    async for item in inner:
                        if not unheard.drops(item):
                            await send.send(sift(item, server, era))

        tasks.start_soon(pump)
        try:
            yield (receive, *streams[1:])
        finally:
            receive.close()
            tasks.cancel_scope.cancel()


def sift(item: Any, server: str, era: dict[str, str] | None = None) -> Any:
    """``item`` (what the transport read) with the malformed entries of a listing's page
    left out, in place; anything else as it is. ``era`` notes the protocol version an
    ``initialize`` answer named, so a page is judged as the client judges it (no note: as
    a 2026-era client does, the handshake-free era)."""
    result = getattr(getattr(item, "message", None), "result", None)
    if not isinstance(result, dict) or any(k in result for k in _ANSWERS):
        return item
    version = result.get("protocolVersion")
    if era is not None and isinstance(version, str) and "capabilities" in result:
        era["version"] = version
    for key, (method, what) in _KINDS.items():
        entries = result.get(key)
        if isinstance(entries, list) and entries:
            bad = _malformed(result, key, method, (era or {}).get("version"))
            if bad:
                result[key] = [e for k, e in enumerate(entries) if k not in bad]
                _say(server, what, entries, bad)
    return item


def _malformed(result: dict[str, Any], key: str, method: str,
               version: str | None) -> dict[int, str]:
    """The indices of ``result[key]`` that the mcp client would not read as entries of
    ``method``'s result at ``version`` (None: a 2026-era one), with why."""
    from pydantic import ValidationError

    bad: dict[int, str] = {}
    for adapter in _adapters(method, version):
        try:
            adapter.validate_python(result, by_name=False)
        except (RecursionError, ValueError, TypeError) as exc:
            if not isinstance(exc, ValidationError):
                return {}  # not judged here: the client judges the page as it is
            for error in exc.errors(include_url=False):
                loc = error.get("loc") or ()
                if len(loc) > 1 and loc[0] == key and isinstance(loc[1], int) \
                        and loc[1] not in bad:
                    where = ".".join(str(p) for p in loc[2:]) or "(the entry)"
                    bad[loc[1]] = f"{where}: {' '.join(str(error.get('msg')).split())}"
    return bad


@functools.cache
def _adapters(method: str, version: str | None) -> tuple[Any, ...]:
    """Validators of ``method``'s result at ``version`` (None: at each 2026-era version;
    a version the client does not know: at every version)."""
    from mcp_types.methods import SERVER_RESULTS
    from pydantic import TypeAdapter

    at = {v for (name, v) in SERVER_RESULTS if name == method}
    wanted = {version} if version in at else {v for v in at if v >= "2026"} \
        if version is None else at
    models = {id(m): m for (name, v), m in SERVER_RESULTS.items()
              if name == method and v in (wanted or at)}
    return tuple(TypeAdapter(cast("Any", m)) for m in models.values())


def _say(server: str, what: str, entries: list[Any], bad: dict[int, str]) -> None:
    for index in sorted(bad)[:SAID]:
        entry = entries[index]
        name = entry.get("name", entry.get("uri")) if isinstance(entry, dict) else None
        # ascii: a look-alike (a Cyrillic "о") is shown escaped, never as the name it imitates
        shown = cut(ascii(name), 80) if isinstance(name, str) else f"at index {index} of the page"
        log.warning("upstream server '%s' listed the %s %s malformed (%s): it is left out",
                    server, what, shown, cut(bad[index], 200))
    if len(bad) > SAID:
        log.warning("upstream server '%s' listed %d more malformed %ss on one page: left out",
                    server, len(bad) - SAID, what)
