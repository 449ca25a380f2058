"""Shared by validate and tools: load a config and compile its tools with the right kinds."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import TYPE_CHECKING

from toolhost.errors import Problem

if TYPE_CHECKING:
    from toolhost.compile import CompiledTools
    from toolhost.config.model import HostConfig


def compile_config(config: HostConfig, *, problems: list[Problem] | None = None,
                   connect: bool = True) -> CompiledTools:
    """Bind every tool with the built-in kinds and those of the plugins the config enables
    (raises CompileError listing each bad tool; with ``problems``, they go there and the
    tools that compiled are returned). ``connect=False`` leaves imported servers (``mcp:``)
    unstarted. Call ``close`` after."""
    from toolhost.compile import compile_tools
    from toolhost.stdout_quiet import prints_to_stderr

    # kinds: plugins.kinds_for, activated once per plugin list. A tools module printing at
    # import, or a plugin kind's bind(), would write into `tools --json`, `call --json`, the
    # `.mcp.json` of `mcp-config > .mcp.json`: stderr shows it to a person instead
    # (a problem in a fetched fragment names its repository: compile_tools says it, for
    # run and serve as well)
    with prints_to_stderr():
        return compile_tools(config, problems=problems, connect=connect)


def close(compiled: CompiledTools) -> None:
    if not compiled.holds_resources:
        return
    import anyio

    anyio.run(compiled.aclose)


def redacted(config: HostConfig, problems: Iterable[Problem]) -> list[Problem]:
    """Problems with every secret of ``config`` blanked out."""
    return [dataclasses.replace(p, message=config.redact(p.message), hint=config.redact(p.hint))
            for p in problems]
