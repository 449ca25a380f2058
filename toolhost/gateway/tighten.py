"""``params:`` over an imported argument may only tighten it.

``tools.<name>.params.<arg>`` is laid over the upstream's (or the OpenAPI document's) schema
of that argument, key by key, so a key it names replaces the upstream's. The docs promise
"tighter than the upstream's own schema"; a bound that is looser (``maximum: 1000`` over
``maximum: 100``), an ``enum`` with values the upstream's lacks, or another ``type`` would
show the model a schema the upstream does not accept (toolhost's own check then lets
through what the upstream was said to refuse). Such a key is a located problem naming both
values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolhost.excerpt import cut

__all__ = ["lay_over", "looser", "part_default", "parts"]

_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _types(value: Any) -> set[str] | None:
    if isinstance(value, str):
        return {value}
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return set(value)
    return None


_MAX_PARTS = 64  # allOf parts (and the $refs they name) followed for one argument


def parts(root: Mapping[str, Any], schema: Any) -> list[Mapping[str, Any]]:
    """``schema`` and every schema that applies to the same value with it: its ``allOf``
    parts and what a local ``$ref`` (``#/$defs/X``, ``#/definitions/X`` of ``root``) names,
    followed through each other (bounded; each once). A bound, an ``enum`` or a ``default``
    written in one of them holds as if written at the top."""
    found: list[Mapping[str, Any]] = []
    todo = [schema]
    while todo and len(found) < _MAX_PARTS:
        node = todo.pop(0)
        if not isinstance(node, Mapping) or any(node is seen for seen in found):
            continue
        found.append(node)
        ref = node.get("$ref")
        if isinstance(ref, str):
            todo.append(_local(root, ref))
        more = node.get("allOf")
        if isinstance(more, list):
            todo += more
    return found


def _local(root: Mapping[str, Any], ref: str) -> Any:
    for prefix in ("#/$defs/", "#/definitions/"):
        if ref.startswith(prefix):
            defs = root.get(prefix[2:-1])
            name = ref[len(prefix):].replace("~1", "/").replace("~0", "~")
            return defs.get(name) if isinstance(defs, Mapping) else None
    return None


def part_default(root: Mapping[str, Any], schema: Any) -> tuple[bool, Any]:
    """The ``default`` that holds for ``schema``: its own, else the first one of its
    ``allOf`` parts or a ``$ref``'d schema (``parts``), as (found, value)."""
    for part in parts(root, schema):
        if "default" in part:
            return True, part["default"]
    return False, None


def looser(upstream: Any, tighter: Mapping[str, Any],
           root: Mapping[str, Any] | None = None) -> tuple[str, str] | None:
    """The first key of ``tighter`` that loosens (or changes the kind of) ``upstream``'s
    schema of the argument, or of one of its ``allOf`` parts or ``$ref``'d schemas (within
    ``root``), as (key, why); None when every key it shares tightens or keeps."""
    for part in parts(root or {}, upstream):
        wrong = _looser(part, tighter)
        if wrong is not None:
            return wrong
    return None


def _looser(upstream: Mapping[str, Any], tighter: Mapping[str, Any]) -> tuple[str, str] | None:
    said = _against_choices(upstream, tighter)
    if said is not None:
        return said
    for key, value in tighter.items():
        if key not in upstream:
            continue
        old = upstream[key]
        if key in _UPPER and _number(old) and _number(value) and value > old:
            return key, f"{value!r} is looser than the upstream's {old!r}"
        if key in _LOWER and _number(old) and _number(value) and value < old:
            return key, f"{value!r} is looser than the upstream's {old!r}"
        if key == "enum" and isinstance(old, list) and isinstance(value, list):
            extra = [v for v in value if v not in old]
            if extra:
                return key, (f"{cut(repr(extra[0]), 60)} is not one of the upstream's values "
                             f"({cut(', '.join(map(repr, old)), 120)})")
        if key == "const" and "const" in upstream and old != value:
            return key, (f"{cut(repr(value), 60)} is not the upstream's const "
                         f"({cut(repr(old), 60)})")
        if key == "type":
            before, after = _types(old), _types(value)
            # integer within number is a tightening; anything else new is a change of kind
            if before is not None and after is not None and \
                    not all(t in before or (t == "integer" and "number" in before)
                            for t in after):
                return key, (f"{cut(repr(value), 60)} is not the upstream's type "
                             f"({cut(repr(old), 60)})")
    return None


def _against_choices(upstream: Mapping[str, Any],
                     tighter: Mapping[str, Any]) -> tuple[str, str] | None:
    """A ``const`` outside the upstream's ``enum``, or an ``enum`` with a value other than
    the upstream's ``const``: the model would be shown a value the upstream refuses."""
    old, new = upstream.get("enum"), tighter.get("const", _NONE)
    if isinstance(old, list) and new is not _NONE and new not in old:
        return "const", (f"{cut(repr(new), 60)} is not one of the upstream's values "
                         f"({cut(', '.join(map(repr, old)), 120)})")
    pinned, choices = upstream.get("const", _NONE), tighter.get("enum")
    if pinned is not _NONE and isinstance(choices, list) and any(
            v != pinned for v in choices):
        return "enum", (f"{cut(repr(next(v for v in choices if v != pinned)), 60)} is not "
                        f"the upstream's const ({cut(repr(pinned), 60)})")
    return None


_NONE = object()
# keywords that only say something to the model (a default is checked on its own: reshape)
_NOTES = frozenset({"description", "title", "default", "examples", "deprecated", "$comment",
                    "readOnly", "writeOnly"})


def _comparable(key: str, old: Any, new: Any) -> bool:
    """Whether ``looser`` compared ``new`` with ``old`` (so ``new``, having passed, is as
    tight or tighter and may replace it)."""
    if key in _UPPER or key in _LOWER:
        return _number(old) and _number(new)
    if key == "enum":
        return isinstance(old, list) and isinstance(new, list)
    if key == "type":
        return _types(old) is not None and _types(new) is not None
    return False


def lay_over(upstream: Mapping[str, Any], tighter: Mapping[str, Any]) -> dict[str, Any]:
    """``tighter`` (a ``params`` entry that passed ``looser``) laid over ``upstream``'s
    schema of the argument, so that the result holds no value the upstream's refuses.

    A keyword the upstream lacks is added (JSON Schema keywords only narrow); a bound, an
    ``enum`` or a ``type`` ``looser`` compared replaces the upstream's; a note (description,
    title, default, ...) replaces it. Any other keyword the upstream also has (``pattern``,
    ``format``, ``const``, ``multipleOf``, ``items``, ``properties``, ``required``,
    ``additionalProperties``, ``not``, ...) cannot be compared: both hold, the params' one in
    an ``allOf`` part (``required`` lists are joined, ``allOf`` parts added). Before, it
    replaced the upstream's: ``pattern: ".*"`` over ``^[a-z]+$``, ``items: {type: string}``
    over an ``enum`` of items, ``properties`` of a nested object over its own (dropping
    their bounds) were shown and checked as the model's to send."""
    out = dict(upstream)
    both: dict[str, Any] = {}
    for key, value in tighter.items():
        old = out.get(key, _NONE)
        if old is _NONE or old == value or key in _NOTES or _comparable(key, old, value):
            out[key] = value
        elif key == "required" and isinstance(old, list) and isinstance(value, list):
            out[key] = list(dict.fromkeys([*old, *value]))
        else:
            both[key] = value
    if both:
        parts = out.get("allOf", [])
        # an upstream's allOf that is not a list stays as it is, inside (refused as invalid)
        out["allOf"] = [*parts, both] if isinstance(parts, list) else [{"allOf": parts}, both]
    return out
