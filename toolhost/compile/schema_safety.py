"""A schema the host did not write, checked once (an upstream's when its tools are listed, a
config's declared ``input_schema``/``output_schema`` at load), never per call.

An upstream is not trusted, and neither are the schemas it lists: a schema is data the host
runs. ``schema_problem`` says why a schema cannot be used safely (the tool is then left out,
with a log line naming the upstream and the tool), or "" when it can:

- every reference (``$ref``, ``$dynamicRef``, ``$recursiveRef``) is local to the schema
  (``#/...`` or ``#anchor``) and points at something in it: nothing an upstream lists can
  make the host fetch a URL or open a file (the validator's registry refuses to retrieve
  anything as well, see ``toolhost.compile.validators``);
- no chain of references and in-place keywords (``allOf``, ``not``, ``if``...) leads back to
  where it started without descending into the arguments (validation would never end), and
  no such chain is longer than ``MAX_CHAIN``; nesting is at most ``MAX_DEPTH`` deep and the
  schema has at most ``MAX_NODES`` subschemas;
- every ``pattern`` and ``patternProperties`` key compiles with RE2 (``toolhost.regex``): the
  arguments are matched in linear time, and a pattern that cannot be honoured is not skipped;
- nested ``$id`` (a second schema resource inside one tool's schema) is refused: references
  are resolved against the schema itself, nothing else.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

from toolhost import regex
from toolhost.excerpt import cut

__all__ = ["MAX_CHAIN", "MAX_DEPTH", "MAX_NODES", "schema_problem"]

MAX_DEPTH = 64  # nesting of subschemas in one schema
MAX_CHAIN = 32  # references and in-place keywords followed one after another
MAX_NODES = 20_000  # subschemas in one schema
_REFS = ("$ref", "$dynamicRef", "$recursiveRef")
# keywords whose subschemas apply to the same value (no descent into the arguments)
_IN_PLACE_ONE = ("not", "if", "then", "else")
_IN_PLACE_MANY = ("allOf", "anyOf", "oneOf")
_IN_PLACE_MAP = ("dependentSchemas",)
# keywords whose subschemas apply to a part of the value
_DOWN_ONE = ("additionalProperties", "unevaluatedProperties", "items", "contains",
             "propertyNames", "unevaluatedItems", "additionalItems", "contentSchema")
_DOWN_MANY = ("prefixItems", "items")
_DOWN_MAP = ("properties", "patternProperties", "dependencies")
_DEFS = ("$defs", "definitions")


class _Refused(Exception):
    pass


def schema_problem(schema: Any) -> str:
    """Why ``schema`` (an upstream's inputSchema or outputSchema) cannot be used, in a few
    words, or "" when it can."""
    if isinstance(schema, bool):
        return ""
    if not isinstance(schema, dict):
        return f"it is a {type(schema).__name__}, not an object"
    try:
        edges = _Walk(schema).run()
        _check_chains(edges)
    except _Refused as exc:
        return str(exc)
    except RecursionError:  # not expected (nothing here recurses), but never a crash
        return "it is nested too deeply to check"
    return ""


class _Walk:
    """Every subschema reachable from the root (by nesting or reference), checked once."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.seen: set[int] = set()
        self.anchors: dict[str, list[Any]] | None = None
        # in-place edges between subschemas, by id(): what the cycle check walks
        self.edges: dict[int, list[Any]] = {}

    def run(self) -> dict[int, list[Any]]:
        todo: list[tuple[Any, int, bool]] = [(self.root, 0, True)]
        while todo:
            node, depth, is_root = todo.pop()
            if not isinstance(node, dict) or id(node) in self.seen:
                continue
            self.seen.add(id(node))
            if len(self.seen) > MAX_NODES:
                raise _Refused(f"it has more than {MAX_NODES:,} subschemas")
            if depth > MAX_DEPTH:
                raise _Refused(f"it is nested more than {MAX_DEPTH} levels deep")
            if "$id" in node and not is_root:
                raise _Refused(f"it has a nested $id {cut(repr(node['$id']), 80)} (one schema "
                               "resource per tool: references are resolved in the schema itself)")
            self._patterns(node)
            in_place = self.edges.setdefault(id(node), [])
            for key in _REFS:
                if key in node:
                    targets = self._resolve(key, node[key])
                    in_place += targets
                    todo += [(t, depth + 1, False) for t in targets]
            for child in _children(node, _IN_PLACE_ONE, _IN_PLACE_MANY, _IN_PLACE_MAP):
                in_place.append(child)
                todo.append((child, depth + 1, False))
            for child in _children(node, _DOWN_ONE, _DOWN_MANY, (*_DOWN_MAP, *_DEFS)):
                todo.append((child, depth + 1, False))
        return self.edges

    def _patterns(self, node: dict[str, Any]) -> None:
        found = [node["pattern"]] if "pattern" in node else []
        props = node.get("patternProperties")
        if isinstance(props, dict):
            found += list(props)
        for pattern in found:
            why = regex.problem(pattern)
            if why:
                raise _Refused(f"pattern {cut(repr(pattern), 80)} cannot be used: {why}")

    def _resolve(self, key: str, ref: Any) -> list[Any]:
        if not isinstance(ref, str):
            raise _Refused(f"{key} is not a string")
        if not ref.startswith("#"):
            raise _Refused(f"{key} {cut(ref, 120)!r} is not local to the schema "
                           "(toolhost never fetches a schema; only #/... references are followed)")
        fragment = unquote(ref[1:])
        if fragment == "" or fragment.startswith("/"):
            node: Any = self.root
            for token in fragment.split("/")[1:]:
                token = token.replace("~1", "/").replace("~0", "~")
                if isinstance(node, dict) and token in node:
                    node = node[token]
                elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                    node = node[int(token)]
                else:
                    raise _Refused(f"{key} {cut(ref, 120)!r} points at nothing in the schema")
            if not isinstance(node, (dict, bool)):
                raise _Refused(f"{key} {cut(ref, 120)!r} points at something that is not "
                               "a schema")
            return [node]
        targets = self._anchored().get(fragment, [])
        if not targets:
            raise _Refused(f"{key} {cut(ref, 120)!r} names no anchor of the schema")
        return targets

    def _anchored(self) -> dict[str, list[Any]]:
        if self.anchors is None:  # every $anchor and $dynamicAnchor, by name
            self.anchors = {}
            for node in _every_dict(self.root):
                for key in ("$anchor", "$dynamicAnchor"):
                    if isinstance(node.get(key), str):
                        self.anchors.setdefault(node[key], []).append(node)
        return self.anchors


def _children(node: dict[str, Any], one: tuple[str, ...], many: tuple[str, ...],
              maps: tuple[str, ...]) -> Iterator[Any]:
    for key in one:
        if isinstance(node.get(key), dict):
            yield node[key]
    for key in many:
        if isinstance(node.get(key), list):
            yield from (s for s in node[key] if isinstance(s, dict))
    for key in maps:
        if isinstance(node.get(key), dict):
            yield from (s for s in node[key].values() if isinstance(s, dict))


def _every_dict(root: Any) -> Iterator[dict[str, Any]]:
    todo = [root]
    count = 0
    while todo:
        node = todo.pop()
        count += 1
        if count > 10 * MAX_NODES:
            raise _Refused(f"it has more than {10 * MAX_NODES:,} values")
        if isinstance(node, dict):
            yield node
            todo += node.values()
        elif isinstance(node, list):
            todo += node


def _check_chains(edges: dict[int, list[Any]]) -> None:
    """No cycle through in-place edges; no chain of them longer than MAX_CHAIN."""
    longest: dict[int, int] = {}  # done: the longest chain from there
    on_path: set[int] = set()
    for start in list(edges):
        if start in longest:
            continue
        stack: list[tuple[int, Iterator[Any]]] = [(start, iter(edges.get(start, ())))]
        on_path.add(start)
        while stack:
            here, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                on_path.discard(here)
                longest[here] = 1 + max((longest.get(id(c), 0) for c in edges.get(here, ())
                                         if isinstance(c, dict)), default=0)
                if longest[here] > MAX_CHAIN:
                    raise _Refused(f"a chain of more than {MAX_CHAIN} references and "
                                   "in-place keywords (allOf, not...) is too long to check")
                continue
            if not isinstance(child, dict) or id(child) in longest:
                continue
            if id(child) in on_path:
                raise _Refused("references form a cycle that never reaches an argument "
                               "(checking a value would never end)")
            on_path.add(id(child))
            stack.append((id(child), iter(edges.get(id(child), ()))))
