"""The commonest ``expr``, one argument compared with a literal, without a jinja2 render.

``args.limit <= 100``, ``args['mode'] == 'ro'``, ``args.table in ['a', 'b']``: jinja2 compiles
such an expression to ``environment.getattr(args, 'limit') <= 100`` inside a template's root
function, and every evaluation runs that function in a Context, with a deadline taken from a
system call (``toolhost.permissions.expr.limits``): ~4.5 µs of a ~7 µs decision among 1,000
rules. ``compare`` builds the same two steps as a plain function instead: the same
environment's ``getattr`` (or ``getitem``), so the same argument lookup, the same ``tick``,
the same undefined value and errors; then the same Python comparison with the same literal.
Nothing else can run in it, so it needs no deadline: its time is bounded by the input.

Any other shape (two comparisons, a filter, a call, arithmetic, ``tool``, a literal that is
not a plain constant or a list of them) gets None: it is rendered by jinja2 as before.
``tests/permissions/expr/test_fast.py`` holds the two ways to the same answer and the same
error over generated expressions and inputs.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["compare"]

_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "lteq": operator.le,
    "gt": operator.gt, "gteq": operator.ge,
    "in": lambda left, right: left in right,
    "notin": lambda left, right: left not in right,
}
_NOT_LITERAL = object()


def compare(tree: Any, env: Any, wrap: Callable[[Mapping[str, Any]], Any]
            ) -> Callable[[Mapping[str, Any]], Any] | None:
    """``arguments -> value`` of the parsed expression ``tree`` (jinja2 nodes), or None when
    it is not ``args.NAME`` / ``args['NAME']`` compared once with a literal. ``wrap`` makes
    the arguments what ``args`` is in a render."""
    from jinja2 import nodes

    if type(tree) is not nodes.Compare or len(tree.ops) != 1:
        return None
    op = _OPS.get(tree.ops[0].op)
    right = _literal(tree.ops[0].expr, nodes)
    left = tree.expr
    if op is None or right is _NOT_LITERAL:
        return None
    if type(left) is nodes.Getattr and _is_args(left.node, nodes) and left.ctx == "load":
        look, key = env.getattr, left.attr
    elif type(left) is nodes.Getitem and _is_args(left.node, nodes) and left.ctx == "load" \
            and type(left.arg) is nodes.Const and type(left.arg.value) is str:
        look, key = env.getitem, left.arg.value
    else:
        return None

    def evaluate(arguments: Mapping[str, Any]) -> Any:
        return op(look(wrap(arguments), key), right)

    return evaluate


def _is_args(node: Any, nodes: Any) -> bool:
    return type(node) is nodes.Name and node.name == "args" and node.ctx == "load"


def _literal(node: Any, nodes: Any) -> Any:
    """The value of a constant, or of a list of constants (a new list each render in jinja2;
    here one, which nothing can change: a comparison only reads it)."""
    if type(node) is nodes.Const:
        return _constant(node.value)
    if type(node) is nodes.List:
        items = [_literal(item, nodes) for item in node.items]
        if all(type(item) is not list and item is not _NOT_LITERAL for item in items):
            return items
    return _NOT_LITERAL


def _constant(value: Any) -> Any:
    # jinja2 writes a float constant with str(): inf and nan would be names in its code
    if type(value) in (str, int, bool) or value is None:
        return value
    if type(value) is float and math.isfinite(value):
        return value
    return _NOT_LITERAL
