"""Shared by validate and tools: load a config and compile its tools with the right kinds."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from toolhost.errors import Problem

if TYPE_CHECKING:
    from toolhost.backends.base import BackendKind
    from toolhost.compile import CompiledTools
    from toolhost.config.model import HostConfig


def active_kinds(config: HostConfig) -> Mapping[str, BackendKind]:
    """The kinds the loader used: built-ins plus the plugins the config enables."""
    from toolhost.plugins import activate

    return activate(config.plugins).kinds


def compile_config(config: HostConfig) -> CompiledTools:
    """Bind every tool (raises CompileError listing each bad tool). Call ``aclose`` after."""
    from toolhost.compile import compile_tools

    return compile_tools(config, active_kinds(config))


def close(compiled: CompiledTools) -> None:
    import anyio

    anyio.run(compiled.aclose)


def redacted(config: HostConfig, problems: Iterable[Problem]) -> list[Problem]:
    """Problems with every secret of ``config`` blanked out."""
    return [dataclasses.replace(p, message=config.redact(p.message), hint=config.redact(p.hint))
            for p in problems]
