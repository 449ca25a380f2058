"""A tool's declared defaults filled in for what a call leaves out: at the top level, and
inside the objects (and array items) a call gives, where a schema declares defaults there.

The policy fills them before it judges a call (``CompiledPolicy.decide``) and the tool before
it runs (``CompiledTool``), so the rules judge what is sent. A value of a defaults mapping is
either the default itself or an ``Inside``: defaults that hold inside whatever is given there
(an upstream built with pydantic fills ``opts.limit: 50`` into a call's ``opts: {}`` itself,
where a rule on ``opts.limit`` would have judged nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["NO_DEFAULT", "Inside", "fill_defaults"]

NO_DEFAULT: Any = type("NoDefault", (), {"__repr__": lambda self: "NO_DEFAULT"})()
"""``Inside.own`` of an argument that has no default of its own."""

_ATOMS = frozenset({str, int, float, bool, type(None)})


@dataclass(frozen=True)
class Inside:
    """Defaults inside one argument: ``own`` is its own default (``NO_DEFAULT``: none),
    ``keys`` the defaults of the keys of an object given there (each a value or an
    ``Inside``), ``items`` those of each item of an array given there."""

    own: Any = NO_DEFAULT
    keys: Mapping[str, Any] = field(default_factory=dict)
    items: Inside | None = None


def fill_defaults(defaults: Mapping[str, Any], arguments: Mapping[str, Any]) -> Mapping[str, Any]:
    """``arguments`` with ``defaults`` filled in where they leave a key out (inside what they
    give too, for an ``Inside``); ``arguments`` itself when there is nothing to fill. A list
    or object default is copied (a tool may change what it is given)."""
    out: dict[str, Any] | None = None
    for key, default in defaults.items():
        given = key in arguments
        if isinstance(default, Inside):
            if given:
                value = _inside(default, arguments[key])
            elif default.own is not NO_DEFAULT:
                value = _inside(default, _copied(default.own))
            else:
                continue
            if given and value is arguments[key]:
                continue
        elif given:
            continue
        else:
            value = _copied(default)
        if out is None:
            out = dict(arguments)
        out[key] = value
    if out is None:
        return arguments
    return {**{k: out[k] for k in out if k not in arguments}, **{k: out[k] for k in arguments}}


def _inside(default: Inside, value: Any) -> Any:
    if default.keys and (type(value) is dict or isinstance(value, Mapping)):
        return fill_defaults(default.keys, value)
    if default.items is not None and isinstance(value, list):
        filled = [_inside(default.items, item) for item in value]
        return filled if any(a is not b for a, b in zip(filled, value, strict=True)) else value
    return value


def _copied(value: Any) -> Any:
    """A fresh copy of a default's JSON (lists and objects), so that a tool appending to the
    list it was given does not change the default of every later call (and other clients')."""
    if type(value) is list:
        return [v if type(v) in _ATOMS else _copied(v) for v in value]
    if type(value) is dict:
        return {k: v if type(v) in _ATOMS else _copied(v) for k, v in value.items()}
    return value
