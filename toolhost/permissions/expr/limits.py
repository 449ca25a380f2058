"""What an ``expr`` may use, so that deciding one call is bounded in time and memory.

An allowlist, not a denylist: ``args`` and ``tool`` (no jinja globals: no ``range``,
``lipsum``, ``cycler``, ``namespace``, ``dict``), the filters in ``FILTERS`` and the methods in
``METHODS`` (each gives a value no bigger than what it is given). Anything else is refused
when the expression is compiled, with its name (``check_tree``); the environment holds only
these too, so nothing else can be reached while deciding (``allowed_call``). Operators that
build values are checked while deciding (``bounded_binop``): ``*`` and ``**`` by the size of
what they would build, counted deep (``[s] * n`` is n times ``s``), ``%`` on a string (printf
formatting with any width) is refused, and an expression may join at most ``MAX_JOINS`` values
with ``+``/``~``. One evaluation may build at most ``BUDGET`` characters or items in all, and
runs at most ``MAX_SECONDS`` of its thread's CPU time (``start``/``tick``: every operator,
attribute, item, filter, test and method call checks the clock; CPU time, not wall-clock time,
so an honest expression is not denied because a busy machine gave its thread little of the
second: nothing an expression may call waits, so its cost is all CPU); a filter or method whose
cost is not the size of its input is bounded by its arguments (``round``'s precision,
``sum``'s start, ``strip``'s characters).
"""

from __future__ import annotations

import functools
import operator
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["BUDGET", "FILTERS", "MAX_DEPTH", "MAX_JOINS", "MAX_SECONDS", "METHODS",
           "allowed_call", "bounded_binop", "bounded_filter", "check_tree", "finish", "start",
           "tick", "timed_test", "weight"]

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
MAX_DEPTH = 64  # levels of nesting (each operator, filter, attribute, item is one)
_MAX_SIZE = 100_000  # items or characters * and friends may build
_MAX_BITS = 100_000  # bits of an integer * and ** may build (about 30,000 digits)
BUDGET = 1_000_000  # items or characters one evaluation may build with * in all
MAX_SECONDS = 0.5  # of one evaluation, in the evaluating thread's CPU time
_MAX_CHARS_ARG = 256  # characters strip(), lstrip(), rstrip() and |trim may be given
_MAX_PRECISION = 1000  # digits |round may round to (round(5, -10**8) builds 10**(10**8))
_STATE = threading.local()  # deadline and what is left of the budget, per evaluation


def start() -> None:
    """Begin one evaluation on this thread: a fresh budget and deadline."""
    _STATE.deadline = time.thread_time() + MAX_SECONDS
    _STATE.left = BUDGET


def finish() -> None:
    """End this thread's evaluation (what runs outside one is not timed)."""
    _STATE.deadline = _STATE.left = None


def tick() -> None:
    """Raise TimeoutError once this thread's evaluation has run past its deadline."""
    deadline = getattr(_STATE, "deadline", None)
    if deadline is not None and time.thread_time() > deadline:
        raise TimeoutError(f"expr ran longer than {MAX_SECONDS} s of CPU time")


def _charge(size: int) -> None:
    left = getattr(_STATE, "left", None)
    if left is not None:
        if size > left:
            raise OverflowError(f"expr builds more than {BUDGET:,} characters or items")
        _STATE.left = left - size


def weight(value: Any, limit: int) -> int:
    """How many characters, items (and 64-bit words of integers) ``value`` holds, counted
    deep (a list holding one string n times weighs n times the string); stops past ``limit``."""
    total, stack = 0, [value]
    while stack and total <= limit:
        v = stack.pop()
        if isinstance(v, (str, bytes)):
            total += len(v)
        elif isinstance(v, int):
            total += v.bit_length() // 64 + 1
        elif isinstance(v, dict):
            total += len(v)
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            total += len(v)
            stack.extend(v)
        else:
            total += 1
    return total


def _depth(tree: Any) -> int:
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            break
        stack.extend((child, depth + 1) for child in node.iter_child_nodes())
    return deepest


def check_tree(tree: Any) -> None:
    """Raise ValueError naming the first filter, call or operator ``tree`` may not use, or
    saying it nests deeper than ``MAX_DEPTH`` (jinja2's optimizer takes time cubic in the
    depth: 300 chained filters took 20 s to compile, Python refuses to compile deeper)."""
    from jinja2 import nodes

    if _depth(tree) > MAX_DEPTH:
        raise RecursionError  # reported as "nests too deeply" with the expression

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


def allowed_call(obj: Any, args: tuple[Any, ...] = ()) -> bool:
    """Whether ``obj`` may be called (with ``args``) while deciding: an allowed method of a
    value. ``strip`` and friends given more than ``_MAX_CHARS_ARG`` characters to strip (each
    character of the text is looked up among them) raise OverflowError."""
    tick()
    name = getattr(obj, "_name", None) if type(obj).__name__ == "_Method" else None
    if name is None:
        owner = getattr(obj, "__self__", None)
        if not isinstance(owner, (str, list, tuple, dict)):
            return False
        name = getattr(obj, "__name__", None)
    if name in ("strip", "lstrip", "rstrip") and args and isinstance(args[0], str) \
            and len(args[0]) > _MAX_CHARS_ARG:
        raise OverflowError(f"{name}() takes at most {_MAX_CHARS_ARG} characters to strip")
    return name in METHODS


def bounded_binop(op: str, left: Any, right: Any) -> Any:
    """``left op right`` for the operators that can build huge values or take long; raises
    OverflowError ("value too large") rather than build one."""
    tick()
    if op in ("%", "//", "/"):
        if op == "%" and isinstance(left, (str, bytes)):
            raise OverflowError("string formatting with % is not allowed")
        for x in (left, right):  # dividing huge integers is quadratic
            if isinstance(x, int) and x.bit_length() > _MAX_BITS:
                raise OverflowError("value too large")
        return _DIVISION[op](left, right)
    if op == "**":
        if isinstance(right, int) and isinstance(left, int) and not isinstance(left, bool):
            if abs(right) > 1000 or abs(left).bit_length() * abs(right) > _MAX_BITS:
                raise OverflowError("exponent too large")
        elif isinstance(right, int) and abs(right) > 1000:
            raise OverflowError("exponent too large")
        result = operator.pow(left, right)
        _charge(weight(result, _MAX_SIZE))
        return result
    if isinstance(left, int) and isinstance(right, int):
        if abs(left).bit_length() + abs(right).bit_length() > _MAX_BITS:
            raise OverflowError("value too large")
        _charge((abs(left).bit_length() + abs(right).bit_length()) // 64 + 1)
        return operator.mul(left, right)
    count = max((x for x in (left, right) if isinstance(x, int)), default=1)
    each = max((weight(x, _MAX_SIZE) for x in (left, right) if hasattr(x, "__len__")),
               default=1)
    if each * max(count, 0) > _MAX_SIZE:
        raise OverflowError("value too large")
    _charge(each * max(count, 0))
    return operator.mul(left, right)


_DIVISION: dict[str, Callable[[Any, Any], Any]] = {
    "%": operator.mod, "//": operator.floordiv, "/": operator.truediv}


def _argument(args: tuple[Any, ...], kwargs: dict[str, Any], name: str, index: int,
              default: Any) -> Any:
    return kwargs[name] if name in kwargs else args[index] if len(args) > index else default


def _check_filter(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    if name == "round":
        precision = _argument(args, kwargs, "precision", 1, 0)
        if isinstance(precision, int) and abs(precision) > _MAX_PRECISION:
            raise OverflowError(f"round to {precision} digits: the limit is {_MAX_PRECISION}")
    elif name == "sum":  # sum(start=[]) joins lists, quadratically
        start_value = _argument(args, kwargs, "start", 3, 0)
        if not isinstance(start_value, (int, float)):
            raise OverflowError("sum adds numbers only (its start must be a number)")
    elif name == "trim":
        chars = _argument(args, kwargs, "chars", 1, None)
        if isinstance(chars, str) and len(chars) > _MAX_CHARS_ARG:
            raise OverflowError(f"trim takes at most {_MAX_CHARS_ARG} characters")


def bounded_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` (the jinja filter ``name``) checking the clock and its arguments first."""
    @functools.wraps(function)  # keeps jinja's pass_context/pass_environment marks
    def bounded(*args: Any, **kwargs: Any) -> Any:
        tick()
        _check_filter(name, args, kwargs)
        return function(*args, **kwargs)
    return bounded


def timed_test(function: Any) -> Callable[..., Any]:
    """The jinja test ``function`` checking the clock first (``select``, ``is divisibleby``)."""
    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        tick()
        return function(*args, **kwargs)
    return timed
