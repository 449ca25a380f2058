"""The loaded config: frozen value objects, every node knowing the file and line it came from.

This is the contract between the loader (YAML/TOML, extends, interpolation, validation) and
the compile step. Nothing in here knows about YAML or TOML; nothing after compile reads files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from toolhost.errors import Problem
from toolhost.redaction import Redactor, redactor_for

__all__ = ["SUFFIXES", "BackendSpec", "HostConfig", "Origin", "PermissionsConfig",
           "PluginRequirement", "RuleConfig", "RunConfig", "ServeConfig", "ServerConfig",
           "ServerDefaults", "ToolConfig"]

# the formats a config file may be written in, by its suffix
SUFFIXES = {".yaml": "yaml", ".yml": "yaml", ".toml": "toml"}

Effect = Literal["allow", "deny", "ask"]
EMPTY: Mapping[str, Any] = {}


@dataclass(frozen=True)
class Origin:
    """Where a node was written: file, 1-based line and column, dotted key path."""

    file: str = "<config>"
    line: int = 0
    column: int = 0
    key_path: str = ""

    def __str__(self) -> str:
        if not self.line:
            return self.file
        return f"{self.file}:{self.line}" + (f":{self.column}" if self.column else "")

    def problem(self, message: str, *, key: str = "", hint: str = "") -> Problem:
        """A ``Problem`` located here; ``key`` (e.g. ``".argv[0]"``) extends the key path."""
        key_path = self.key_path + key if self.key_path else key.lstrip(".")
        return Problem(message, self.file, self.line, self.column, key_path, hint)


UNKNOWN = Origin()


@dataclass(frozen=True)
class BackendSpec:
    """A tool's backend block, normalised to a mapping.

    ``kind`` is the block's key (``python``, ``command``, ``http`` or a plugin's kind).
    Shorthands are expanded by the loader: ``python: "mod:fn"`` becomes
    ``{"function": "mod:fn"}`` and ``command: [argv...]`` becomes ``{"argv": [...]}``.
    ``options`` is plain data (str, int, float, bool, None, list, dict) with ``${VAR}``
    already interpolated.
    """

    kind: str
    options: Mapping[str, Any]
    origin: Origin = UNKNOWN


@dataclass(frozen=True)
class ToolConfig:
    """One declared tool."""

    name: str
    server: str
    backend: BackendSpec
    description: str | None = None
    title: str | None = None
    # param name -> JSON Schema of that param (the loader removed toolhost's own
    # ``required:`` flag from each and collected it into ``required``).
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # Names of declared params that are required; None when the config declares no params
    # (the backend's generated schema decides).
    required: tuple[str, ...] | None = None
    annotations: Mapping[str, Any] = field(default_factory=dict)
    # a whole inputSchema written in the config, kept as declared (instead of params)
    input_schema: Mapping[str, Any] | None = None
    output_schema: Mapping[str, Any] | None = None
    # What the model reads: "structured" (the JSON of structuredContent) or "text";
    # None = the backend's default.
    output: Literal["structured", "text"] | None = None
    # Cut the result the model sees at this many characters (None = toolhost's default).
    max_output_chars: int | None = None
    timeout: float | None = None  # seconds; None = server default
    # Hide the config's secrets in the tool's results too (errors are always redacted).
    redact_results: bool = True
    # "optional"/"required": a 2026-07-28 call may/must run as a task (None: "forbidden")
    task_support: Literal["optional", "required"] | None = None
    # ``task_support: {mode: ..., ask_first: true}``: the call runs in the request first,
    # asking through the round trip, and becomes a task at ``ctx.become_task()``
    task_ask_first: bool = False
    origin: Origin = UNKNOWN
    # An OpenAPI operation renamed by ``tools.<operation>.name``: (the name it had, where
    # the rename is written). Deny and ask rules on the old name do not follow the rename:
    # ``toolhost.permissions.guards`` refuses to serve with such a rule.
    renamed_from: tuple[str, Origin] | None = None
    # What the model reads of it has characters no person sees written as escapes
    # (``toolhost.shown``): set for an OpenAPI service's operations, as for an MCP upstream
    shown: bool = False

    @property
    def wire_name(self) -> str:
        """The name the model sees: ``mcp__<server>__<tool>``."""
        return f"mcp__{self.server}__{self.name}"


@dataclass(frozen=True)
class ServerDefaults:
    """Server-level defaults every tool of the server inherits unless it sets its own."""

    timeout: float | None = None  # seconds
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None  # absolute, resolved against the declaring file
    base_url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    # e.g. {"type": "bearer", "token": "..."} / {"type": "basic", "username", "password"} /
    # {"type": "header", "name": "X-Api-Key", "value": "..."}
    auth: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class ServerConfig:
    """One MCP server: either toolhost's own (``tools``) or an external one passed through."""

    name: str
    description: str | None = None
    version: str = "0.1.0"
    tools: Mapping[str, ToolConfig] = field(default_factory=dict)
    defaults: ServerDefaults = field(default_factory=ServerDefaults)
    # An external MCP server the CLI starts itself ({"type": "stdio", "command": ..., ...});
    # when set, ``tools`` is empty.
    external: Mapping[str, Any] | None = None
    origin: Origin = UNKNOWN
    # name -> ResourceConfig / PromptConfig (toolhost.config.content_model)
    resources: Mapping[str, Any] = field(default_factory=dict)
    prompts: Mapping[str, Any] = field(default_factory=dict)
    # An MCP server toolhost imports and governs (toolhost.gateway.spec.UpstreamSpec)
    upstream: Any = None


@dataclass(frozen=True)
class RuleConfig:
    """One permission rule as written: a pattern string or the structured form."""

    effect: Effect
    tool: str  # pattern: "mcp__git__*", "Bash(npm run test:*)", "Read(./src/**)", ...
    when: Mapping[str, Any] | None = None  # argument conditions, all must hold
    expr: str | None = None  # sandboxed jinja2 expression over the arguments
    message: str | None = None  # shown to the model on deny/ask-denied
    rewrite: Mapping[str, Any] | None = None  # allow only: {"set": {...}, "clamp": {...}}
    # only calls of these authenticated callers: {subjects|groups|scopes: [...]} (serve auth)
    callers: Mapping[str, Any] | None = None
    origin: Origin = UNKNOWN
    layer: str = "project"  # user | project | extends | plugin:<name> | local


@dataclass(frozen=True)
class PermissionsConfig:
    """The ``permissions`` block: the default, the rules in order, the audit log, ``ask_mode``."""

    default: Effect = "ask"
    rules: tuple[RuleConfig, ...] = ()
    audit_log: str | None = None  # path of a JSON Lines audit file
    # How an "ask" decision is resolved (config key ``ask_mode``): "prompt" (a person at a
    # terminal if there is one, else deny), "allow" (scripted runs, --yes), "deny".
    ask_mode: Literal["prompt", "allow", "deny"] = "prompt"


@dataclass(frozen=True)
class PluginRequirement:
    """A plugin the config requires (``plugins:``): a distribution name and version specifier."""

    name: str  # distribution name, e.g. "toolhost-files"
    specifier: str = ""  # PEP 440, e.g. ">=0.1,<1"
    origin: Origin = UNKNOWN


@dataclass(frozen=True)
class RunConfig:
    """Settings for ``toolhost run`` (the command line overrides each)."""

    model: str | None = None
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    max_turns: int | None = None
    cwd: str | None = None
    cli_args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ServeConfig:
    """Settings for ``toolhost serve`` (``serve:``; the command line overrides each)."""

    # seconds an HTTP client may take none of a write before it is dropped (--write-timeout)
    write_timeout: float | None = None


@dataclass(frozen=True)
class HostConfig:
    """A whole loaded config: the main file with its extends and layers merged."""

    version: int
    servers: Mapping[str, ServerConfig]
    permissions: PermissionsConfig = field(default_factory=PermissionsConfig)
    plugins: tuple[PluginRequirement, ...] = ()
    settings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # per plugin
    run: RunConfig = field(default_factory=RunConfig)
    serve: ServeConfig = field(default_factory=ServeConfig)
    files: tuple[str, ...] = ()  # every file read, main file first
    # Values that must never be shown (from ${...} in headers/env, or marked secret).
    secrets: frozenset[str] = frozenset()
    # dotted key path -> where its effective value was written (for --explain)
    origins: Mapping[str, Origin] = field(default_factory=dict)
    # notes of the load ``validate`` prints after its verdict (a policy setting one layer
    # overrode in another: merge.override_notes)
    notes: tuple[Problem, ...] = ()

    @property
    def redactor(self) -> Redactor:
        """Hides this config's secrets in every form (see ``toolhost.redaction``)."""
        return redactor_for(self.secrets)

    def redact(self, text: str) -> str:
        """Replace every secret value in ``text``, in any of its forms, with ``***``."""
        if not self.secrets:  # the usual case, on every decision and line shown
            return text
        return redactor_for(self.secrets).redact(text)
