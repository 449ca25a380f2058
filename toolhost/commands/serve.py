"""``toolhost serve``: the config's tools as a standard MCP server (stdio or HTTP)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from toolhost.commands._argtypes import interval, port, positive_int, seconds, size
from toolhost.limits import DEFAULT_LIMITS as DEFAULTS
from toolhost.limits import Limits

if TYPE_CHECKING:
    from toolhost.config.model import ServeConfig
    from toolhost.serve.auth import JwtAuth

HELP = "serve a config's tools to any MCP client (stdio or Streamable HTTP)"

DESCRIPTION = """\
Serve the tools of a config as a standard MCP server, for Claude Code, Claude Desktop,
IDEs and other agents. Both MCP eras are served: the 2025-11-25 initialize handshake and
the stateless 2026-07-28 revision (server/discover, protocol version in every request).

Permission rules apply inside tools/call: a deny is an error result carrying the rule's
message; an "ask" asks the person at the client (MCP elicitation) when the client can be
asked, and is a deny saying why when it cannot (no elicitation capability, no answer
within 300 s); permissions.ask_mode: allow or deny answers every ask without asking.

stdio (the default) speaks newline-delimited JSON-RPC on stdin/stdout; logs go to stderr.
--transport http serves MCP Streamable HTTP at http://HOST:PORT/mcp (needs the extra:
pip install 'toolhost[serve]'). Modern requests are stateless, so replicas can sit behind
one load balancer; legacy clients get a session id.

With several servers selected, tools are exposed as <server>__<tool>.

Every request is bounded (docs/serve.md, "Limits"): a message over --max-message is
refused (HTTP 413; over stdio an error answer, and the next line is read as usual), as are
JSON nested deeper than --max-depth and tool arguments over --max-argument. Over HTTP a
client has --header-timeout seconds to send its headers and --body-timeout for its body;
at most --max-connections connections are served at once. At most --max-in-flight
requests of one client (and --max-in-flight-bytes of their messages) are answered at
once; more get a "server busy" error. On a loopback bind only the loopback names are
accepted in the Host header (DNS rebinding); name others with --allow-host. The defaults
are generous: an honest client never meets them.

Examples:
  toolhost serve team.yaml                          the only server, over stdio
  toolhost serve team.yaml --server git --watch     reload when the config changes
  toolhost serve team.yaml --all --transport http --port 8765 --token-env MCP_TOKEN
  claude mcp add team -- toolhost serve /abs/team.yaml --server git
  toolhost mcp-config team.yaml --server git        the .mcp.json entry for this
  toolhost serve team.yaml --transport http --max-message 4MiB --body-timeout 5
  toolhost serve team.yaml --transport http --host 0.0.0.0 --token-env MCP_TOKEN \\
      --allow-host tools.internal.example --allow-origin https://app.internal.example

Replicas behind a load balancer: a session of the 2025 revisions started on one replica is
served by all of them (its id is signed with a key derived from the config, or from
TOOLHOST_SESSION_SECRET); probes: GET /healthz (alive) and GET /readyz (503 once shutting
down).
  TOOLHOST_SESSION_SECRET=$(cat /run/secrets/mcp) toolhost serve team.yaml \\
      --transport http --host 0.0.0.0 --token-env MCP_TOKEN --shutdown-grace 30
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="the config file (YAML or TOML)")
    # --all with --server would serve every server, not the ones named
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--server", "-s", action="append", default=[], metavar="NAME",
                       help="server to serve (repeatable; default: the only one)")
    which.add_argument("--all", action="store_true", dest="all_servers",
                       help="serve every toolhost server of the config (names prefixed)")
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio",
                        help="stdio (default) or Streamable HTTP")
    parser.add_argument("--host", default="127.0.0.1",
                        help="HTTP: address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=port, default=8765,
                        help="HTTP: port, 0 to 65535 (default 8765; 0 picks a free one and "
                             "prints it)")
    parser.add_argument("--path", default="/mcp", help="HTTP: endpoint path (default /mcp)")
    parser.add_argument("--token-env", metavar="VAR",
                        help="HTTP: require 'Authorization: Bearer <value of $VAR>'")
    parser.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                        help="HTTP: a browser Origin to accept besides localhost (repeatable)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="HOST",
                        help="HTTP: a Host header name to accept (repeatable; on a loopback "
                             "bind only localhost, 127.0.0.1 and [::1] are accepted without "
                             "it; '*' accepts any)")
    limits = parser.add_argument_group(
        "limits", "bounds on what one client may send (defaults in docs/serve.md, 'Limits')")
    limits.add_argument("--max-message", "--max-body", type=size, metavar="SIZE",
                        help="largest JSON-RPC message: a stdio line or an HTTP body "
                             f"(default {_mib(DEFAULTS.max_message_bytes)}; e.g. 4MiB)")
    limits.add_argument("--max-depth", type=positive_int, metavar="N",
                        help=f"deepest JSON nesting (default {DEFAULTS.max_depth})")
    limits.add_argument("--max-values", type=positive_int, metavar="N",
                        help="most JSON values (containers, items, members) in one message; "
                             f"bounds its memory once parsed (default {DEFAULTS.max_values:,})")
    limits.add_argument("--max-argument", type=size, metavar="SIZE",
                        help="largest tools/call arguments, as JSON "
                             f"(default {_mib(DEFAULTS.max_argument_bytes)})")
    limits.add_argument("--max-connections", type=positive_int, metavar="N",
                        help="HTTP: concurrent connections; more get 503 "
                             f"(default {DEFAULTS.max_connections})")
    limits.add_argument("--max-in-flight", type=positive_int, metavar="N",
                        help="requests answered at once for one client (a stdio connection, "
                             "an HTTP session); more get a 'server busy' error at once "
                             f"(default {DEFAULTS.max_in_flight:,})")
    limits.add_argument("--max-in-flight-bytes", type=size, metavar="SIZE",
                        help="message bytes those requests hold (stdio: per connection; "
                             "HTTP: for the whole server); more get 'server busy' "
                             f"(default {_mib(DEFAULTS.max_in_flight_bytes)})")
    limits.add_argument("--max-sessions", type=positive_int, metavar="N",
                        help="HTTP: sessions (2025 revisions) kept; past it a new one replaces "
                             "the least recently used idle one, or is refused (503) "
                             f"(default {DEFAULTS.max_sessions:,})")
    limits.add_argument("--session-idle", type=seconds, metavar="SECONDS",
                        help="HTTP: how long a session must be unused (no request, stream or "
                             "call) before a new one may replace it "
                             f"(default {DEFAULTS.session_idle:g})")
    limits.add_argument("--header-timeout", type=seconds, metavar="SECONDS",
                        help="HTTP: time to send a request's headers "
                             f"(default {DEFAULTS.header_timeout:g})")
    limits.add_argument("--body-timeout", type=seconds, metavar="SECONDS",
                        help="HTTP: time to send a request's body; later: 408 "
                             f"(default {DEFAULTS.body_timeout:g})")
    limits.add_argument("--write-timeout", type=seconds, metavar="SECONDS",
                        help="HTTP: time a client may take none of an answer or a stream it "
                             "reads; later: its connection is closed and its call cancelled "
                             f"(default {DEFAULTS.write_timeout:g})")
    auth = parser.add_argument_group(
        "OAuth access tokens (HTTP; MCP authorization: toolhost checks tokens, an issuer of "
        "yours grants them; pip install 'toolhost[auth]')")
    auth.add_argument("--auth-issuer", metavar="URL",
                      help="accept JWT access tokens of this issuer (its iss), signed by a key "
                      "of its JWKS; callers reach rules (callers:) and the audit log")
    auth.add_argument("--auth-audience", metavar="AUD",
                      help="the audience tokens must name (aud); required with --auth-issuer")
    auth.add_argument("--auth-jwks-url", metavar="URL",
                      help="the issuer's JWKS (default: its OIDC discovery document's jwks_uri)")
    auth.add_argument("--auth-resource", metavar="URL",
                      help="the MCP endpoint's URL as clients reach it (behind a TLS proxy "
                      "or under another name): the protected resource metadata's resource "
                      "(default: the URL each request was sent to)")
    auth.add_argument("--auth-groups-claim", default="groups", metavar="CLAIM",
                      help="the claim that lists the caller's groups (default groups)")
    parser.add_argument("--shutdown-grace", type=seconds, default=None, metavar="SECONDS",
                        help="HTTP: on SIGTERM or Ctrl-C, /readyz turns 503; requests are "
                        "answered until a quiet second, then refused (503); calls still "
                        "running after this long are cancelled and answered -32800, tasks "
                        "failed saying so (their results stay readable until then) "
                        "(default 10). stdio: how long calls may still answer once the "
                        "client closed stdin (default 5)")
    parser.add_argument("--access-log", action=argparse.BooleanOptionalAction, default=True,
                        help="HTTP: one log line per request on stderr: method, path, "
                        "status, JSON-RPC method and name, caller, outcome, duration "
                        "(default on; --no-access-log turns it off)")
    parser.add_argument("--metrics", action="store_true",
                        help="HTTP: serve Prometheus metrics at GET /metrics (requests, calls "
                        "by tool and outcome, denials, durations, in flight, sessions, "
                        "tasks), behind the same Host, Origin and token checks as MCP")
    parser.add_argument("--project-relative", action="store_true",
                        help="a relative CONFIG is read from the project's directory: the "
                        "nearest one, from the current directory up, that holds .mcp.json "
                        "(what `toolhost install claude-code` writes: Claude Code starts a "
                        "project's servers in the directory it was started in)")
    parser.add_argument("--watch", action="store_true",
                        help="reload when a config file changes; clients get "
                             "notifications/tools/list_changed")
    parser.add_argument("--watch-interval", type=interval, default=0.5, metavar="SECONDS",
                        help="how often --watch looks at the files, at least 0.05 "
                             "(default 0.5)")


def project_config(config: str, start: str | None = None) -> str:
    """``config`` read from the nearest directory, from ``start`` (the current one) up, that
    holds ``.mcp.json``: Claude Code reads a project's .mcp.json from a parent directory too,
    but starts its servers where it was started. An absolute ``config`` is kept."""
    from pathlib import Path

    from toolhost.errors import ToolhostError

    if os.path.isabs(config):
        return config
    here = Path(os.path.abspath(start or os.getcwd()))
    for directory in (here, *here.parents):
        if os.path.isfile(directory / ".mcp.json"):
            return str(directory / config)
    raise ToolhostError(f"--project-relative {config}: no .mcp.json in {here} or any "
                        "directory above it; start the client inside the project, or give "
                        "the config's absolute path")


def _mib(size: int) -> str:
    return f"{size // (1024 * 1024)}MiB"


def limits_from(args: argparse.Namespace, serve: ServeConfig | None = None) -> Limits:
    """The limits the command line asks for; what it leaves out, the config's ``serve:``
    settings say (``write_timeout``), else the defaults."""
    configured = serve.write_timeout if serve is not None else None
    return DEFAULTS.replace(max_message_bytes=args.max_message, max_depth=args.max_depth,
                            max_values=args.max_values,
                            max_argument_bytes=args.max_argument,
                            max_connections=args.max_connections,
                            max_in_flight=args.max_in_flight,
                            max_in_flight_bytes=args.max_in_flight_bytes,
                            header_timeout=args.header_timeout, body_timeout=args.body_timeout,
                            write_timeout=(args.write_timeout if args.write_timeout is not None
                                           else configured),
                            max_sessions=args.max_sessions, session_idle=args.session_idle)


def main(args: argparse.Namespace) -> int:
    from toolhost.commands._startup import collector_off_until_started

    # No collections while modules load and the config compiles (toolhost.commands._startup)
    with collector_off_until_started() as started:
        return _serve(args, started)


def _serve(args: argparse.Namespace, started: Callable[[], None]) -> int:
    from toolhost.errors import ToolhostError

    token = None
    auth = None
    if args.auth_issuer or args.auth_audience or args.auth_jwks_url or args.auth_resource:
        if args.transport != "http" or not (args.auth_issuer and args.auth_audience):
            raise ToolhostError("--auth-issuer and --auth-audience go together, with "
                                "--transport http")
        if args.token_env:
            raise ToolhostError("--token-env and --auth-issuer exclude each other: one way "
                                "of checking bearer tokens")
        from toolhost.serve.auth import JwtAuth

        auth = JwtAuth(args.auth_issuer, args.auth_audience, args.auth_jwks_url,
                       groups_claim=args.auth_groups_claim, resource=args.auth_resource)
    from toolhost.redaction import MAX_SECRET, remember_own
    from toolhost.serve.telemetry import collector_credentials

    remember_own(collector_credentials())  # the OTLP collector's: ours, before the config
    if args.transport == "http":
        if args.token_env:
            token = os.environ.get(args.token_env)
            if not token:
                raise ToolhostError(f"--token-env {args.token_env}: the variable is not set "
                                    "or empty")
        from toolhost.serve.sessions import SECRET_ENV

        # The server's own credentials: secrets (of the config too) before the config loads
        own = {f"--token-env {args.token_env}": token or "",
               SECRET_ENV: os.environ.get(SECRET_ENV, "")}
        for where, value in own.items():  # (each hidden in every form: a cost linear in it)
            if len(value) > MAX_SECRET:
                raise ToolhostError(f"{where}: a secret of {len(value):,} characters; a "
                                    f"secret may have at most {MAX_SECRET:,}")
        remember_own(own.values())
        try:
            import starlette  # noqa: F401
            import uvicorn  # noqa: F401
        except ImportError as exc:
            from toolhost.serve.run import SERVE_EXTRA_HINT

            raise ToolhostError(f"{SERVE_EXTRA_HINT} ({exc})") from None
        # the access log (toolhost.serve.http_access): INFO whatever -v says, unless off
        import logging

        logging.getLogger("toolhost.access").setLevel(
            logging.INFO if args.access_log else logging.WARNING)
        if args.host not in ("127.0.0.1", "localhost", "::1") and token is None \
                and auth is None:
            print(f"toolhost: warning: serving on {args.host} without --token-env: anyone "
                  "who can reach it can call the tools", file=sys.stderr)

    protocol = requests = None
    if args.transport == "stdio":  # before the config loads: a print while a python tool's
        # module or a plugin is imported, or in its register hook, lands on stderr
        from toolhost.stdout_guard import claim_stdin, claim_stdout

        protocol = claim_stdout()
        requests = claim_stdin()  # and no tool or child process reads the client's requests
    # what a tool writes to fds 1 and 2 below Python (os.write, a C library, a child it
    # starts) passes a pipe that hides secrets and shows it inert (runner.inert_fds); shown
    # at every exit, the one by a re-raised signal too
    from toolhost.runner.inert_fds import InertDescriptors
    from toolhost.stdout_guard import before_signal_death

    guard = InertDescriptors.open()
    forget = before_signal_death(guard.close)
    try:
        return _served(args, started, token, auth, protocol, requests)
    finally:
        forget()
        guard.close()


def _served(args: argparse.Namespace, started: Callable[[], None], token: str | None,
            auth: JwtAuth | None, protocol: IO[bytes] | None, requests: IO[bytes] | None
            ) -> int:
    import anyio

    from toolhost.serve.build import ServeBuild, Server, abuild_serve, build_serve

    if args.project_relative:
        args.config = project_config(args.config)
    loading = time.time_ns()  # --watch: an edit saved from now on is reloaded
    from toolhost.runner.kept_signals import kept_signals
    from toolhost.visible import visible

    with kept_signals() as put_back:  # an import cannot keep the server's signals
        build = build_serve(args.config, args.server, every=args.all_servers)
    if put_back:
        print(f"toolhost: warning: loading {visible(args.config)} changed how toolhost takes "
              f"{', '.join(put_back)} (a plugin's or a python tool's import); put back: the "
              "server keeps its own signals", file=sys.stderr)
    limits = limits_from(args, build.host.config.serve)  # (the config's serve: settings)
    sockets = None
    if args.transport == "http":  # bound before "serving" is said: a failure is one line
        from toolhost.serve.listen import bind_sockets

        sockets = bind_sockets(args.host, args.port)
    server = Server(build, limits)
    shown = [t.name for t in build.tools[:10]]  # a config may have hundreds of tools
    more = len(build.tools) - len(shown)
    names = (", ".join(shown) + (f", ... ({more:,} more)" if more > 0 else "")) or "none"
    print(f"toolhost: serving {build.name} ({len(build.tools):,} tools: {names}) over "
          f"{args.transport}", file=sys.stderr, flush=True)

    async def serve() -> None:
        started()  # the event loop's modules are loaded too: the start is over
        from toolhost.serve.run import serve_http, serve_stdio

        tasks = [server.follow_upstreams]  # imported servers follow their upstream's list
        if args.watch:
            from toolhost.reload import Reloader

            async def load(path: str) -> ServeBuild:
                with kept_signals() as put_back:  # a reload's imports, as the first load's
                    build = await abuild_serve(path, args.server, every=args.all_servers)
                if put_back:
                    print(f"toolhost: warning: reloading {visible(path)} changed how toolhost "
                          f"takes {', '.join(put_back)}; put back", file=sys.stderr)
                return build

            reloader = Reloader(args.config, load=load, on_swap=server.swap,
                                initial=build, interval=args.watch_interval, since=loading)
            tasks.append(reloader.run)

        async def background() -> None:
            async with anyio.create_task_group() as tg:
                for task in tasks:
                    tg.start_soon(task)
        try:
            if args.transport == "stdio":
                await serve_stdio(server.served, reader=requests, writer=protocol,
                                  background=background,
                                  limits=limits, grace=args.shutdown_grace)
            else:
                await serve_http(server.served, host=args.host, port=args.port, token=token,
                                 path=args.path, allowed_origins=tuple(args.allow_origin),
                                 allowed_hosts=tuple(args.allow_host), limits=limits,
                                 background=background,
                                 shutdown_grace=(10.0 if args.shutdown_grace is None
                                                 else args.shutdown_grace),
                                 auth=auth, config_files=tuple(build.host.config.files),
                                 sockets=sockets, metrics=args.metrics)
        finally:
            with anyio.CancelScope(shield=True):
                await server.aclose()

    anyio.run(serve)
    return 0
