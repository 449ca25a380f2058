"""A tool's declared defaults filled in for what a call leaves out: at the top level, and
inside the objects (and array items) a call gives, where a schema declares defaults there.

``declared_defaults`` finds them where generators write them: ``properties``, a local
``$ref`` (``#/$defs/X``, ``#/definitions/X``, as pydantic and OpenAPI components write
them), ``allOf`` parts, the one object branch of an ``anyOf``/``oneOf`` (``Optional[Opts]``)
and ``items``. A service or upstream built with pydantic (FastAPI, FastMCP, the Python SDK)
reads ``opts: {}`` as ``opts: {limit: 50}`` when ``Opts.limit`` defaults to 50, and a query
parameter whose schema is a ``$ref`` to ``{default: 20}`` as 20 when left out: judged on what
the model sent, a ``deny when {opts.limit: {min: 10}}`` met nothing.

The policy fills them before it judges a call (``CompiledPolicy.decide``) and the tool before
it runs (``CompiledTool``), so the rules judge what is sent. A value of a defaults mapping is
either the default itself or an ``Inside``: defaults that hold inside whatever is given there
(an upstream built with pydantic fills ``opts.limit: 50`` into a call's ``opts: {}`` itself,
where a rule on ``opts.limit`` would have judged nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["NO_DEFAULT", "Inside", "declared_defaults", "fill_defaults"]

NO_DEFAULT: Any = type("NoDefault", (), {"__repr__": lambda self: "NO_DEFAULT"})()
"""``Inside.own`` of an argument that has no default of its own."""

_ATOMS = frozenset({str, int, float, bool, type(None)})


@dataclass(frozen=True)
class Inside:
    """Defaults inside one argument: ``own`` is its own default (``NO_DEFAULT``: none),
    ``keys`` the defaults of the keys of an object given there (each a value or an
    ``Inside``), ``items`` those of each item of an array given there."""

    own: Any = NO_DEFAULT
    keys: Mapping[str, Any] = field(default_factory=dict)
    items: Inside | None = None


def fill_defaults(defaults: Mapping[str, Any], arguments: Mapping[str, Any]) -> Mapping[str, Any]:
    """``arguments`` with ``defaults`` filled in where they leave a key out (inside what they
    give too, for an ``Inside``); ``arguments`` itself when there is nothing to fill. A list
    or object default is copied (a tool may change what it is given)."""
    out: dict[str, Any] | None = None
    for key, default in defaults.items():
        given = key in arguments
        if isinstance(default, Inside):
            if given:
                value = _inside(default, arguments[key])
            elif default.own is not NO_DEFAULT:
                value = _inside(default, _copied(default.own))
            else:
                continue
            if given and value is arguments[key]:
                continue
        elif given:
            continue
        else:
            value = _copied(default)
        if out is None:
            out = dict(arguments)
        out[key] = value
    if out is None:
        return arguments
    return {**{k: out[k] for k in out if k not in arguments}, **{k: out[k] for k in arguments}}


def _inside(default: Inside, value: Any) -> Any:
    if default.keys and (type(value) is dict or isinstance(value, Mapping)):
        return fill_defaults(default.keys, value)
    if default.items is not None and isinstance(value, list):
        filled = [_inside(default.items, item) for item in value]
        return filled if any(a is not b for a, b in zip(filled, value, strict=True)) else value
    return value


def _copied(value: Any) -> Any:
    """A fresh copy of a default's JSON (lists and objects), so that a tool appending to the
    list it was given does not change the default of every later call (and other clients')."""
    if type(value) is list:
        return [v if type(v) in _ATOMS else _copied(v) for v in value]
    if type(value) is dict:
        return {k: v if type(v) in _ATOMS else _copied(v) for k, v in value.items()}
    return value


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
            found = _target(self.root, here.get("$ref"))
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
            node = _target(self.root, node.get("$ref"))
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


def _target(root: Mapping[str, Any], ref: Any) -> Any:
    """The subschema a local ``#/$defs/X`` or ``#/definitions/X`` reference names, or None."""
    if not isinstance(ref, str):
        return None
    for where in ("$defs", "definitions"):
        prefix = f"#/{where}/"
        name = ref[len(prefix):]
        if ref.startswith(prefix) and "/" not in name:
            defs = root.get(where)
            found = defs.get(name.replace("~1", "/").replace("~0", "~")) \
                if isinstance(defs, Mapping) else None
            return found if isinstance(found, Mapping) else None
    return None
