"""Every imported server of a config started at once, each bounded by its own deadlines.

An upstream that never answers ``initialize`` costs its ``connect_timeout``; started one after
another, N of them would cost N times that before ``serve`` or ``run`` answers anything. Each
is connected, listed and reshaped in a thread of its own (its client has a thread of its own
anyway), so the start takes as long as the slowest one. One marked ``required: false`` that
cannot start does not stop the others: it is started later (``toolhost.gateway.pending``).
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

from toolhost.compile.content import PENDING, ServerContent
from toolhost.config.model import ServerConfig
from toolhost.gateway.compile import UpstreamTools, compile_upstream
from toolhost.gateway.spec import UpstreamSpec
from toolhost.gateway.waiting import still_waiting

__all__ = ["Started", "in_rules_dir", "reads_paths_elsewhere", "start_upstreams"]

# server name -> its tools and content, or why it could not start (ConfigError, or whatever
# else went wrong: raised again by the caller, in the config's order)
Started = dict[str, "tuple[UpstreamTools, ServerContent] | BaseException"]


def _start(server: ServerConfig, redact: Callable[[str], str] | None,
           pins: Any) -> tuple[UpstreamTools, ServerContent]:
    from toolhost.gateway.passthrough import upstream_content

    try:
        imported = compile_upstream(server, redact=redact, pins=pins)
    except Exception as exc:
        if server.upstream.required:
            raise
        from toolhost.gateway.pending import pending_upstream

        # its resources and prompts capabilities are offered from the start (empty until it
        # is up), so a client connecting meanwhile knows to list them when they come
        return pending_upstream(server, exc, redact=redact, pins=pins), \
            ServerContent(promised=PENDING)
    try:
        return imported, upstream_content(imported.connection, server.name)
    except BaseException:
        imported.connection.close()
        raise


def start_upstreams(servers: Sequence[ServerConfig], *,
                    redact: Callable[[str], str] | None = None, pins: Any = None,
                    cwd: str | None = None) -> Started:
    """Connect, list and reshape each of ``servers`` (imported ones) concurrently; by name,
    its ``UpstreamTools`` and its resources and prompts, or the exception it failed with
    (``ConfigError``: located problems). ``cwd``: where a stdio upstream without an
    ``mcp.cwd`` of its own runs (``in_rules_dir``)."""
    found: Started = {}
    servers = [in_rules_dir(s, cwd) for s in servers]

    def one(server: ServerConfig) -> None:
        try:
            found[server.name] = _start(server, redact, pins)
        except BaseException as exc:  # handed to the caller, in order
            found[server.name] = exc

    with still_waiting(lambda waited: _waiting_for(
            [s for s in servers if s.name not in found], waited)):
        if len(servers) == 1:
            one(servers[0])
            return found
        threads = [threading.Thread(target=one, args=(s,), name=f"toolhost-upstream-{s.name}",
                                    daemon=True) for s in servers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return {s.name: found[s.name] for s in servers}


def in_rules_dir(server: ServerConfig, cwd: str | None) -> ServerConfig:
    """``server`` with its stdio upstream started in ``cwd`` (the directory the permission
    rules judge a relative path against: ``run.cwd``, ``toolhost run --cwd``) unless its
    ``mcp:`` block says ``cwd:``. The upstream reads a relative path argument against its own
    working directory: started where toolhost was, ``path: secret.txt`` was judged by a
    ``path_under: proj`` rule as ``proj/secret.txt`` (allowed) while the upstream read
    ``./secret.txt``."""
    spec = server.upstream
    if cwd is None or spec is None or spec.cwd is not None or not spec.command:
        return server
    return dataclasses.replace(server, upstream=dataclasses.replace(spec, cwd=cwd))


def reads_paths_elsewhere(spec: UpstreamSpec, server: str,
                          rules_dir: str) -> tuple[str, str] | None:
    """Why upstream ``spec`` reads a relative path argument elsewhere than rules judging it
    against ``rules_dir`` do, and what to do, as (why, hint); None when it reads it there.
    ``validate`` says it at a path condition naming the upstream's tools."""
    if spec.url:
        return (f"upstream server '{server}' is reached over HTTP: it reads a path on its own "
                "machine, against its own directory, while the condition judges it as a path "
                f"of this one (a relative one against {rules_dir})",
                "judge such an argument by its text (regex), or ask")
    if spec.cwd is not None and os.path.realpath(spec.cwd) != os.path.realpath(rules_dir):
        return (f"upstream server '{server}' runs in {spec.cwd} (its mcp.cwd), so it reads a "
                f"relative path there, while the condition judges it against {rules_dir}",
                "leave mcp.cwd out (the upstream then runs where the rules judge paths), "
                "or set run.cwd to the same directory")
    return None


def _waiting_for(servers: Sequence[ServerConfig], waited: float) -> str:
    """The line a person waiting for the start of ``servers`` reads (none: "")."""
    if not servers:
        return ""
    names = ", ".join(f"'{s.name}'" for s in servers[:5]) + \
        (f" and {len(servers) - 5} more" if len(servers) > 5 else "")
    most = max(s.upstream.connect_timeout for s in servers)
    return (f"still waiting for upstream server{'s' if len(servers) > 1 else ''} {names} to "
            f"start and list {'their' if len(servers) > 1 else 'its'} tools ({waited:.0f}s "
            f"so far; each step may take up to {most:g}s: connect_timeout)")
