"""Merge config files: later ones override earlier ones key by key.

Mappings merge recursively; any other value (lists included) replaces the earlier one, except
the permission rule lists (``permissions.allow`` / ``deny`` / ``ask``), which concatenate so
that a fragment's rules and the including file's rules all apply. Marks follow the values:
each merged node keeps the mark of the file that wrote it.

A setting of the permission policy (``permissions.default``, ``ask_mode``) that a file of
another layer overrides with a different value (the user file's ``default: deny`` under a
project's ``default: allow``) is recorded in ``Doc.overridden``: ``validate`` notes both
places (:func:`override_notes`). An ``extends`` fragment overridden by the file that includes
it is what extends are for, and is not recorded.
"""

from __future__ import annotations

from typing import Any

from toolhost.config.tree import Doc, Mark, Path, format_path, iter_paths
from toolhost.errors import Problem
from toolhost.excerpt import cut

__all__ = ["CONCAT_LISTS", "WATCHED", "merge_docs", "override_notes", "prune_marks"]

WATCHED: tuple[Path, ...] = (("permissions", "default"), ("permissions", "ask_mode"))

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
    spelled: dict[Path, str] = {}
    overridden = _overridden(docs)
    for doc in docs:
        offsets = {}
        for path in CONCAT_LISTS:
            existing = _get(data, path)
            if isinstance(existing, list) and isinstance(_get(doc.data, path), list):
                offsets[path] = len(existing)
        for path in [p for p in spelled if p in doc.marks]:  # (rare: a few, if any)
            del spelled[path]  # written again by this file, as it spells it
        for path, mark in doc.marks.items():
            marks[_shift(path, offsets)] = mark
        spelled.update((_shift(path, offsets), text) for path, text in doc.spelled.items())
        data = _merge(data, doc.data if doc.data is not None else {}, ())
    main = docs[-1]
    merged = Doc(data=data, marks=marks, file=main.file, layer=main.layer,
                 overridden=overridden)
    prune_marks(merged)
    merged.spelled = {path: text for path, text in spelled.items() if path in merged.marks}
    return merged


def _overridden(docs: list[Doc]) -> list[tuple[Path, Any, Mark, Any, Mark]]:
    out: list[tuple[Path, Any, Mark, Any, Mark]] = []
    for path in WATCHED:
        last: tuple[Any, Mark, str] | None = None
        for doc in docs:
            value = _get(doc.data, path)
            mark = doc.marks.get(path)
            if value is None or mark is None:
                continue
            if last is not None and value != last[0] and last[2] != doc.layer and not (
                    last[2] == "extends" and doc.layer == "project"):
                out.append((path, last[0], last[1], value, mark))
            last = (value, mark, doc.layer)
    return out


def override_notes(doc: Doc) -> list[Problem]:
    """A note at each policy setting that overrode another layer's, naming both places."""
    notes = []
    for path, before, was, after, mark in doc.overridden:
        at = f"{was.file}:{was.line}" if was.line else was.file
        notes.append(Problem(
            f"note: {cut(repr(after), 40)} here overrides {cut(repr(before), 40)} set in the "
            f"{was.layer} file {at} (later layers win: user, project, local)",
            mark.file, mark.line, mark.column, format_path(path),
            "remove one of the two if both are not meant; `toolhost permissions list` "
            "shows the policy in effect"))
    return notes


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
