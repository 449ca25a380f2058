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
    from toolhost.errors import ConfigError
    from toolhost.stdout_quiet import prints_to_stderr

    # kinds: plugins.kinds_for, activated once per plugin list. A tools module printing at
    # import, or a plugin kind's bind(), would write into `tools --json`, `call --json`, the
    # `.mcp.json` of `mcp-config > .mcp.json`: stderr shows it to a person instead
    found: list[Problem] = []
    try:
        with prints_to_stderr():
            return compile_tools(config, problems=None if problems is None else found,
                                 connect=connect)
    except ConfigError as exc:  # a tool of a fetched fragment: say which repository's
        raise type(exc)(_named(exc.problems)) from exc
    finally:
        if problems is not None:
            problems.extend(_named(found))


def _named(problems: Iterable[Problem]) -> list[Problem]:
    """``problems`` located in a cached checkout of a team repository say which one."""
    problems = list(problems)
    if not problems:
        return problems
    from toolhost.config.repolinks import name_checkouts

    return name_checkouts(problems)


def close(compiled: CompiledTools) -> None:
    if not compiled.holds_resources:
        return
    import anyio

    anyio.run(compiled.aclose)


def redacted(config: HostConfig, problems: Iterable[Problem]) -> list[Problem]:
    """Problems with every secret of ``config`` blanked out."""
    return [dataclasses.replace(p, message=config.redact(p.message), hint=config.redact(p.hint))
            for p in problems]
