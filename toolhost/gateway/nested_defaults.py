"""The defaults an upstream tool's inputSchema declares, inside its arguments too, as the
policy and the call fill them in (``toolhost.compile.defaults``).

An upstream fills the defaults its schema declares inside an object it is given: one built
with pydantic (FastMCP, the Python SDK) reads ``opts: {}`` as ``opts: {limit: 50}`` when
``Opts.limit`` defaults to 50. Judged on ``opts: {}``, a ``deny when {opts.limit: {min: 10}}``
met nothing, and the upstream ran with 50. The objects are found where generators write
them: ``properties``, a local ``$ref`` (``#/$defs/X``, ``#/definitions/X``), ``allOf`` parts,
the one object branch of an ``anyOf``/``oneOf`` (``Optional[Opts]``), and ``items``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolhost.compile.defaults import NO_DEFAULT, Inside
from toolhost.gateway.schema_root import target

__all__ = ["declared_defaults"]

_MAX_DEPTH = 12  # arguments nested deeper than this get no defaults filled inside
_MAX_HOPS = 8  # a $ref that names a $ref ...: followed this far


def declared_defaults(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The defaults of ``schema``'s arguments: a value for a top-level default, an ``Inside``
    for an argument with defaults inside it (``toolhost.compile.defaults``)."""
    return _Walk(schema).keys(schema, 0)


class _Walk:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        # a definition used in many places (or by itself) is walked once per depth: a
        # hostile schema of many $refs costs refs x depth, never paths
        self.memo: dict[tuple[int, int], dict[str, Any]] = {}

    def parts(self, node: Any) -> list[Mapping[str, Any]]:
        """``node`` and the object-level schemas that hold with it."""
        out: list[Mapping[str, Any]] = []
        todo = [(node, 0)]
        while todo and len(out) < 64:
            here, hops = todo.pop(0)
            if not isinstance(here, Mapping) or hops > _MAX_HOPS:
                continue
            out.append(here)
            found = target(self.root, here.get("$ref"))
            if found is not None:
                todo.append((found, hops + 1))
            for key in ("allOf",):
                if isinstance(here.get(key), list):
                    todo += [(part, hops + 1) for part in here[key]]
            for key in ("anyOf", "oneOf"):
                branches = here.get(key)
                if isinstance(branches, list):
                    objects = [b for b in branches if self._has_properties(b)]
                    if len(objects) == 1:  # Optional[Opts]: Opts, or null
                        todo.append((objects[0], hops + 1))
        return out

    def _has_properties(self, node: Any) -> bool:
        for _ in range(_MAX_HOPS):
            if not isinstance(node, Mapping):
                return False
            if isinstance(node.get("properties"), Mapping):
                return True
            node = target(self.root, node.get("$ref"))
        return False

    def keys(self, node: Any, depth: int) -> dict[str, Any]:
        """The defaults of the keys of an object ``node`` describes."""
        key = (id(node), depth)
        if key in self.memo:
            return self.memo[key]
        out: dict[str, Any] = {}
        self.memo[key] = out
        if depth > _MAX_DEPTH:
            return out
        for part in self.parts(node):
            props = part.get("properties")
            if not isinstance(props, Mapping):
                continue
            for name, sub in props.items():
                if name not in out:
                    entry = self.entry(sub, depth + 1)
                    if entry is not NO_DEFAULT:
                        out[str(name)] = entry
        return out

    def entry(self, node: Any, depth: int) -> Any:
        """An argument's default, an ``Inside``, or NO_DEFAULT."""
        parts = self.parts(node)
        own = next((p["default"] for p in parts if "default" in p), NO_DEFAULT)
        inner = self.keys(node, depth) if depth <= _MAX_DEPTH else {}
        items = NO_DEFAULT
        for part in parts:
            if isinstance(part.get("items"), Mapping) and depth <= _MAX_DEPTH:
                items = self.entry(part["items"], depth + 1)
                break
        if not inner and not isinstance(items, Inside):
            return own
        return Inside(own=own, keys=inner,
                      items=items if isinstance(items, Inside) else None)
