"""The registration API a plugin's ``register(registry)`` hook calls.

A plugin is a package with an entry point in the ``toolhost`` group::

    # pyproject.toml
    [project.entry-points.toolhost]
    files = "toolhost_files.plugin"

The entry point names a module with a ``register`` function (or names the function itself,
``"toolhost_files.plugin:register"``). toolhost calls it once, only when a config enables the
plugin, with a fresh ``Registry``::

    from toolhost.plugins import Registry

    def register(registry: Registry) -> None:
        registry.add_server("files", description="Search and read files under a root")
        registry.add_tool(search, server="files")
        registry.add_rules(deny=[{"tool": "mcp__files__read", "expr": "'.env' in path"}])

Nothing is registered when the hook raises: a plugin contributes all of it or none of it.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

from toolhost.backends.base import BackendKind
from toolhost.config.model import (
    BackendSpec,
    Origin,
    RuleConfig,
    ServerConfig,
    ServerDefaults,
    ToolConfig,
)
from toolhost.errors import PluginError
from toolhost.plugins.decorator import ToolMeta, tool_meta

__all__ = ["Registry", "RuleSpec"]

# A rule as a plugin writes it: a pattern string, or the structured form of the config
# ({"tool": ..., "when": ..., "expr": ..., "message": ..., "rewrite": ...}).
RuleSpec = str | Mapping[str, Any]
_RULE_KEYS = {"tool", "when", "expr", "message", "rewrite"}


class Registry:
    """What one plugin contributes. Passed to the plugin's ``register`` hook.

    Everything added here is attributed to the plugin: tools and servers appear in
    ``toolhost plugins``, rules carry the layer ``plugin:<name>``.
    """

    def __init__(self, plugin: str) -> None:
        self.plugin = plugin
        self.kinds: dict[str, BackendKind] = {}
        self.servers: dict[str, ServerConfig] = {}
        self.tools: dict[tuple[str, str], ToolConfig] = {}
        self.rules: list[RuleConfig] = []
        self.fragments: dict[str, str] = {}  # package-relative path -> description
        self.settings_schema: Mapping[str, Any] | None = None
        self._closed = False

    def close(self) -> None:
        """End registration: what ``register`` left behind (a thread, a callback kept for
        later) may add nothing more, so what a config gets is what ``register`` added."""
        self._closed = True

    def _open(self, what: str) -> None:
        if self._closed:
            raise PluginError(f"plugin '{self.plugin}': {what} after register() returned; "
                              "everything is added while register(registry) runs")

    # -- backend kinds -------------------------------------------------------------------

    def add_kind(self, kind: BackendKind) -> None:
        """Add a backend kind: a block named ``kind.name`` becomes usable in tool configs.

        ``kind`` implements ``toolhost.backends.base.BackendKind``: ``name``, ``shorthand``,
        ``options_schema`` (JSON Schema of the block, used to report bad keys by path) and
        ``bind(tool, ctx) -> Binding``.
        """
        self._open("add_kind()")
        name = getattr(kind, "name", None)
        if not isinstance(name, str) or not name.isidentifier():
            raise PluginError(f"plugin '{self.plugin}': a backend kind needs a `name` that is "
                              f"an identifier, got {name!r}")
        if not callable(getattr(kind, "bind", None)):
            raise PluginError(f"plugin '{self.plugin}': backend kind '{name}' has no bind()")
        if not isinstance(getattr(kind, "options_schema", None), Mapping):
            raise PluginError(f"plugin '{self.plugin}': backend kind '{name}' needs an "
                              "`options_schema` mapping (JSON Schema of its block)")
        if name in self.kinds:
            raise PluginError(f"plugin '{self.plugin}' adds backend kind '{name}' twice")
        from toolhost.config.build_servers import TOOL_KEYS

        if name in TOOL_KEYS:  # every tool's `description:` would be read as its block
            raise PluginError(f"plugin '{self.plugin}': backend kind '{name}' has the name of "
                              f"a tool's own key ({', '.join(TOOL_KEYS)}); name it otherwise")
        self.kinds[name] = kind

    # -- servers and tools ---------------------------------------------------------------

    def add_server(self, name: str, *, description: str | None = None, version: str = "0.1.0",
                   timeout: float | None = None, external: Mapping[str, Any] | None = None
                   ) -> None:
        """Declare an MCP server. Its tools come from ``add_tool(..., server=name)``.

        ``external`` passes an MCP server the CLI starts itself through unchanged, e.g.
        ``{"type": "stdio", "command": "my-server", "args": []}``.
        """
        self._open("add_server()")
        _check_name(self.plugin, "server", name)
        if name in self.servers:
            raise PluginError(f"plugin '{self.plugin}' adds server '{name}' twice")
        self.servers[name] = ServerConfig(
            name=name, description=description, version=version,
            defaults=ServerDefaults(timeout=timeout),
            external=dict(external) if external is not None else None,
            origin=Origin(file=f"plugin:{self.plugin}", key_path=f"servers.{name}"))

    def add_tool(self, func: Callable[..., Any], *, server: str, name: str | None = None,
                 description: str | None = None, annotations: Mapping[str, Any] | None = None,
                 params: Mapping[str, Mapping[str, Any]] | None = None,
                 timeout: float | None = None) -> None:
        """Add a plain Python function as a tool of ``server``.

        The function must be importable by its module and name (defined at the top level of
        a module): the tool becomes a ``python:`` tool pointing at it, so its input schema is
        generated from the signature, type hints and docstring exactly as for a ``python:``
        tool in a config. Keyword arguments here override those given to the ``@tool``
        decorator, which override what the function itself says.

        ``params`` overrides parts of the generated schema, per parameter (JSON Schema).
        ``annotations`` are MCP tool annotations, e.g. ``{"readOnlyHint": True}``.
        """
        self._open("add_tool()")
        meta = tool_meta(func).merged(ToolMeta(name=name, description=description,
                                               annotations=annotations, params=params,
                                               timeout=timeout))
        module = getattr(func, "__module__", None)
        qualname = getattr(func, "__qualname__", "")
        if not module or not qualname or "<" in qualname or "." in qualname:
            raise PluginError(
                f"plugin '{self.plugin}': tool function {qualname or func!r} must be defined at "
                "the top level of a module, so that it can be imported by name")
        tool_name = meta.name or str(getattr(func, "__name__", ""))
        _check_name(self.plugin, "tool", tool_name)
        _check_name(self.plugin, "server", server)
        if (server, tool_name) in self.tools:
            raise PluginError(f"plugin '{self.plugin}' adds tool '{server}.{tool_name}' twice")
        origin = _origin_of(func, f"servers.{server}.tools.{tool_name}")
        params_map = {k: dict(v) for k, v in (meta.params or {}).items()}
        self.tools[(server, tool_name)] = ToolConfig(
            name=tool_name, server=server,
            backend=BackendSpec(kind="python", options={"function": f"{module}:{qualname}"},
                                origin=origin),
            description=meta.description, params=params_map,
            annotations=dict(meta.annotations or {}), timeout=meta.timeout, origin=origin)

    # -- permission rules ----------------------------------------------------------------

    def add_rules(self, *, allow: Iterable[RuleSpec] = (), deny: Iterable[RuleSpec] = (),
                  ask: Iterable[RuleSpec] = ()) -> None:
        """Add permission rules that travel with the plugin's tools.

        Each rule is written as in a config's ``permissions:`` block: a pattern string
        (``"mcp__files__*"``) or a mapping with ``tool`` and optionally ``when``, ``expr``,
        ``message`` and (allow only) ``rewrite``. They carry the layer ``plugin:<name>``,
        so ``toolhost permissions`` shows where they came from.
        """
        self._open("add_rules()")
        groups: tuple[tuple[Literal["allow", "deny", "ask"], Iterable[RuleSpec]], ...] = (
            ("deny", deny), ("ask", ask), ("allow", allow))
        for effect, specs in groups:
            for spec in specs:
                index = sum(1 for r in self.rules if r.effect == effect)
                self.rules.append(self._rule(effect, spec, index))

    def _rule(self, effect: Literal["allow", "deny", "ask"], spec: RuleSpec,
              index: int) -> RuleConfig:
        origin = Origin(file=f"plugin:{self.plugin}", key_path=f"permissions.{effect}[{index}]")
        if isinstance(spec, str):
            return RuleConfig(effect=effect, tool=spec, origin=origin,
                              layer=f"plugin:{self.plugin}")
        if not isinstance(spec, Mapping) or not isinstance(spec.get("tool"), str):
            raise PluginError(f"plugin '{self.plugin}': {effect} rule {spec!r} needs a `tool` "
                              "pattern")
        unknown = set(spec) - _RULE_KEYS
        if unknown:
            raise PluginError(f"plugin '{self.plugin}': {effect} rule has unknown keys "
                              f"{sorted(unknown)} (known: {sorted(_RULE_KEYS)})")
        if spec.get("rewrite") is not None and effect != "allow":
            raise PluginError(f"plugin '{self.plugin}': only allow rules may rewrite")
        return RuleConfig(effect=effect, tool=spec["tool"], when=spec.get("when"),
                          expr=spec.get("expr"), message=spec.get("message"),
                          rewrite=spec.get("rewrite"), origin=origin,
                          layer=f"plugin:{self.plugin}")

    # -- settings and fragments ----------------------------------------------------------

    def set_settings_schema(self, schema: Mapping[str, Any]) -> None:
        """JSON Schema of this plugin's block under ``settings:`` in a config.

        When set, a config that enables the plugin has ``settings.<plugin>`` checked against
        it, and errors name the key path. Read the values at call time with
        ``toolhost.plugins.settings("<plugin>")``.
        """
        self._open("set_settings_schema()")
        self.settings_schema = dict(schema)

    def add_fragment(self, path: str, description: str = "") -> None:
        """Advertise a config fragment shipped as package data (for ``toolhost plugins``).

        Any file in the package can be used as ``extends: [pkg:<dist>/<path>]`` whether it
        is advertised or not; this only lists it.
        """
        self._open("add_fragment()")
        self.fragments[path] = description

    def provides(self) -> dict[str, list[str]]:
        """A summary for humans: kinds, servers, tools, rules and fragments."""
        return {
            "kinds": sorted(self.kinds),
            "servers": sorted(set(self.servers) | {s for s, _ in self.tools}),
            "tools": sorted(f"mcp__{s}__{t}" for s, t in self.tools),
            "rules": [_describe(r) for r in self.rules],
            "fragments": sorted(self.fragments),
        }


def _describe(rule: RuleConfig) -> str:
    text = f"{rule.effect} {rule.tool}"
    if rule.when:
        text += " when " + json.dumps(rule.when, sort_keys=True, default=str)
    if rule.expr:
        text += f" if {rule.expr}"
    return text


def _check_name(plugin: str, what: str, name: str) -> None:
    if not name or not all(c.isalnum() or c in "_-" for c in name):
        raise PluginError(f"plugin '{plugin}': {what} name {name!r} must be letters, digits, "
                          "'_' or '-'")


def _origin_of(func: Callable[..., Any], key_path: str) -> Origin:
    """Where a tool's function is written: its file and the line of its ``def`` (or first
    decorator), from the code object. ``inspect.getsourcelines`` read and tokenized the
    function's whole source for the line alone: a plugin adding 10,000 tools took 8 s."""
    target = inspect.unwrap(func)  # as inspect's own lookups do
    code = getattr(target, "__code__", None)
    try:
        file = inspect.getsourcefile(target) if code is not None else None
    except (OSError, TypeError):
        file = None
    if file is None or code is None:
        return Origin(file="<plugin>", line=0, key_path=key_path)
    return Origin(file=file, line=code.co_firstlineno, key_path=key_path)
