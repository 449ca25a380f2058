"""From a config file to what ``toolhost serve`` exposes, and back again on every reload."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from toolhost.compile.content import ServerContent, kept_promise, merge_content
from toolhost.compile.tool import CompiledTool
from toolhost.errors import ConfigError, Problem
from toolhost.limits import DEFAULT_LIMITS, Limits
from toolhost.mcp import McpServer
from toolhost.permissions.decision import Decision
from toolhost.serve.guard import (
    Gate,
    permission_guard,
    prompt_guard,
    prompt_visible,
    read_guard,
    read_visible,
    rules_defaults,
)
from toolhost.serve.served import ServedServer, expose

if TYPE_CHECKING:
    from toolhost.gateway.refresh import UpstreamFollower

__all__ = ["ServeBuild", "Server", "abuild_serve", "build_serve", "choose_servers"]

log = logging.getLogger("toolhost.serve")

UNION_NAME = "toolhost"


@dataclass
class ServeBuild:
    """One successful build of a config for serving."""

    host: Any  # toolhost.host.Host
    gate: Gate
    selected: tuple[str, ...]
    tools: list[CompiledTool]
    wire_names: dict[str, str]
    content: ServerContent = field(default_factory=ServerContent)

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(self.host.config.files)

    @property
    def name(self) -> str:
        return self.selected[0] if len(self.selected) == 1 else UNION_NAME

    @property
    def version(self) -> str:
        if len(self.selected) == 1:
            return str(self.host.config.servers[self.selected[0]].version)
        from toolhost import __version__
        return __version__

    @property
    def instructions(self) -> str | None:
        descriptions = [(n, self.host.config.servers[n].description) for n in self.selected]
        if len(descriptions) == 1:
            return str(descriptions[0][1]) if descriptions[0][1] else None
        lines = [f"{n}__*: {d}" for n, d in descriptions if d]
        return "\n".join(lines) or None

    async def aclose(self) -> None:
        close = getattr(self.gate, "close", None)
        if callable(close):
            close()
        await self.host.aclose()


def choose_servers(config: Any, requested: Sequence[str], *, every: bool = False
                   ) -> tuple[str, ...]:
    """Which servers to expose: ``requested``, all with ``every``, or the only one there is.

    Raises ``ConfigError`` naming the servers there are when the choice is wrong or ambiguous.
    """
    own = [n for n, s in config.servers.items() if s.external is None]
    external = [n for n, s in config.servers.items() if s.external is not None]
    main = config.files[0] if config.files else "<config>"
    if every:
        chosen = own
    elif requested:
        problems = []
        for name in requested:
            if name in external:
                problems.append(Problem(f"server '{name}' is an external MCP server; its client "
                                        "starts it directly, toolhost does not serve it",
                                        file=main, key_path=f"servers.{name}"))
            elif name not in own:
                problems.append(Problem(f"no server '{name}'", file=main, key_path="servers",
                                        hint="servers: " + (", ".join(own) or "none")))
        if problems:
            raise ConfigError(problems)
        chosen = list(dict.fromkeys(requested))
    elif len(own) == 1:
        chosen = own
    elif not own:
        raise ConfigError([Problem("the config declares no toolhost server to serve",
                                   file=main, key_path="servers")])
    else:
        raise ConfigError([Problem(
            f"the config has several servers ({', '.join(own)}); choose with --server NAME "
            "(repeatable; several are served with names prefixed '<server>__') or --all",
            file=main, key_path="servers")])
    return tuple(chosen)


def _assemble(host: Any, requested: Sequence[str], every: bool) -> ServeBuild:
    from toolhost.permissions.gate import PermissionGate

    selected = choose_servers(host.config, requested, every=every)
    servers = {name: tuple(host.servers[name].tools) for name in selected}
    tools, wire_names = expose(servers, selected)
    # No terminal under serve: stdin is the protocol. An "ask" goes to the person at the
    # MCP client when it can elicit; otherwise it is a deny (toolhost.serve.client_ask).
    asker = None
    if host.config.permissions.ask_mode == "prompt":
        from toolhost.permissions.ask import no_terminal_asker
        from toolhost.permissions.unanswered import unanswered_note
        from toolhost.serve.client_ask import ClientAsker

        asker = ClientAsker(no_terminal_asker(), redact=host.config.redact)
        note = unanswered_note(host.config, "serve", nobody=True)
        if note is not None:  # once, at start, as the gate does for other askers
            logging.getLogger("toolhost.permissions").warning("%s", note)
    # the host's policy: it knows each tool's defaults (judged as the tool fills them in)
    gate = PermissionGate.from_config(host.config, interactive=False, asker=asker,
                                      policy=host.policy)
    compiled = host.compiled.content if host.compiled is not None else {}
    content = merge_content({name: compiled[name] for name in selected if name in compiled})
    return ServeBuild(host, gate, selected, tools, wire_names, content)


def build_serve(path: str | Path, requested: Sequence[str] = (), *, every: bool = False,
                environ: Mapping[str, str] | None = None) -> ServeBuild:
    """Load and compile ``path``; pick the servers; build the permission gate (no terminal).

    Call it outside an event loop (at start-up, or in a reload's thread: :func:`abuild_serve`).
    """
    import anyio

    from toolhost.host import load_host

    host = load_host(path, environ=environ)
    try:
        return _assemble(host, requested, every)
    except BaseException:
        anyio.run(host.aclose)
        raise


async def abuild_serve(path: str | Path, requested: Sequence[str] = (), *,
                       every: bool = False, environ: Mapping[str, str] | None = None
                       ) -> ServeBuild:
    """:func:`build_serve` for a running event loop (hot reload): built in a thread of its
    own, so the loop goes on answering every call meanwhile (``toolhost.reload.built_apart``)."""
    from toolhost.reload import built_apart

    return await built_apart(
        lambda: build_serve(path, requested, every=every, environ=environ), ServeBuild.aclose)


class Server:
    """A ServedServer kept in step with the latest good build (``swap`` on reload) and with
    its imported servers' upstreams (``follow_upstreams``)."""

    def __init__(self, build: ServeBuild, limits: Limits = DEFAULT_LIMITS) -> None:
        self.build = build
        self._retired: list[ServeBuild] = []
        core = McpServer(build.name, build.version, build.tools,
                         instructions=build.instructions, content=build.content,
                         limits=limits)
        self.served = ServedServer(core, build.wire_names)
        core.guard = permission_guard(self, self.served.wire_name)
        # a resource is judged as the served server it belongs to (rules `when: {server: h}`
        # hold under --all as under --server h): the current build's owner of the URI
        core.read_guard = read_guard(self, build.name,
                                     lambda uri: self.build.content.owner(uri))
        core.prompt_guard = prompt_guard(self, build.name,
                                         lambda name: self.build.content.prompt_owner(name))
        core.read_visible = read_visible(self.decide, build.name,
                                         lambda uri: self.build.content.owner(uri))
        core.prompt_visible = prompt_visible(
            self.decide, build.name, lambda name: self.build.content.prompt_owner(name))
        core.unavailable = self._unavailable
        # Most configs import no server: the gateway loads with the first build that does.
        self.upstreams: UpstreamFollower | None = None
        self._importing = anyio.Event()
        if _upstreams(build):
            self._importing.set()

    async def follow_upstreams(self) -> None:
        """Until cancelled: take in each imported server's new tool list, resources and
        prompts when its upstream announces them (``toolhost.gateway.refresh``), and tell
        the clients; pass on the upstream's updates of the resources clients subscribed to
        (``toolhost.serve.upstream_updates``)."""
        await self._importing.wait()
        from toolhost.gateway.refresh import UpstreamFollower
        from toolhost.serve.upstream_updates import UpstreamSubscriptions

        self.upstreams = UpstreamFollower(self._upstream_tools, _upstreams(self.build),
                                          self._upstream_content)
        async with anyio.create_task_group() as tg:
            tg.start_soon(UpstreamSubscriptions(self.served).run)
            await self.upstreams.run()

    async def _upstream_tools(self, name: str, tools: tuple[CompiledTool, ...]) -> None:
        build = self.build
        build.host.servers[name].set_tools(tools)
        build.tools, build.wire_names = expose(
            {n: build.host.servers[n].tools for n in build.selected}, build.selected)
        await self.served.swap(build.tools, build.wire_names)

    async def _upstream_content(self, name: str, content: ServerContent) -> None:
        build = self.build
        compiled = build.host.compiled
        content = kept_promise(compiled.content.get(name), content)
        build.host.servers[name].set_content(content)
        compiled.content = {**compiled.content, name: content}
        build.content = merge_content({n: compiled.content[n] for n in build.selected
                                       if n in compiled.content})
        await self.served.set_content(build.content)  # resources/prompts list_changed

    def _unavailable(self, tool_name: str) -> str | None:
        """Why ``tool_name`` (not served) is a tool of a pending imported server, or None."""
        upstreams = _upstreams(self.build)
        if not upstreams:
            return None
        from toolhost.gateway.pending import unavailable_tools

        return unavailable_tools(upstreams, prefixed=len(self.build.selected) > 1)(tool_name)

    async def check(self, tool_name: str, tool_input: Mapping[str, Any]) -> Decision:
        """The current build's gate (a reload may bring new rules). A reload while the call
        was decided (its question open at the client) leaves the answer to the new rules:
        their deny wins (``reloaded_meanwhile``)."""
        build = self.build
        decision: Decision = await build.gate.check(tool_name, tool_input)
        if self.build is not build:
            from toolhost.permissions.gate import reloaded_meanwhile

            decision = reloaded_meanwhile(tool_name, decision,
                                          self.decide(tool_name, tool_input))
        return decision

    def rules_defaults(self, tool_name: str) -> Mapping[str, Any] | None:
        """The defaults the current build's rules fill into a call of ``tool_name``
        (``toolhost.serve.guard.judged_input``)."""
        return rules_defaults(self.build.gate, tool_name)

    def decide(self, tool_name: str, tool_input: Mapping[str, Any]) -> Decision:
        """The current build's policy on a call: no one asked, nothing recorded."""
        policy = getattr(self.build.gate, "policy", None)
        if policy is None:  # a gate that can only be asked: nothing is proven undenied
            return Decision("deny", "no policy to decide by")
        decision: Decision = policy.decide(tool_name, tool_input)
        return decision

    async def swap(self, build: ServeBuild) -> None:
        """Install a new build: the tool set atomically, then ``tools/list_changed``."""
        if build.selected != self.build.selected:
            log.warning("reload changed the served servers from %s to %s",
                        ", ".join(self.build.selected), ", ".join(build.selected))
        # Calls already running keep their CompiledTool (and its backend resources): the old
        # build is closed at exit, not now.
        self._retired.append(self.build)
        self.build = build
        if self.upstreams is not None:
            self.upstreams.switch(_upstreams(build))
        elif _upstreams(build):
            self._importing.set()  # follow_upstreams starts following them
        await self.served.set_content(build.content)  # resources/prompts list_changed
        await self.served.swap(build.tools, build.wire_names)

    async def aclose(self) -> None:
        builds, self._retired = [*self._retired, self.build], []
        for build in builds:
            await build.aclose()


def _upstreams(build: ServeBuild) -> dict[str, Any]:
    """The served servers of ``build`` that import an upstream."""
    if not getattr(getattr(build.host, "compiled", None), "upstreams", None):
        return {}  # none: the gateway stays unloaded
    from toolhost.gateway.refresh import upstreams_of

    found = upstreams_of(getattr(build.host, "compiled", None))
    return {name: found[name] for name in build.selected if name in found}
