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

__all__ = ["looser"]

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


def looser(upstream: Any, tighter: Mapping[str, Any]) -> tuple[str, str] | None:
    """The first key of ``tighter`` that loosens (or changes the kind of) ``upstream``'s
    schema of the argument, as (key, why); None when every key it shares tightens or keeps."""
    if not isinstance(upstream, Mapping):
        return None
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
        if key == "type":
            before, after = _types(old), _types(value)
            # integer within number is a tightening; anything else new is a change of kind
            if before is not None and after is not None and \
                    not all(t in before or (t == "integer" and "number" in before)
                            for t in after):
                return key, (f"{cut(repr(value), 60)} is not the upstream's type "
                             f"({cut(repr(old), 60)})")
    return None
