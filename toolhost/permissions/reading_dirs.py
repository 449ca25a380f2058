"""Where each tool of a config reads a relative path argument (its working directory).

The permission rules judge a relative path (``path: secret.txt`` under ``path_under: proj``)
against one directory: ``run.cwd``, ``toolhost run --cwd``, else where toolhost runs. A tool
reading it elsewhere makes that judgment wrong: a command tool with a ``cwd:`` of its own (or
its server's), a python tool or a command tool without one while the rules' directory is
``run.cwd`` (they run where toolhost was started, also under ``serve``), an imported stdio
server with an ``mcp.cwd`` of its own; and an HTTP tool, an OpenAPI operation or an HTTP
upstream read paths on another machine, against a directory nobody here knows (None). The
policy (``compile_policy(reading_dirs=)``) then judges such a tool's relative paths as
unprovable.
"""

from __future__ import annotations

import os

from toolhost.config.model import HostConfig, ServerConfig, ToolConfig

__all__ = ["reading_dirs"]

_HERE = ("python",)  # kinds that run in toolhost's own process (or a worker started from it)


def reading_dirs(config: HostConfig, here: str | None = None,
                 rules_dir: str | None = None) -> dict[str, str | None]:
    """By wire name (or ``mcp__server__`` for every tool of an imported or external server),
    the directory the tool reads a relative path in; None where it is unknown. The CLI's own
    tools and external stdio servers without a ``cwd`` are not listed (the CLI runs where the
    rules judge paths). ``here``: where toolhost runs (default: the current directory), for
    tools that run where it does; ``rules_dir``: where the CLI runs (default: ``here``)."""
    here = here if here is not None else os.getcwd()
    out: dict[str, str | None] = {}
    for name, server in config.servers.items():
        if server.external is not None:  # the CLI starts it, in its own directory
            ext = server.external
            if ext.get("type", "stdio") != "stdio":  # http, sse: another machine's paths
                out[f"mcp__{name}__"] = None
            elif isinstance(ext.get("cwd"), str) and ext["cwd"]:
                out[f"mcp__{name}__"] = os.path.join(rules_dir or here, ext["cwd"])
            continue
        spec = server.upstream
        if spec is not None:  # an imported server: every tool it lists, now or later
            if getattr(spec, "url", None):
                out[f"mcp__{name}__"] = None
            elif getattr(spec, "cwd", None):  # (without: it runs in the rules' directory)
                out[f"mcp__{name}__"] = os.path.abspath(spec.cwd)
            continue
        for tool in server.tools.values():
            out[f"mcp__{name}__{tool.name}"] = _tool_dir(tool, server, here)
    return out


def _tool_dir(tool: ToolConfig, server: ServerConfig, here: str) -> str | None:
    kind, opts = tool.backend.kind, tool.backend.options
    if kind in _HERE:
        return here
    if kind == "command":
        cwd = opts.get("cwd") or server.defaults.cwd
        if not cwd:
            return here
        origin = tool.backend.origin.file or tool.origin.file
        if not os.path.isabs(cwd) and origin and os.path.isfile(origin):
            return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(origin)),
                                                 str(cwd)))
        return os.path.abspath(str(cwd))
    return None  # http (another machine), a plugin's kind (not known where it reads)
