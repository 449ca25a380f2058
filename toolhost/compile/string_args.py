"""Values that arrive as strings (MCP prompt arguments, a URI template's variables) given the
JSON types their schema declares: ``"3"`` for an ``integer`` is 3, ``"true"`` for a
``boolean`` is True, an empty string for a nullable one is None."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from toolhost.excerpt import cut

__all__ = ["NotOfType", "typed_strings"]

_WANTED = {"integer": "an integer", "number": "a number", "boolean": "true or false",
           "null": "empty"}
_INTEGER = re.compile(r"[+-]?[0-9]{1,4300}")  # Python's own cap on int("...") digits
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


class NotOfType(ValueError):
    """A string that is not of the only types its schema allows."""

    def __init__(self, key: str, value: str, kinds: list[str]) -> None:
        wanted = " or ".join(_WANTED.get(k, k) for k in kinds)
        super().__init__(f"'{key}' must be {wanted} (given as the string "
                         f"{cut(repr(value), 60)})")


def typed_strings(schema: Mapping[str, Any], values: Mapping[str, str]) -> dict[str, Any]:
    """``values`` as the types ``schema``'s properties declare; a value whose property
    takes a string (or whose type is not said, or is an array or object: the schema's own
    validation speaks of those) is left as it is. ``NotOfType`` for one that cannot be."""
    props = schema.get("properties")
    props = props if isinstance(props, Mapping) else {}
    out: dict[str, Any] = {}
    for key, value in values.items():
        spec = props.get(key)
        kinds = spec.get("type") if isinstance(spec, Mapping) else None
        kinds = [kinds] if isinstance(kinds, str) else kinds if isinstance(kinds, list) else []
        out[key] = value if "string" in kinds or not kinds else _converted(key, value, kinds)
    return out


def _converted(key: str, value: str, kinds: list[Any]) -> Any:
    text = value.strip()
    if "integer" in kinds and _INTEGER.fullmatch(text):
        return int(text)
    if "number" in kinds and _NUMBER.fullmatch(text) and math.isfinite(float(text)):
        number = float(text)
        return int(number) if "integer" in kinds and number.is_integer() else number
    if "boolean" in kinds and text.lower() in ("true", "false"):
        return text.lower() == "true"
    if "null" in kinds and text.lower() in ("", "null"):
        return None
    if set(kinds) <= {"integer", "number", "boolean", "null"}:
        raise NotOfType(key, value, [str(k) for k in kinds])
    return value  # an array or object: the schema's validation says what is wrong
