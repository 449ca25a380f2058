"""``toolhost.permissions.expr.fast``: an argument compared once with a literal is evaluated
without a jinja2 render, with the same answer and the same error as the render, always."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.permissions.expr.core import CompiledExpr, ExprError, compile_expr

NAMES = ["limit", "table", "keys", "get", "items", "mode"]  # dict methods too: args.keys
OPS = ["==", "!=", "<", "<=", ">", ">=", "in", "not in"]
SCALARS = st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False,
                                                           width=32),
                    st.text("abcxyz01 ", max_size=4), st.booleans(), st.none())


def _literal(value: Any) -> str:
    """``value`` as a jinja2 literal."""
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if value is None or isinstance(value, bool):
        return {None: "none", True: "true", False: "false"}[value]
    if isinstance(value, str):
        return repr(value)
    return repr(value)


LITERALS = st.one_of(SCALARS, st.lists(SCALARS, max_size=3)).map(_literal)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(NAMES), inner, max_size=2)),
    max_leaves=5)


def _outcome(compiled: CompiledExpr, arguments: dict[str, Any]) -> tuple[str, Any]:
    try:
        return "holds", compiled.holds("mcp__s__t", arguments)
    except ExprError as exc:
        return "error", str(exc)


@settings(max_examples=100)  # each example compiles once (~10 ms) and decides four calls
@given(name=st.sampled_from(NAMES), item=st.booleans(), op=st.sampled_from(OPS),
       literal=LITERALS, flipped=st.booleans(),
       calls=st.lists(st.dictionaries(st.sampled_from(NAMES), VALUES, max_size=3),
                      min_size=1, max_size=4))
def test_the_same_answer_and_error_as_the_render(name: str, item: bool, op: str, literal: str,
                                                  flipped: bool,
                                                  calls: list[dict[str, Any]]) -> None:
    reference = f"args[{name!r}]" if item else f"args.{name}"
    source = f"{literal} {op} {reference}" if flipped else f"{reference} {op} {literal}"
    try:
        compiled = compile_expr(source)
    except ValueError:  # e.g. a constant too costly: nothing to compare
        return
    rendered = CompiledExpr(source, compiled.function)  # no fast path: jinja2 renders it
    for arguments in calls:
        assert _outcome(compiled, arguments) == _outcome(rendered, arguments), source


@pytest.mark.parametrize(("source", "fast"), [
    ("args.limit <= 100", True), ("args['mode'] == 'ro'", True),
    ("args.table in ['a', 'b']", True), ("args.n != none", True), ("args.x > 1.5", True),
    # every other shape is rendered
    ("args.limit <= 100 and args.n", False), ("100 >= args.limit", False),
    ("args.limit <= -1", False), ("args.a.b == 1", False), ("args.limit < args.n", False),
    ("tool == 'x'", False), ("args.s | length > 2", False), ("1 < args.n < 3", False),
    ("args[0] == 1", False), ("args.l == [[1]]", False),
])
def test_which_shapes_take_the_fast_path(source: str, fast: bool) -> None:
    assert (compile_expr(source).fast is not None) is fast


def test_missing_argument_and_method_names_fail_as_rendered() -> None:
    compiled = compile_expr("args.limit <= 100")
    assert compiled.holds("t", {"limit": 100}) and not compiled.holds("t", {"limit": 101})
    for arguments in ({}, {"limit": "x"}, {"limit": None}):
        with pytest.raises(ExprError) as fast:
            compiled.holds("t", arguments)
        with pytest.raises(ExprError) as rendered:
            CompiledExpr(compiled.source, compiled.function).holds("t", arguments)
        assert str(fast.value) == str(rendered.value)
    with pytest.raises(ExprError, match="name of a method"):
        compile_expr("args.keys == 'a'").holds("t", {})
