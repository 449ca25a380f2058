"""``toolhost run --watch``: a running session follows edits of its config.

A ``LiveHost`` is the host the CLI is being served from, kept in step with each good rebuild
(``toolhost.reload.Reloader`` calls ``swap``):

- each server the CLI knows gets the new build's tools, all swapped before any is announced;
  a server whose tool list changed is announced with ``notifications/tools/list_changed``
  (protocol.md §5b: the CLI re-lists, and the next model request carries the new tools);
- the permission gate decides with the new rules from the next ``can_use_tool`` on, and the
  screen is redacted with the new secrets;
- calls already running finish on the tools (and backend resources) they started with: the
  hosts a reload replaced are closed only when the session is over (``aclose``).

What a running CLI cannot take in is said on stderr: its ``--mcp-config`` is fixed at start,
so a server added by the edit needs a restart, and one removed keeps an empty tool list.

An imported server (``mcp:``) also follows its upstream (``follow_upstreams``): when the
upstream announces a new tool list, the server gets the reshaped tools and the CLI is told
(``toolhost.gateway.refresh``), the same way as after a reload. New resources and prompts of
the upstream are installed the way a reload installs them too, without an announcement:
toolhost sends the CLI ``tools/list_changed`` only, and the CLI asks for ``resources/list``
when the model uses its ``ListMcpResourcesTool`` (docs/running.md).
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Callable, Mapping
from typing import Any

import anyio

from toolhost.compile.content import ServerContent, kept_promise
from toolhost.compile.tool import CompiledTool
from toolhost.errors import ProtocolError
from toolhost.gateway.refresh import UpstreamFollower, upstreams_of
from toolhost.host import Host
from toolhost.mcp import McpServer
from toolhost.mcp.server import Guard
from toolhost.permissions import PermissionGate
from toolhost.permissions.decision import Decision
from toolhost.protocol import ControlSession
from toolhost.redaction import Redactor

__all__ = ["LiveHost", "guard_servers"]

log = logging.getLogger("toolhost.runner")

NOTIFY_TIMEOUT = 10.0


def _say(text: str) -> None:
    with contextlib.suppress(OSError):  # a stderr gone never stops the session
        print(f"toolhost: {text}", file=sys.stderr, flush=True)


def guard_servers(servers: Mapping[str, McpServer], gate: PermissionGate, *,
                  guard: Guard | None = None,
                  claim_read: Callable[[str, str], bool] | None = None) -> None:
    """Put the session's locks on each server: the second lock on tools/call (``guard``),
    and the gate on resources/read and prompts/get. Done before the CLI starts: it may call
    a tool or read a resource while ``initialize`` is still unanswered, and a server
    without its locks would run any call as it is."""
    from toolhost.serve.guard import prompt_guard, prompt_visible, read_guard, read_visible

    def decide(tool_name: str, tool_input: Mapping[str, Any]) -> Decision:
        return gate.policy.decide(tool_name, tool_input)  # the rules of the moment (``swap``)

    for name, server in servers.items():  # the CLI reads resources unasked
        # a read the CLI asked can_use_tool about is not decided (asked) twice
        server.read_guard = read_guard(gate, name, claim=claim_read)
        server.prompt_guard = prompt_guard(gate, name)
        server.read_visible = read_visible(decide, name)
        server.prompt_visible = prompt_visible(decide, name)
        if guard is not None:  # the second lock: see toolhost.runner.gate
            server.guard = guard


class LiveHost:
    """The current build of a session's host; ``swap`` installs a new one."""

    def __init__(self, host: Host, control: ControlSession, gate: PermissionGate,
                 say: Callable[[str], None] = _say, *, guard: Guard | None = None,
                 claim_read: Callable[[str, str], bool] | None = None) -> None:
        self.started = host  # what the CLI was started with (its --mcp-config)
        self.host = host
        self.control = control
        self.gate = gate
        self._say = say
        self._replaced: list[Host] = []  # builds of reloads, closed at the end
        guard_servers(control.servers, gate, guard=guard, claim_read=claim_read)
        self.upstreams = UpstreamFollower(self._upstream_tools, upstreams_of(host.compiled),
                                          self._upstream_content)

    async def follow_upstreams(self) -> None:
        """Until cancelled: take in each imported server's new tool list (and resources and
        prompts) when its upstream announces one, and tell the CLI of new tools."""
        await self.upstreams.run()

    async def _upstream_tools(self, name: str, tools: tuple[CompiledTool, ...]) -> None:
        served, own = self._named(name)
        if served is None:
            return
        if own is not None:
            own.set_tools(tools)
        if served.set_tools(tools):
            await self._announce(name)

    async def _upstream_content(self, name: str, content: ServerContent) -> None:
        served, own = self._named(name)
        if served is None:
            return
        content = kept_promise(served.content, content)
        if own is not None:
            own.set_content(content)
        served.set_content(content)

    def _named(self, name: str) -> tuple[McpServer | None, McpServer | None]:
        """The session's server ``name``, and the current host's when a reload made it
        another object (it is kept in step too)."""
        served = self.control.servers.get(name)
        own = self.host.servers.get(name)
        return served, own if own is not served else None

    def redact(self, text: str) -> str:
        """Hide the current config's secrets (and the first one's: the CLI may echo them)."""
        text = self.host.config.redact(text)
        return self.started.config.redact(text) if self.host is not self.started else text

    def hides_nothing(self) -> bool:
        """Whether ``redact`` returns every text as it is now (neither config has a secret)."""
        return not self.host.config.secrets and not self.started.config.secrets

    def redactor(self) -> Redactor:
        """What ``redact`` hides, as one ``Redactor`` (streamed text is redacted with it)."""
        now = self.host.config.redactor
        return now if self.host is self.started else now.union(self.started.config.secrets)

    async def swap(self, new: Host) -> None:
        """Install a good rebuild (see the module docstring)."""
        known = self.control.servers
        added = [name for name in new.servers if name not in known]
        removed = [name for name in known if name not in new.servers]
        for name in added:
            self._say(f"reload: server {name!r} is new; restart `toolhost run` to use it "
                      "(the running Claude CLI's server list is fixed at start)")
        for name in removed:
            self._say(f"reload: server {name!r} was removed from the config; its tools are "
                      "withdrawn until the session restarts")
        if dict(new.external) != dict(self.host.external):
            self._say("reload: external servers changed; they apply at the next start")
        if new.config.run != self.started.config.run:
            self._say("reload: `run:` settings changed; they apply at the next start")
        hidden = set(self.started.disallowed_tools()) - set(new.disallowed_tools())
        if hidden:
            self._say(f"reload: {', '.join(sorted(hidden))} stay hidden from the model until "
                      "the session restarts (denied at start)")
        old_perms, new_perms = self.host.config.permissions, new.config.permissions
        if (old_perms.ask_mode, old_perms.audit_log) != (new_perms.ask_mode,
                                                         new_perms.audit_log):
            self._say("reload: permissions.ask_mode / audit_log apply at the next start")

        # Rules first, so a tool that appears is judged by the rules that came with it.
        self.gate.policy = new.policy
        self.gate.redact = new.config.redact
        if self.host is not self.started:
            self._replaced.append(self.host)
        self.host = new
        self.upstreams.switch(upstreams_of(new.compiled))
        for name, server in known.items():
            server.set_content(new.servers[name].content if name in new.servers else None)
            server.unavailable = new.servers[name].unavailable if name in new.servers else None
        changed = [name for name, server in known.items()
                   if server.set_tools(new.servers[name].tools if name in new.servers else ())]
        for name in changed:
            await self._announce(name)

    async def _announce(self, name: str) -> None:
        try:
            with anyio.fail_after(NOTIFY_TIMEOUT):
                await self.control.notify_tools_changed(name)
        except (ProtocolError, TimeoutError) as exc:
            log.warning("could not tell the CLI that %s's tools changed: %s", name,
                        str(exc) or f"no answer in {NOTIFY_TIMEOUT:g} s")

    async def aclose(self) -> None:
        """Close every build a reload brought (not the first: its owner closes it)."""
        hosts, self._replaced = self._replaced, []
        if self.host is not self.started:
            hosts.append(self.host)
            self.host = self.started
        for host in hosts:
            await host.aclose()
