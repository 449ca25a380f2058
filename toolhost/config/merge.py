"""Merge config files: later ones override earlier ones key by key.

Mappings merge recursively; any other value (lists included) replaces the earlier one, except
the permission rule lists (``permissions.allow`` / ``deny`` / ``ask``), which concatenate so
that a fragment's rules and the including file's rules all apply. Marks follow the values:
each merged node keeps the mark of the file that wrote it.
"""

from __future__ import annotations

from typing import Any

from toolhost.config.tree import Doc, Mark, Path, iter_paths

__all__ = ["CONCAT_LISTS", "merge_docs", "prune_marks"]

CONCAT_LISTS: frozenset[Path] = frozenset(
    {("permissions", "allow"), ("permissions", "deny"), ("permissions", "ask"), ("plugins",)})


def merge_docs(docs: list[Doc]) -> Doc:
    """Merge ``docs`` in order (the last wins) into a new Doc.

    Inputs are not modified, but a single input is returned as it is (no copy).
    """
    if not docs:
        return Doc(data={})
    if len(docs) == 1:
        return docs[0]
    data: Any = {}
    marks: dict[Path, Mark] = {}
    for doc in docs:
        offsets = {}
        for path in CONCAT_LISTS:
            existing = _get(data, path)
            if isinstance(existing, list) and isinstance(_get(doc.data, path), list):
                offsets[path] = len(existing)
        for path, mark in doc.marks.items():
            marks[_shift(path, offsets)] = mark
        data = _merge(data, doc.data if doc.data is not None else {}, ())
    main = docs[-1]
    merged = Doc(data=data, marks=marks, file=main.file, layer=main.layer)
    prune_marks(merged)
    return merged


def prune_marks(doc: Doc) -> None:
    """Drop marks of nodes a later file replaced (so no stale line is ever reported)."""
    live = set(iter_paths(doc.data))
    doc.marks = {path: mark for path, mark in doc.marks.items() if path in live}


def _merge(base: Any, top: Any, path: Path) -> Any:
    if isinstance(base, dict) and isinstance(top, dict):
        out = dict(base)
        for key, value in top.items():
            out[key] = _merge(base[key], value, (*path, key)) if key in base else value
        return out
    if path in CONCAT_LISTS and isinstance(base, list) and isinstance(top, list):
        return [*base, *top]
    return top


def _get(data: Any, path: Path) -> Any:
    for key in path:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def _shift(path: Path, offsets: dict[Path, int]) -> Path:
    # An item of a concatenated list moves by the length of what came before it
    # (``("plugins", 0)`` of the second file is ``("plugins", 2)`` after two earlier items).
    for prefix, offset in offsets.items():
        n = len(prefix)
        index = path[n] if len(path) > n else None
        if isinstance(index, int) and path[:n] == prefix:
            return (*prefix, index + offset, *path[n + 1:])
    return path
