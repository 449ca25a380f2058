"""``uniqueItems`` in linear time, for the validator every tool's arguments are checked with
(``toolhost.regex.validator_class``).

jsonschema sorts the items, and when they do not sort (objects, or a mix of types) compares
each with every other: an argument of 200,000 small objects kept a call busy for minutes
(on the event loop of ``serve``, every other call waited). Here each item gets a hashable key
that is equal exactly when jsonschema calls two items equal (``1`` and ``1.0`` are equal,
``true`` and ``1`` are not, objects regardless of key order, arrays item by item), and a set
finds the first repeat.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["item_key", "unique_items"]


def item_key(value: Any) -> Any:
    """A hashable key: two JSON values have the same key exactly when they are equal by JSON
    Schema's rules."""
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, (int, float)):
        return ("n", value)  # 1 == 1.0 and hash(1) == hash(1.0)
    if isinstance(value, str):
        return ("s", value)
    if value is None:
        return ("z",)
    if isinstance(value, dict):
        return ("o", frozenset((k, item_key(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return ("a", tuple(item_key(v) for v in value))
    return ("?", id(value))  # not JSON: never equal to another


def unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """The ``uniqueItems`` keyword."""
    if not unique or not validator.is_type(instance, "array"):
        return
    from jsonschema import ValidationError

    from toolhost.excerpt import cut

    seen: set[Any] = set()
    for index, item in enumerate(instance):
        try:
            key = item_key(item)
        except RecursionError:  # nested past what a call accepts: never reached in practice
            yield ValidationError("an item is nested too deeply to compare")
            return
        if key in seen:
            yield ValidationError(f"item {index} ({cut(repr(item), 200)}) repeats an earlier "
                                  "item: the items must be unique")
            return
        seen.add(key)
