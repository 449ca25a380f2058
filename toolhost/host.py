"""A loaded, compiled toolhost: its MCP servers and its permission policy, ready to serve.

    host = load_host("toolhost.yaml")
    try:
        ...            # host.servers["git"].handle(...), host.policy.decide(...)
    finally:
        await host.aclose()

``load_host`` runs the whole pipeline: load the config (every problem at once), compile
each tool against its backend, build one ``McpServer`` per toolhost server, and compile
the permission rules against the declared tool names.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolhost.compile.tool import CompiledTool
from toolhost.config.gcpause import gc_paused_and_settled
from toolhost.config.model import HostConfig
from toolhost.mcp import McpServer
from toolhost.permissions.decision import Policy

if TYPE_CHECKING:
    from toolhost.compile import CompiledTools

__all__ = ["Host", "load_host"]


def tool_defaults(servers: Mapping[str, McpServer]) -> dict[str, Mapping[str, Any]]:
    """Each served tool's top-level defaults by wire name (the policy fills them in before it
    judges a call), kept in step with the servers' tool lists: an imported server's list
    changes when its upstream announces a new one (``McpServer.set_tools``). A plain dict,
    updated in place: a decision pays one lookup."""
    by_name: dict[str, Mapping[str, Any]] = {}

    def update() -> None:
        now = {t.wire_name: t.defaults for server in servers.values()
               for t in server.tools if t.defaults}
        by_name.update(now)  # (a reader between the two steps sees old or new, never none)
        for gone in [name for name in by_name if name not in now]:
            by_name.pop(gone, None)

    update()
    for server in servers.values():
        server.on_set_tools.append(update)
    return by_name


@dataclass
class Host:
    """The servers and policy built from one config.

    ``compiled`` is what ``compile_tools`` returned (it owns backend resources such as HTTP
    clients); ``aclose`` releases them. ``servers`` holds toolhost's own servers only;
    external servers (``config.servers[name].external``) are started by the CLI itself.
    """

    config: HostConfig
    servers: dict[str, McpServer]
    policy: Policy
    compiled: CompiledTools | None = None  # None for hosts built by hand

    @property
    def tools(self) -> dict[str, Sequence[CompiledTool]]:
        """Server name -> its compiled tools."""
        return {name: server.tools for name, server in self.servers.items()}

    @property
    def external(self) -> dict[str, Mapping[str, Any]]:
        """External MCP server configs, passed through to the CLI's ``--mcp-config``."""
        return {name: server.external for name, server in self.config.servers.items()
                if server.external is not None}

    def disallowed_tools(self) -> list[str]:
        """Tools the policy denies whatever their input: the CLI hides them from the model."""
        method = getattr(self.policy, "disallowed_tools", None)
        return list(method()) if callable(method) else []

    async def aclose(self) -> None:
        """Release the backends' resources (HTTP clients, ...). Safe to call twice."""
        if self.compiled is not None:
            compiled, self.compiled = self.compiled, None
            await compiled.aclose()


def load_host(path: str | Path, *, kinds: Mapping[str, Any] | None = None,
              environ: Mapping[str, str] | None = None, layers: bool = True,
              cwd: str | Path | None = None) -> Host:
    """Load, compile and wire a config. Raises ``ConfigError``/``CompileError`` with every
    problem found, naming file, line and key path; a deny or ask rule left with nothing to
    match (a later layer renamed or left out its tool: ``toolhost.permissions.guards``) is
    one of them, so no host serves a tool whose guard is gone.

    Relative path rules (``Read(./src/**)``) resolve against ``cwd``, by default the config's
    ``run.cwd`` (itself relative to the config file), else the current directory: the
    directory the CLI will run in.

    The first load of a process ends with ``gc.freeze()`` (unless the program turned the
    collector off): what exists then, the loaded config included, is never walked by the
    cyclic collector again (reference counting still frees it). A big config's objects
    otherwise cost a full walk at the next collection and several at exit. Garbage cycles
    pending at that moment are kept; call ``gc.collect()`` first if that matters to you.
    Later loads (reloads) freeze nothing; see ``toolhost.config.gcpause``."""
    return _load(path, kinds=kinds, environ=environ, layers=layers, cwd=cwd)


@gc_paused_and_settled
def _load(path: str | Path, *, kinds: Mapping[str, Any] | None,
          environ: Mapping[str, str] | None, layers: bool, cwd: str | Path | None) -> Host:
    from toolhost.compile import compile_tools
    from toolhost.config import load_config
    from toolhost.errors import ConfigError
    from toolhost.permissions import compile_policy
    from toolhost.permissions.guards import dead_guards
    from toolhost.permissions.reading_dirs import reading_dirs

    config = load_config(path, kinds=kinds, environ=environ, layers=layers)
    base = cwd if cwd is not None else config.run.cwd
    # an imported stdio server runs where the rules judge relative paths (gateway.start)
    compiled = compile_tools(config, kinds=kinds,
                             cwd=os.path.abspath(base) if base is not None else None)
    try:
        # A deny/ask rule left with nothing to match, judged on what the config proves: an
        # imported server's live list changes (a rule may name a tool it lists later).
        dead = dead_guards(config)
        if dead:
            raise ConfigError(dead)
        servers = {
            name: McpServer(name, server.version, compiled.servers.get(name, ()),
                            instructions=server.description,
                            content=compiled.content.get(name))
            for name, server in config.servers.items() if server.external is None}
        if compiled.upstreams:  # a call of a pending imported server's tool: say why
            from toolhost.gateway.pending import say_pending, unavailable_tools

            say_pending(compiled.upstreams)
            for name, upstream in compiled.upstreams.items():
                if name in servers:
                    servers[name].unavailable = unavailable_tools({name: upstream},
                                                                  prefixed=False)
        tool_names = [t.wire_name for tools in compiled.servers.values() for t in tools]
        rules_dir = os.path.abspath(base) if base is not None else None
        policy = compile_policy(config.permissions, tool_names=tool_names, cwd=rules_dir,
                                files=config.files,
                                reading_dirs=reading_dirs(config, rules_dir=rules_dir),
                                defaults=tool_defaults(servers))
    except BaseException:
        import contextlib

        import anyio

        # RuntimeError: already inside an event loop, whose owner cleans up
        with contextlib.suppress(RuntimeError):
            anyio.run(compiled.aclose)
        raise
    return Host(config, servers, policy, compiled)
