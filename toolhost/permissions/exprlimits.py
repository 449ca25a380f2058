"""What an ``expr`` may use, so that deciding one call is bounded in time and memory.

An allowlist, not a denylist: ``args`` and ``tool`` (no jinja globals: no ``range``,
``lipsum``, ``cycler``, ``namespace``, ``dict``), the filters in ``FILTERS`` and the methods in
``METHODS`` (each gives a value no bigger than what it is given). Anything else is refused
when the expression is compiled, with its name (``check_tree``); the environment holds only
these too, so nothing else can be reached while deciding (``allowed_call``). Operators that
build values are checked while deciding (``bounded_binop``): ``*`` and ``**`` by the size of
what they would build, ``%`` on a string (printf formatting with any width) is refused, and an
expression may join at most ``MAX_JOINS`` values with ``+``/``~``.
"""

from __future__ import annotations

import operator
from typing import Any

__all__ = ["FILTERS", "MAX_JOINS", "METHODS", "allowed_call", "bounded_binop", "check_tree"]

# Filters whose result is no bigger than their input (jinja2 names).
FILTERS = frozenset({
    "abs", "capitalize", "count", "d", "default", "dictsort", "e", "escape", "first", "float",
    "int", "items", "last", "length", "list", "lower", "map", "max", "min", "reject",
    "rejectattr", "reverse", "round", "select", "selectattr", "sort", "string", "sum",
    "title", "tojson", "trim", "unique", "upper", "urlencode", "wordcount",
})
# Methods callable on a value (str, list, dict) or on ``args``: no padding, formatting or
# joining (``center``, ``zfill``, ``format``, ``join``, ``replace``, ``expandtabs``, ...).
METHODS = frozenset({
    "lower", "upper", "casefold", "strip", "lstrip", "rstrip", "startswith", "endswith",
    "split", "rsplit", "splitlines", "partition", "rpartition", "removeprefix",
    "removesuffix", "count", "find", "rfind", "index", "rindex", "isdigit", "isalpha",
    "isalnum", "isspace", "isdecimal", "isnumeric", "islower", "isupper", "isascii",
    "title", "capitalize", "get", "keys", "values", "items",
})
MAX_JOINS = 64  # values an expression may join with + and ~
_MAX_SIZE = 100_000  # items or characters * and friends may build
_MAX_BITS = 1_000_000  # bits of an integer * and ** may build (about 300,000 digits)


def check_tree(tree: Any) -> None:
    """Raise ValueError naming the first filter, call or operator ``tree`` may not use."""
    from jinja2 import nodes

    joins = 0
    kinds = (nodes.Filter, nodes.Call, nodes.Mod, nodes.Add, nodes.Concat)
    for node in nodes.Not(tree).find_all(kinds):
        if isinstance(node, nodes.Filter) and node.name not in FILTERS:
            raise ValueError(f"expr may not use the filter {node.name!r} (it may use: "
                             + ", ".join(sorted(FILTERS)) + ")")
        if isinstance(node, nodes.Call):
            if not isinstance(node.node, nodes.Getattr):
                raise ValueError("expr may call only methods of a value (args.get(...), "
                                 "args.sql.lower()); there are no functions to call")
            if node.node.attr not in METHODS:
                raise ValueError(f"expr may not call {node.node.attr}() (it may call: "
                                 + ", ".join(sorted(METHODS)) + ")")
        if isinstance(node, nodes.Mod) and isinstance(node.left, nodes.Const) \
                and isinstance(node.left.value, str):
            raise ValueError("expr may not format strings with % (compare the values "
                             "themselves)")
        if isinstance(node, nodes.Add):
            joins += 1
        if isinstance(node, nodes.Concat):
            joins += len(node.nodes) - 1
        if joins > MAX_JOINS:
            raise ValueError(f"expr joins more than {MAX_JOINS} values with + or ~")


def allowed_call(obj: Any) -> bool:
    """Whether ``obj`` may be called while deciding: an allowed method of a value."""
    name = getattr(obj, "_name", None) if type(obj).__name__ == "_Method" else None
    if name is None:
        owner = getattr(obj, "__self__", None)
        if not isinstance(owner, (str, list, tuple, dict)):
            return False
        name = getattr(obj, "__name__", None)
    return name in METHODS


def bounded_binop(op: str, left: Any, right: Any) -> Any:
    """``left op right`` for the operators that can build huge values; raises OverflowError
    ("value too large") rather than build one."""
    if op == "%":
        if isinstance(left, (str, bytes)):
            raise OverflowError("string formatting with % is not allowed")
        return operator.mod(left, right)
    if op == "**":
        if isinstance(right, int) and isinstance(left, int) and not isinstance(left, bool):
            if abs(right) > 1000 or abs(left).bit_length() * abs(right) > _MAX_BITS:
                raise OverflowError("exponent too large")
        elif isinstance(right, int) and abs(right) > 1000:
            raise OverflowError("exponent too large")
        return operator.pow(left, right)
    if isinstance(left, int) and isinstance(right, int):
        if abs(left).bit_length() + abs(right).bit_length() > _MAX_BITS:
            raise OverflowError("value too large")
        return operator.mul(left, right)
    size = max((len(x) for x in (left, right) if hasattr(x, "__len__")), default=1)
    count = max((x for x in (left, right) if isinstance(x, int)), default=1)
    if size * count > _MAX_SIZE:
        raise OverflowError("value too large")
    return operator.mul(left, right)
