"""What a server offers besides tools: resources and prompts, as declared.

A resource is one of three kinds: a static ``file``, every file of a ``directory``, or a
``uri`` template whose values a backend (python, command, http; the same blocks as tools)
turns into the resource's content. A prompt is a jinja2 ``template`` (one user message), a
list of ``messages``, or a python function.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from toolhost.config.model import UNKNOWN, BackendSpec, Origin

__all__ = ["PromptArgument", "PromptConfig", "PromptMessage", "ResourceConfig"]


@dataclass(frozen=True)
class ResourceConfig:
    """One declared resource (or resource template)."""

    name: str
    server: str
    kind: Literal["file", "directory", "template"]
    uri: str  # the URI (file), the URI prefix (directory) or the URI template (template)
    path: str | None = None  # absolute, for file and directory
    backend: BackendSpec | None = None  # template only
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # template vars
    description: str | None = None
    title: str | None = None
    mime_type: str | None = None  # None: guessed from the file name
    max_bytes: int = 1_000_000
    # completion values per template variable (from an enum, a list or a python function)
    complete: Mapping[str, Any] = field(default_factory=dict)
    origin: Origin = UNKNOWN


@dataclass(frozen=True)
class PromptArgument:
    """One argument a declared prompt takes."""

    name: str
    description: str | None = None
    required: bool = False
    # values offered by completion/complete: a list, or "module:function"
    complete: tuple[str, ...] | str | None = None


@dataclass(frozen=True)
class PromptMessage:
    """One message of a declared prompt: a role and its template."""

    role: Literal["user", "assistant"]
    template: str  # jinja2 source


@dataclass(frozen=True)
class PromptConfig:
    """One declared prompt."""

    name: str
    server: str
    arguments: tuple[PromptArgument, ...] = ()
    messages: tuple[PromptMessage, ...] = ()  # template / messages prompts
    function: str | None = None  # "module:function" prompts
    description: str | None = None
    title: str | None = None
    origin: Origin = UNKNOWN
