"""An MCP server toolhost did not write (the official mcp package's MCPServer), to import.

    python upstream_server.py stdio            serve over stdio
    python upstream_server.py http PORT        serve Streamable HTTP on 127.0.0.1:PORT

UPSTREAM_LOG (a file) records every call's arguments, so a test can see what arrived.
UPSTREAM_CRASH_AFTER=N makes the process exit during its N-th call.
UPSTREAM_GROW=1 adds a tool ``grow(name, drop, more)``: it removes the tool ``drop`` and adds
a tool ``name`` (and ``more`` others, ``name_1``...), announcing each addition with
``notifications/tools/list_changed`` to the calling session (2025-11-25) and to every
``subscriptions/listen`` stream (2026-07-28).
UPSTREAM_LEGACY=1 makes it a 2025-11-25 server on stdio (the handshake-only loop: clients
fall back to ``initialize``).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys

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
