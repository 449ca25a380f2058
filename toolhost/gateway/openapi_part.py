"""The part of a large OpenAPI document that the chosen operations use, checked within a bound.

openapi-spec-validator costs up to milliseconds per value (about 2 ms per parameter of an
OpenAPI 3.1 document), so a whole document is checked only up to
``TOOLHOST_MAX_OPENAPI_CHECK_VALUES`` values. A larger one is not imported unchecked: the
part its chosen operations use (the document's top-level keys but ``paths``, ``components``
and ``webhooks``; the path items of those operations, with only their chosen methods; the
security schemes; and everything those reach through ``$ref``) is cut out, under the same
key paths, so every problem keeps its file, line and key path, and checked when it fits the
budget. When it does not, the document is refused with a located problem: choose fewer
operations, or raise the budget. Collecting the part visits each value once and stops at
the budget: linear, and bounded.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from toolhost.config.limits import LIMITS
from toolhost.config.tree import Path as KeyPath
from toolhost.errors import Problem
from toolhost.gateway.openapi_doc import OpenApiDoc, validate_structure

__all__ = ["check_chosen", "chosen_part"]

_BESIDE = frozenset({"paths", "components", "webhooks"})
_METHODS = frozenset({"get", "put", "post", "delete", "options", "head", "patch", "trace"})


def check_chosen(doc: OpenApiDoc, chosen: Sequence[tuple[str, str]]
                 ) -> tuple[list[Problem], str]:
    """The structure check of a document too large to check whole (``doc.values`` over the
    budget), on the part the ``(path, method)`` operations use: its problems, or why it
    could not be checked (the part too is over the budget)."""
    if importlib.util.find_spec("openapi_spec_validator") is None:
        return validate_structure(doc), ""  # (a warning says it was not checked)
    budget = LIMITS.openapi_check_values
    part, _ = chosen_part(doc, chosen, budget)
    if part is None:
        return [], (f"the document has {doc.values:,} values, over the {budget:,} "
                    "openapi-spec-validator checks within seconds, and the "
                    f"{len(chosen):,} operations chosen use more than that")
    return validate_structure(dataclasses.replace(doc, data=part)), ""


def chosen_part(doc: OpenApiDoc, chosen: Iterable[tuple[str, str]], budget: int
                ) -> tuple[dict[str, Any] | None, int]:
    """The document cut down to what the ``(path, method)`` operations use, and how many
    values it has; ``(None, count)`` as soon as it has more than ``budget``."""
    data = doc.data
    roots: list[KeyPath] = [(k,) for k in data if isinstance(k, str) and k not in _BESIDE]
    paths = data.get("paths")
    for path, method in chosen:
        item = paths.get(path) if isinstance(paths, Mapping) else None
        if not isinstance(item, Mapping):
            continue
        roots += [("paths", path, key) for key in item
                  if key == method.lower() or (isinstance(key, str) and key not in _METHODS)]
    components = data.get("components")
    if isinstance(components, Mapping) and "securitySchemes" in components:
        roots.append(("components", "securitySchemes"))
    kept: set[KeyPath] = set()
    count = 0
    todo = list(roots)
    while todo:
        root = _whole_lists(data, todo.pop())
        if root is None or any(root[:i] in kept for i in range(1, len(root) + 1)):
            continue  # it points at nothing, or is inside what is kept already
        kept.add(root)
        stack = [_at(data, root)]
        while stack:
            node = stack.pop()
            count += 1
            if count > budget:
                return None, count
            if isinstance(node, Mapping):
                ref = node.get("$ref")
                if isinstance(ref, str) and ref.startswith("#/"):
                    todo.append(_pointer(ref))
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    return _build(data, kept), count


def _pointer(ref: str) -> KeyPath:
    return tuple(t.replace("~1", "/").replace("~0", "~") for t in ref[2:].split("/"))


def _whole_lists(data: Any, path: Sequence[Any]) -> KeyPath | None:
    """``path`` as keys of mappings only: one that goes into a list keeps the whole list (so
    no index moves); None when it points at nothing."""
    node, out = data, list[Any]()
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return None if not isinstance(node, list) else tuple(out)
        out.append(key)
        node = node[key]
    return tuple(out) if out else None


def _at(data: Any, path: KeyPath) -> Any:
    for key in path:
        data = data[key]
    return data


def _build(data: Mapping[Any, Any], kept: set[KeyPath]) -> dict[Any, Any]:
    """A copy of ``data`` holding only the kept subtrees, each under its own key path."""
    out: dict[Any, Any] = {}
    for path in sorted(kept, key=len):
        if any(path[:i] in kept for i in range(1, len(path))):
            continue  # copied with a subtree that holds it
        into, node = out, data
        for key in path[:-1]:
            node = node[key]
            into = into.setdefault(key, {})
        into[path[-1]] = node[path[-1]]
    return out
