"""What ``toolhost call`` says before calling when the arguments cannot fit the tool's
inputSchema at all: a required argument left out, a key of ``--json`` the tool does not take,
a value not of its parameter's type. Each is a command-line mistake (exit 2) said with the
tool's arguments and a line to copy; the tool's own validator answered "'b' is a required
property" as a failed result (exit 1), with nothing on how to call it. What only the tool's
schema can judge (a range, a pattern, an enum) is still left to it."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolhost.compile import CompiledTool

__all__ = ["argument_problem"]

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
    "array": (list,), "object": (dict,), "null": (type(None),)}
_HOW = {"string": "text", "boolean": "true or false", "array": "a JSON array, as key='[1, 2]'",
        "object": "a JSON object, as key='{\"k\": 1}'", "integer": "a whole number",
        "number": "a number", "null": "null"}


def argument_problem(tool: CompiledTool, arguments: Mapping[str, Any], config: str,
                     called: str) -> str | None:
    """The usage error for ``arguments`` of ``tool`` (called as ``called`` from the config
    file ``config``), or None when the tool's schema is left to judge them."""
    from toolhost.commands._call_menu import signature
    from toolhost.excerpt import cut

    schema = tool.input_schema
    props = schema.get("properties") or {}
    if not isinstance(props, Mapping):
        return None
    takes = signature(tool) or "no arguments"
    if schema.get("additionalProperties") is False:
        unknown = next((key for key in arguments if key not in props), None)
        if unknown is not None:
            from toolhost.cli_suggest import suggestion

            near = suggestion(unknown, props) if len(unknown) <= 1000 else None
            return (f"the tool {tool.name!r} has no argument {cut(repr(unknown))}"
                    + (f" (did you mean '{near}'?)" if near else "") + f"; it takes: {takes}")
    for key, value in arguments.items():
        wrong = _wrong_type(props.get(key), value)
        if wrong is not None:
            return (f"argument {cut(repr(key))} takes {wrong}, not {cut(repr(value), 80)}; "
                    f"the tool {tool.name!r} takes: {takes}")
    required = schema.get("required") or []
    missing = [k for k in required if isinstance(k, str) and k not in arguments]
    if not missing:
        return None
    named = " and ".join(repr(k) for k in missing[:5]) + (" ..." if len(missing) > 5 else "")
    example = " ".join([*(f"{k}={shlex.quote(_shown(v))}" for k, v in arguments.items()
                          if k in props), *(f"{k}=..." for k in missing[:5])])
    return (f"the tool {tool.name!r} needs {cut(named, 300)}; it takes: {takes}\n"
            f"e.g.: toolhost call {shlex.quote(config)} {called} {cut(example, 300)}")


def _wrong_type(schema: Any, value: Any) -> str | None:
    """What the parameter takes, when ``value`` is of none of the types ``schema`` names
    itself (``type``; a schema of ``anyOf`` branches is left to the validator)."""
    if not isinstance(schema, Mapping) or "anyOf" in schema or "oneOf" in schema:
        return None
    kinds = schema.get("type")
    names = [kinds] if isinstance(kinds, str) else kinds if isinstance(kinds, list) else []
    known = [k for k in names if isinstance(k, str) and k in _JSON_TYPES]
    if not known or len(known) != len(names):
        return None
    if any(_fits(kind, value) for kind in known):
        return None
    return " or ".join(_HOW.get(k, k) for k in known)


def _fits(kind: str, value: Any) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    if kind == "integer" and isinstance(value, float):  # 2.0 is a whole number to JSON Schema
        return value.is_integer()
    return isinstance(value, _JSON_TYPES[kind])


def _shown(value: Any) -> str:
    import json

    return value if isinstance(value, str) else json.dumps(value)
