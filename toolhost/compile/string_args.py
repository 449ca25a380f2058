"""Values that arrive as strings (MCP prompt arguments, a URI template's variables) given the
JSON types their schema declares: ``"3"`` for an ``integer`` is 3, ``"true"`` for a
``boolean`` is True, an empty string for a nullable one is None."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from toolhost.config.limits import toml_depth
from toolhost.excerpt import cut

__all__ = ["NotOfType", "typed_strings"]

_WANTED = {"integer": "an integer", "number": "a number", "boolean": "true or false",
           "null": "empty"}
_INTEGER = re.compile(r"[+-]?[0-9]{1,4300}")  # Python's own cap on int("...") digits
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


_MAX_DEPTH = 256  # an argument's JSON nests no deeper than a message may (--max-depth)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class NotOfType(ValueError):
    """A string that is not of the only types its schema allows."""

    def __init__(self, key: str, value: str, kinds: list[str]) -> None:
        wanted = " or ".join(_WANTED.get(k, k) for k in kinds)
        super().__init__(f"'{key}' must be {wanted} (given as the string "
                         f"{cut(repr(value), 60)})")


def typed_strings(schema: Mapping[str, Any], values: Mapping[str, str], *,
                  containers: bool = False) -> dict[str, Any]:
    """``values`` as the types ``schema``'s properties declare (``type``, or the types of an
    ``anyOf``/``oneOf``'s members: ``int | list[int]``); a value whose property takes a
    string (or whose type is not said) is left as it is. With ``containers`` (a prompt's
    arguments), a property that takes an array or an object and no string takes its JSON
    text (``[1, 2]``, ``{"a": 1}``: how FastMCP's client sends a non-string argument);
    otherwise, or when the text is no such JSON, the schema's own validation speaks of it.
    ``NotOfType`` for a value that cannot be of a scalar type it must be."""
    props = schema.get("properties")
    props = props if isinstance(props, Mapping) else {}
    out: dict[str, Any] = {}
    for key, value in values.items():
        kinds = _kinds(props.get(key))
        out[key] = (value if "string" in kinds or not kinds
                    else _converted(key, value, kinds, containers))
    return out


def _kinds(spec: Any) -> list[Any]:
    if not isinstance(spec, Mapping):
        return []
    kinds = spec.get("type")
    if isinstance(kinds, str):
        return [kinds]
    if isinstance(kinds, list):
        return kinds
    members = spec.get("anyOf", spec.get("oneOf"))
    if not isinstance(members, list):
        return []
    every: list[Any] = []
    for member in members:
        of = _kinds(member)
        if not of:  # a member of any type (a $ref, a const): as if none were said
            return []
        every += [kind for kind in of if kind not in every]
    return every


def _converted(key: str, value: str, kinds: list[Any], containers: bool = False) -> Any:
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
    if containers and text[:1] in ("[", "{") and toml_depth(text, _MAX_DEPTH) < 0:
        try:  # JSON's strings are TOML's basic strings: the depth is counted before parsing
            parsed = json.loads(text, parse_constant=_no_constant)
        except (ValueError, RecursionError):  # not JSON (NaN, Infinity are not either)
            return value
        if (isinstance(parsed, list) and "array" in kinds) or \
                (isinstance(parsed, dict) and "object" in kinds):
            return parsed
    return value  # an array or object: the schema's validation says what is wrong
