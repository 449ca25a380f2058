"""``toolhost serve``: the config's tools as a standard MCP server (stdio or HTTP)."""

from __future__ import annotations

import argparse
import os
import sys

HELP = "serve a config's tools to any MCP client (stdio or Streamable HTTP)"

DESCRIPTION = """\
Serve the tools of a config as a standard MCP server, for Claude Code, Claude Desktop,
IDEs and other agents. Both MCP eras are served: the 2025-11-25 initialize handshake and
the stateless 2026-07-28 revision (server/discover, protocol version in every request).

Permission rules apply inside tools/call: a deny is an error result carrying the rule's
message; an "ask" is a deny here, since nobody can be asked (use ask_mode: allow, or allow
rules, for tools that must run).

stdio (the default) speaks newline-delimited JSON-RPC on stdin/stdout; logs go to stderr.
--transport http serves MCP Streamable HTTP at http://HOST:PORT/mcp (needs the extra:
pip install 'toolhost[serve]'). Modern requests are stateless, so replicas can sit behind
one load balancer; legacy clients get a session id.

With several servers selected, tools are exposed as <server>__<tool>.

Examples:
  toolhost serve team.yaml                          the only server, over stdio
  toolhost serve team.yaml --server git --watch     reload when the config changes
  toolhost serve team.yaml --all --transport http --port 8765 --token-env MCP_TOKEN
  claude mcp add team -- toolhost serve /abs/team.yaml --server git
  toolhost mcp-config team.yaml --server git        the .mcp.json entry for this
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="the config file (YAML or TOML)")
    parser.add_argument("--server", "-s", action="append", default=[], metavar="NAME",
                        help="server to serve (repeatable; default: the only one)")
    parser.add_argument("--all", action="store_true", dest="all_servers",
                        help="serve every toolhost server of the config (names prefixed)")
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio",
                        help="stdio (default) or Streamable HTTP")
    parser.add_argument("--host", default="127.0.0.1",
                        help="HTTP: address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765,
                        help="HTTP: port (default 8765; 0 picks a free one and prints it)")
    parser.add_argument("--path", default="/mcp", help="HTTP: endpoint path (default /mcp)")
    parser.add_argument("--token-env", metavar="VAR",
                        help="HTTP: require 'Authorization: Bearer <value of $VAR>'")
    parser.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                        help="HTTP: a browser Origin to accept besides localhost (repeatable)")
    parser.add_argument("--watch", action="store_true",
                        help="reload when a config file changes; clients get "
                             "notifications/tools/list_changed")
    parser.add_argument("--watch-interval", type=float, default=0.5, metavar="SECONDS",
                        help="how often --watch looks at the files (default 0.5)")


def main(args: argparse.Namespace) -> int:
    import anyio

    from toolhost.errors import ToolhostError
    from toolhost.serve.build import ServeBuild, Server, abuild_serve, build_serve

    token = None
    if args.transport == "http":
        if args.token_env:
            token = os.environ.get(args.token_env)
            if not token:
                raise ToolhostError(f"--token-env {args.token_env}: the variable is not set "
                                    "or empty")
        try:
            import starlette  # noqa: F401
            import uvicorn  # noqa: F401
        except ImportError as exc:
            from toolhost.serve.run import SERVE_EXTRA_HINT

            raise ToolhostError(f"{SERVE_EXTRA_HINT} ({exc})") from None
        if args.host not in ("127.0.0.1", "localhost", "::1") and token is None:
            print(f"toolhost: warning: serving on {args.host} without --token-env: anyone "
                  "who can reach it can call the tools", file=sys.stderr)

    build = build_serve(args.config, args.server, every=args.all_servers)
    server = Server(build)
    shown = [t.name for t in build.tools[:10]]  # a config may have hundreds of tools
    more = len(build.tools) - len(shown)
    names = (", ".join(shown) + (f", ... ({more} more)" if more > 0 else "")) or "none"
    print(f"toolhost: serving {build.name} ({len(build.tools)} tools: {names}) over "
          f"{args.transport}", file=sys.stderr, flush=True)

    async def serve() -> None:
        from toolhost.serve.run import serve_http, serve_stdio

        background = None
        if args.watch:
            from toolhost.reload import Reloader

            async def load(path: str) -> ServeBuild:
                return await abuild_serve(path, args.server, every=args.all_servers)

            reloader = Reloader(args.config, load=load, on_swap=server.swap,
                                initial=build, interval=args.watch_interval)
            background = reloader.run
        try:
            if args.transport == "stdio":
                await serve_stdio(server.served, background=background)
            else:
                await serve_http(server.served, host=args.host, port=args.port, token=token,
                                 path=args.path, allowed_origins=tuple(args.allow_origin),
                                 background=background)
        finally:
            with anyio.CancelScope(shield=True):
                await server.aclose()

    anyio.run(serve)
    return 0
