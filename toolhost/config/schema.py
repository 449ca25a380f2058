"""The JSON Schema of the config format, for editors (YAML language server, Taplo).

``schema.json`` ships in the package and describes the grammar; a tool's backend block is
open there, since plugins add kinds. ``config_schema(kinds)`` adds each known kind's block
(its shorthand and its ``options_schema``) so editors can complete and check those too.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolhost.backends.base import BackendKind

__all__ = ["config_schema", "shipped_schema"]


def shipped_schema() -> dict[str, Any]:
    """The schema as shipped (``toolhost/config/schema.json``)."""
    text = resources.files("toolhost.config").joinpath("schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def config_schema(kinds: Mapping[str, BackendKind] | None = None) -> dict[str, Any]:
    """The shipped schema, with a property for each backend kind in ``kinds``."""
    schema = shipped_schema()
    if not kinds:
        return schema
    for name, kind in sorted(kinds.items()):
        options = copy.deepcopy(dict(kind.options_schema))
        block: dict[str, Any] = options
        if kind.shorthand is not None:
            short = options.get("properties", {}).get(kind.shorthand, {})
            block = {"anyOf": [short, options], "description": options.get("description", "")}
        for owner in ("tool", "resource"):  # a URI template resource has a backend block too
            schema["$defs"][owner]["properties"][name] = block
    return schema
