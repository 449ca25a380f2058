"""An MCP server toolhost did not write (the official mcp package's MCPServer), to import.

    python upstream_server.py stdio            serve over stdio
    python upstream_server.py http PORT        serve Streamable HTTP on 127.0.0.1:PORT

UPSTREAM_LOG (a file) records every call's arguments, so a test can see what arrived.
UPSTREAM_CRASH_AFTER=N makes the process exit during its N-th call.
UPSTREAM_GROW=1 adds a tool ``grow(name, drop, more)``: it removes the tool ``drop`` and adds
a tool ``name`` (and ``more`` others, ``name_1``...), announcing each addition with
``notifications/tools/list_changed`` to the calling session (2025-11-25) and to every
``subscriptions/listen`` stream (2026-07-28).
UPSTREAM_CONTENT=1 offers resources, a resource template and a prompt; with UPSTREAM_SHELVE=1
also a tool ``shelve(add, more, drop, prompt, unprompt, fail, quiet)``: it adds the resource
``notes://ADD`` (and ``more`` others, ``notes://ADD_1``...), removes ``notes://DROP``, adds
the prompt ``PROMPT``, removes the prompt ``UNPROMPT``, and with ``fail`` makes every later
``resources/list`` fail; each change is announced with ``notifications/resources/list_changed``
or ``notifications/prompts/list_changed`` (both eras, like ``grow``).
UPSTREAM_UPDATES=1 (with UPSTREAM_CONTENT) offers resource subscriptions in both eras: a
2025-11-25 session's ``resources/subscribe``/``unsubscribe`` are logged (``subscribed``,
``unsubscribed``), and so is every ``subscriptions/listen`` stream's ``resourceSubscriptions``
(``listen``, and ``unlisten`` when it ends); and a tool ``touch(uri, times, stray)`` announces
``notifications/resources/updated`` for ``uri`` ``times`` times (to a 2025-11-25 session only
if it subscribed; on the listen streams that name it), then, hostile, for ``stray`` URIs
``notes://stray/N`` nobody subscribed to (on the session, or stamped onto every listen stream).
UPSTREAM_LEGACY=1 makes it a 2025-11-25 server on stdio (the handshake-only loop: clients
fall back to ``initialize``).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

app = MCPServer("upstream", version="9.9.9")
_calls = 0


def _record(name: str, arguments: dict[str, object]) -> None:
    global _calls
    _calls += 1
    log = os.environ.get("UPSTREAM_LOG")
    if log:
        with open(log, "a") as handle:
            handle.write(json.dumps({"tool": name, "arguments": arguments}) + "\n")
    crash = os.environ.get("UPSTREAM_CRASH_AFTER")
    if crash and _calls >= int(crash):
        os._exit(3)


@app.tool(description=os.environ.get("UPSTREAM_SEARCH_DESCRIPTION") or
          "Search the issues of a repository")
def search_issues(repo: str, query: str, limit: int = 20) -> str:
    _record("search_issues", {"repo": repo, "query": query, "limit": limit})
    return f"{limit} issues in {repo} matching {query!r}"


@app.tool(description="Delete a repository (dangerous)")
def delete_repo(repo: str) -> str:
    _record("delete_repo", {"repo": repo})
    return f"deleted {repo}"


@app.tool(description="Echo a text")
def echo(text: str) -> str:
    _record("echo", {"text": text})
    return text


async def grow(name: str, ctx: Context, drop: str = "", more: int = 0) -> str:
    _record("grow", {"name": name, "drop": drop, "more": more})
    if drop:
        app.remove_tool(drop)
    for shown in [name, *(f"{name}_{i}" for i in range(1, more + 1))]:
        _add_hello(shown)
        # one of the two reaches the client, depending on its protocol era
        with contextlib.suppress(Exception):
            await ctx.request_context.session.send_tool_list_changed()
        with contextlib.suppress(Exception):
            await ctx.notify_tools_changed()
    return f"added {name}" + (f" and {more} more" if more else "")


def _add_hello(name: str) -> None:
    def hello(who: str) -> str:
        return f"hello {who} from {name}"

    app.add_tool(hello, name=name, description=f"Say hello ({name})")


if os.environ.get("UPSTREAM_GROW"):
    app.add_tool(grow, description="Add a tool NAME that says hello (and remove the tool "
                 "DROP), then announce that the tool list changed")


if os.environ.get("UPSTREAM_STDERR"):  # what upstreams write while starting
    print("booting the upstream", file=sys.stderr)
    print(f"warning: cache is cold for {os.environ['UPSTREAM_STDERR']}", file=sys.stderr,
          flush=True)

if os.environ.get("UPSTREAM_STDERR_PADDED"):  # a secret across the 4096-byte read
    sys.stderr.write("x" * 4090 + os.environ["UPSTREAM_STDERR_PADDED"] + " end\n")
    sys.stderr.flush()

if os.environ.get("UPSTREAM_CONTENT"):  # resources, a template and a prompt to pass through
    @app.resource("notes://readme", name="readme", description="Read me first",
                  mime_type="text/markdown")
    def readme() -> str:
        return "# Upstream notes"

    @app.resource("notes://secret", name="secret")
    def secret() -> str:
        return "the vault code"

    @app.resource("notes://item/{item_id}", name="item", description="One note")
    def item(item_id: str) -> str:
        return f"note {item_id}"

    @app.prompt(description="Summarize a topic")
    def summarize(topic: str, style: str = "short") -> str:
        return f"Summarize {topic} in a {style} way."

if os.environ.get("UPSTREAM_CONTENT") and os.environ.get("UPSTREAM_BIG"):
    # answers of any size: N characters of text, N bytes of blob, a prompt of PARTS messages
    @app.resource("notes://big/{n}", name="big")
    def big(n: str) -> str:
        return "B" * int(n)

    @app.resource("notes://blob/{n}", name="blob", mime_type="application/octet-stream")
    def blob(n: str) -> bytes:
        return b"\x00" * int(n)

    @app.prompt(description="A long prompt")
    def long(n: str, parts: str = "1") -> list[dict[str, Any]]:
        return [{"role": "user", "content": {"type": "text", "text": f"{i}" + "P" * int(n)}}
                for i in range(int(parts))]


async def shelve(ctx: Context, add: str = "", more: int = 0, drop: str = "",
                 prompt: str = "", unprompt: str = "", fail: bool = False,
                 quiet: bool = False) -> str:
    _record("shelve", {"add": add, "more": more, "drop": drop, "prompt": prompt,
                       "unprompt": unprompt, "fail": fail, "quiet": quiet})
    session = ctx.request_context.session
    if fail:
        async def broken() -> list[object]:
            raise RuntimeError("the shelf is jammed")

        app.list_resources = broken  # type: ignore[method-assign,assignment]
    if drop:
        app._resource_manager._resources.pop(f"notes://{drop}", None)
    for added in [add, *(f"{add}_{i}" for i in range(1, more + 1))] if add else []:
        _add_note(added)
    if quiet:  # changed, not announced (yet): what a client sees before the news lands
        return "shelved quietly"
    if fail or drop or add:
        await _announce(session.send_resource_list_changed, ctx.notify_resources_changed,
                        1 + more if add else 1)
    if unprompt:
        app.remove_prompt(unprompt)
    if prompt:
        _add_prompt(prompt)
    if prompt or unprompt:
        await _announce(session.send_prompt_list_changed, ctx.notify_prompts_changed, 1)
    return "shelved"


async def _announce(legacy: Any, modern: Any, times: int) -> None:
    for _ in range(times):  # one of the two reaches the client, depending on its era
        with contextlib.suppress(Exception):
            await legacy()
        with contextlib.suppress(Exception):
            await modern()


def _add_note(name: str) -> None:
    def note() -> str:
        return f"note {name}"

    app.resource(f"notes://{name}", name=name, description=f"Note {name}")(note)


def _add_prompt(name: str) -> None:
    def prompt(topic: str) -> str:
        return f"{name} about {topic}"

    app.prompt(name=name, description=f"Prompt {name}")(prompt)


if os.environ.get("UPSTREAM_CONTENT") and os.environ.get("UPSTREAM_SHELVE"):
    app.add_tool(shelve, description="Change the resources and prompts, and announce it")
    _list_resources = app.list_resources

    async def _counted() -> Any:  # UPSTREAM_LOG sees every resources/list
        log = os.environ.get("UPSTREAM_LOG")
        if log:
            with open(log, "a") as handle:
                handle.write(json.dumps({"listed": "resources"}) + "\n")
        return await _list_resources()

    app.list_resources = _counted  # type: ignore[method-assign]


_subscribed: set[str] = set()  # a 2025-11-25 session's resources/subscribe
_listens: dict[Any, list[str]] = {}  # open listen streams: id -> resourceSubscriptions


def _log(entry: dict[str, Any]) -> None:
    log = os.environ.get("UPSTREAM_LOG")
    if log:
        with open(log, "a") as handle:
            handle.write(json.dumps(entry) + "\n")


async def touch(ctx: Context, uri: str = "", times: int = 1, stray: int = 0) -> str:
    import mcp_types as types
    from mcp.shared.subscriptions import SUBSCRIPTION_ID_META_KEY

    _record("touch", {"uri": uri, "times": times, "stray": stray})
    session = ctx.request_context.session
    legacy = bool(os.environ.get("UPSTREAM_LEGACY"))
    for _ in range(times if uri else 0):
        if not legacy:
            await ctx.notify_resource_updated(uri)
        elif uri in _subscribed:
            await session.send_resource_updated(uri)
    for n in range(stray):
        if legacy:
            await session.send_resource_updated(f"notes://stray/{n}")
            continue
        for listen_id in list(_listens):
            await session.send_notification(types.ResourceUpdatedNotification(
                params=types.ResourceUpdatedNotificationParams(
                    uri=f"notes://stray/{n}", _meta={SUBSCRIPTION_ID_META_KEY: listen_id})),
                related_request_id=listen_id)
    return "touched"


def _offer_updates() -> None:
    import mcp_types as types

    low = app._lowlevel_server

    async def subscribe(ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
        _subscribed.add(str(params.uri))
        _log({"subscribed": str(params.uri)})
        return types.EmptyResult()

    async def unsubscribe(ctx: Any, params: types.UnsubscribeRequestParams
                          ) -> types.EmptyResult:
        _subscribed.discard(str(params.uri))
        _log({"unsubscribed": str(params.uri)})
        return types.EmptyResult()

    low.add_request_handler("resources/subscribe", types.SubscribeRequestParams, subscribe)
    low.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams,
                            unsubscribe)
    served = low.get_request_handler("subscriptions/listen")
    assert served is not None

    async def listen(ctx: Any, params: Any) -> Any:
        uris = sorted(params.notifications.resource_subscriptions or ())
        _listens[ctx.request_id] = uris
        _log({"listen": uris})
        try:
            return await served.handler(ctx, params)
        finally:
            _listens.pop(ctx.request_id, None)
            _log({"unlisten": uris})

    low.add_request_handler("subscriptions/listen", served.params_type, listen)
    app.add_tool(touch, description="Announce that resource URI changed")


if os.environ.get("UPSTREAM_CONTENT") and os.environ.get("UPSTREAM_UPDATES"):
    _offer_updates()


async def _serve_legacy_stdio() -> None:
    from mcp.server.runner import serve_loop
    from mcp.server.stdio import stdio_server

    low = app._lowlevel_server
    async with stdio_server() as (read, write), low.lifespan(low) as state:
        await serve_loop(low, read, write, lifespan_state=state,
                         init_options=low.create_initialization_options())


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        app.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    elif os.environ.get("UPSTREAM_LEGACY"):
        import anyio

        anyio.run(_serve_legacy_stdio)
    else:
        app.run()
