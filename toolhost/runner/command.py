"""The Claude CLI command line and environment for a toolhost session (protocol.md §1)."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from toolhost.compile.tool import CompiledTool
from toolhost.config.model import RunConfig
from toolhost.runner.cli_settings import KEEP_START_DIR, settings_json

__all__ = ["DEFAULT_MAX_TURNS", "CliCommand", "RunOptions", "build_command", "mcp_config",
           "server_timeout_ms"]

# The CLI's own per-server timeout must fire after toolhost's per-tool timeout, so that the
# model reads toolhost's clear "timed out" result rather than the CLI giving up first.
TIMEOUT_GRACE_MS = 5_000

# Model turns (replies) one user turn may take when nothing sets ``--max-turns``: the CLI has
# no limit of its own, so a model that never stops calling tools (a loop, a tool denied again
# and again) ran, and cost, until someone noticed. The CLI counts per user turn: a long
# interactive session is never cut. A task that needs more says so (``max_turns_hint``).
DEFAULT_MAX_TURNS = 100


@dataclass(frozen=True)
class RunOptions(RunConfig):
    """What ``toolhost run`` tells the CLI: the config's ``run:`` block, then the command line."""

    # Hand each server's manifest to the CLI in `initialize` (no MCP handshake at start-up).
    manifests: bool = True

    @classmethod
    def from_config(cls, run: RunConfig, **overrides: Any) -> RunOptions:
        """The config's values, with every override that is not None taking precedence."""
        base = cls(**{f.name: getattr(run, f.name) for f in fields(RunConfig)})
        return base.merged(**overrides)

    def merged(self, **overrides: Any) -> RunOptions:
        changes = {k: v for k, v in overrides.items() if v is not None}
        if "cli_args" in changes:  # the command line's extra args come after the config's
            changes["cli_args"] = (*self.cli_args, *changes["cli_args"])
        if "env" in changes:
            changes["env"] = {**self.env, **changes["env"]}
        return replace(self, **changes)


@dataclass(frozen=True)
class CliCommand:
    """The Claude CLI's command line, environment and working directory."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    cwd: str | None = None


def server_timeout_ms(tools: Sequence[CompiledTool]) -> int | None:
    """The CLI-side timeout for one sdk server: its slowest declared tool plus a grace period.

    None when a tool declares no timeout (the CLI's own default, hours long, then applies).
    """
    if not tools or any(t.timeout is None for t in tools):
        return None
    slowest = max(t.timeout or 0.0 for t in tools)
    return math.ceil(slowest * 1000) + TIMEOUT_GRACE_MS


def mcp_config(servers: Mapping[str, Sequence[CompiledTool]],
               external: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The ``--mcp-config`` object: each toolhost server as an sdk entry, externals as given.

    An sdk entry needs both ``type`` and ``name``: with ``type`` alone the CLI drops it silently.
    """
    entries: dict[str, Any] = {}
    for name, tools in servers.items():
        entry: dict[str, Any] = {"type": "sdk", "name": name}
        timeout = server_timeout_ms(tools)
        if timeout is not None:
            entry["timeout"] = timeout
        entries[name] = entry
    for name, spec in (external or {}).items():
        entries[name] = dict(spec)
    return {"mcpServers": entries}


def build_command(cli: str, servers: Mapping[str, Sequence[CompiledTool]], *,
                  external: Mapping[str, Mapping[str, Any]] | None = None,
                  disallowed_tools: Sequence[str] = (), options: RunOptions = RunOptions(),
                  environ: Mapping[str, str] | None = None,
                  extra_env: Mapping[str, str] | None = None,
                  drop_env: Sequence[str] = ()) -> CliCommand:
    """The argv, environment and working directory to start the CLI with.

    The environment is toolhost's own (``environ``, default ``os.environ``) plus the config's
    ``run.env`` plus ``extra_env`` (the scripted model's) minus ``drop_env``, so API keys and
    ``ANTHROPIC_BASE_URL`` reach the CLI as users expect.
    """
    argv = [cli, "--output-format", "stream-json", "--input-format", "stream-json",
            "--verbose", "--permission-prompt-tool", "stdio",
            "--mcp-config", json.dumps(mcp_config(servers, external))]
    if options.system_prompt is not None:
        argv += ["--system-prompt", options.system_prompt]
    if options.append_system_prompt is not None:
        argv += ["--append-system-prompt", options.append_system_prompt]
    if options.model:
        argv += ["--model", options.model]
    if options.max_turns is not None:
        argv += ["--max-turns", str(options.max_turns)]
    elif not any(a == "--max-turns" or a.startswith("--max-turns=") for a in options.cli_args):
        argv += ["--max-turns", str(DEFAULT_MAX_TURNS)]
    if disallowed_tools:
        argv += ["--disallowedTools", ",".join(disallowed_tools)]
    # Every call asked about, whatever the CLI would allow by itself, and no settings or
    # plugin hook run (toolhost.runner.cli_settings); --settings is refused in cli_args, so
    # this is the only one.
    argv += ["--settings", settings_json([*servers, *(external or {})], hooks=False)]
    argv += options.cli_args
    env = dict(os.environ if environ is None else environ)
    env.update(options.env)
    env.update(extra_env or {})
    for name in drop_env:
        env.pop(name, None)
    env["CLAUDE_CODE_ENTRYPOINT"] = "sdk-py"
    env.update(KEEP_START_DIR)  # the rules judge the start folder: no cd carries over
    return CliCommand(tuple(argv), env, options.cwd)
