"""Where a tool's inputSchema declares defaults: at the top level and inside the objects (and
array items) a call gives, found where generators write them (``properties``, a local
``$ref``, ``allOf`` parts, the object branches of an ``anyOf``/``oneOf``, ``items``).
``toolhost.compile.defaults`` fills what this finds into a call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolhost.compile.defaults import NO_DEFAULT, Inside, InsideDefaults

__all__ = ["declared_defaults"]

_MAX_HOPS = 8  # a $ref that names a $ref ...: followed this far


def declared_defaults(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The defaults of ``schema``'s arguments: a value for a top-level default, an ``Inside``
    for an argument with defaults inside it. Each subschema is read once, without recursion
    (a hostile schema of many ``$ref``s costs its size, never its paths); a recursive
    definition (a tree's ``children``) gives an ``Inside`` that holds itself, and filling
    follows the call's own depth."""
    flat = _flat_defaults(schema)
    if flat is not None:
        return flat
    walk = _Walk(schema)
    walk.read([p for p in walk.parts(schema) if isinstance(p.get("properties"), Mapping)])
    found = walk.build()
    return InsideDefaults(found) if any(isinstance(v, Inside) for v in found.values()) \
        else found


# what makes a schema (or a property's) more than a flat list of plain arguments
_REFERS = ("$ref", "allOf", "anyOf", "oneOf")
_NESTS = (*_REFERS, "properties", "items")


def _flat_defaults(schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """The defaults of the usual schema (top-level properties of plain types: none holds
    properties, items or a reference), read straight off it as the walk would find them
    (a thousand tools load ~15 ms sooner); None for any other schema (then the walk)."""
    props = schema.get("properties")
    if not isinstance(props, Mapping) or any(key in schema for key in _REFERS):
        return None
    found: dict[str, Any] = {}
    for name, sub in props.items():
        if not isinstance(sub, Mapping):
            continue
        if any(key in sub for key in _NESTS):
            return None
        if "default" in sub:
            found[str(name)] = sub["default"]
    return found


class _Walk:
    """The object schemas (their ``properties``) and arguments (a property's or an array's
    ``items`` schema) reachable from the root, by ``id`` (the schema holds them), and which
    of them have a default somewhere inside."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.props: dict[int, list[tuple[str, int]]] = {}  # object -> (name, argument)
        self.objects: dict[int, list[int]] = {}  # argument -> the objects it is
        self.items: dict[int, int] = {}  # argument -> its items' argument
        self.own: dict[int, Any] = {}  # argument -> its own default
        # argument -> the object branches of its oneOf/anyOf: (their consts, whether each is
        # required, by property; their objects)
        self.unions: dict[int, list[tuple[dict[str, Any], list[int]]]] = {}
        self.root_objects: list[int] = []

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
            if isinstance(here.get("allOf"), list):
                todo += [(part, hops + 1) for part in here["allOf"]]
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

    def read(self, root_objects: list[Mapping[str, Any]]) -> None:
        self.root_objects = [id(o) for o in root_objects]
        objects = list(root_objects)
        arguments: list[Mapping[str, Any]] = []
        while objects or arguments:
            if objects:
                obj = objects.pop()
                if id(obj) in self.props:
                    continue
                self.props[id(obj)] = []
                for name, sub in obj["properties"].items():
                    if isinstance(sub, Mapping):
                        self.props[id(obj)].append((str(name), id(sub)))
                        arguments.append(sub)
                continue
            arg = arguments.pop()
            if id(arg) in self.objects:
                continue
            parts = self.parts(arg)
            own = next((p["default"] for p in parts if "default" in p), NO_DEFAULT)
            if own is not NO_DEFAULT:
                self.own[id(arg)] = own
            found = [p for p in parts if isinstance(p.get("properties"), Mapping)]
            self.objects[id(arg)] = [id(p) for p in found]
            objects += found
            branches = self._branches(parts)
            if branches:
                self.unions[id(arg)] = [(tag, [id(o) for o in objs]) for tag, objs in branches]
                objects += [o for _, objs in branches for o in objs]
            items = next((p["items"] for p in parts if isinstance(p.get("items"), Mapping)),
                         None)
            if items is not None:
                self.items[id(arg)] = id(items)
                arguments.append(items)

    def _branches(self, parts: list[Mapping[str, Any]]
                  ) -> list[tuple[dict[str, Any], list[Mapping[str, Any]]]]:
        """The object branches of a ``oneOf``/``anyOf`` with more than one (a union of
        models, ``Cat | Dog``): each one's object schemas, and what tells an object of it:
        its required properties and ``const`` (or one-value ``enum``) ones (pydantic's
        discriminator), each as (the const or ``NO_DEFAULT``, whether it is required)."""
        out: list[tuple[dict[str, Any], list[Mapping[str, Any]]]] = []
        for part in parts:
            for key in ("anyOf", "oneOf"):
                branches = part.get(key)
                if not isinstance(branches, list):
                    continue
                objects = [b for b in branches if self._has_properties(b)]
                if len(objects) < 2:
                    continue  # (one: followed as Optional[Opts] by parts)
                for branch in objects:
                    found = [p for p in self.parts(branch)
                             if isinstance(p.get("properties"), Mapping)]
                    needed = {str(n) for obj in found if isinstance(obj.get("required"), list)
                              for n in obj["required"]}  # (one left out may still be it)
                    tag = {name: (NO_DEFAULT, True) for name in needed}
                    tag.update({name: (_const(sub), name in needed) for obj in found
                                for name, sub in obj["properties"].items()
                                if _const(sub) is not NO_DEFAULT})
                    out.append((tag, found))
        return out

    def _deep(self) -> tuple[set[int], set[int]]:
        """The objects with a default somewhere inside, and the arguments that hold one."""
        users: dict[tuple[str, int], list[tuple[str, int]]] = {}
        for obj, props in self.props.items():
            for _, arg in props:
                users.setdefault(("a", arg), []).append(("o", obj))
        for arg, objs in self.objects.items():
            for obj in objs:
                users.setdefault(("o", obj), []).append(("a", arg))
        for arg, items in self.items.items():
            users.setdefault(("a", items), []).append(("a", arg))
        for arg, branches in self.unions.items():
            for _, objs in branches:
                for obj in objs:
                    users.setdefault(("o", obj), []).append(("a", arg))
        deep: set[tuple[str, int]] = set()
        todo = [("o", obj) for obj, props in self.props.items()
                if any(arg in self.own for _, arg in props)]
        while todo:
            node = todo.pop()
            if node not in deep:
                deep.add(node)
                todo += users.get(node, [])
        return ({n for kind, n in deep if kind == "o"}, {n for kind, n in deep if kind == "a"})

    def build(self) -> dict[str, Any]:
        deep_objects, deep_arguments = self._deep()
        inside = {arg: Inside(own=self.own.get(arg, NO_DEFAULT)) for arg in deep_arguments}
        keys: dict[int, dict[str, Any]] = {obj: {} for obj in deep_objects}
        for obj in deep_objects:
            for name, arg in self.props[obj]:
                if arg in inside:
                    keys[obj].setdefault(name, inside[arg])
                elif arg in self.own:
                    keys[obj].setdefault(name, self.own[arg])

        def joined(objects: list[int]) -> dict[str, Any]:
            mine = [keys[obj] for obj in objects if obj in keys]
            if len(mine) == 1:
                return mine[0]
            out: dict[str, Any] = {}
            for one in mine:
                for name, value in one.items():
                    out.setdefault(name, value)
            return out

        for arg, entry in inside.items():
            entry.keys = joined(self.objects[arg])
            entry.items = inside.get(self.items.get(arg, -1))
            entry.choices = [(tag, joined(objs)) for tag, objs in self.unions.get(arg, [])]
            if entry.choices and not any(keys for _, keys in entry.choices):
                entry.choices = []  # (no branch has a default: nothing to choose)
        root = self.root_objects
        top: dict[str, Any] = {}
        for obj in root:  # the root's own arguments: their defaults, or an Inside
            for name, arg in self.props.get(obj, []):
                if arg in inside:
                    top.setdefault(name, inside[arg])
                elif arg in self.own:
                    top.setdefault(name, self.own[arg])
        return top


def _const(sub: Any) -> Any:
    """The one value a property schema allows (``const``, a one-value ``enum``), else
    ``NO_DEFAULT``."""
    if not isinstance(sub, Mapping):
        return NO_DEFAULT
    if "const" in sub:
        return sub["const"]
    enum = sub.get("enum")
    return enum[0] if isinstance(enum, list) and len(enum) == 1 else NO_DEFAULT


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
