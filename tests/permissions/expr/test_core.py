"""``expr`` evaluation: each thread reuses its own jinja Context, so answers never mix."""

from __future__ import annotations

import threading

import pytest

from toolhost.permissions.expr.core import ExprError, compile_expr


def test_answers_stay_right_across_calls_failures_and_threads() -> None:
    expr = compile_expr("args.limit <= 100 and tool.startswith('mcp__db')")
    assert expr.holds("mcp__db__q", {"limit": 5})
    with pytest.raises(ExprError, match="has no attribute 'limit'"):
        expr.holds("mcp__db__q", {})  # a failure leaves nothing behind for the next call
    assert not expr.holds("mcp__db__q", {"limit": 500})
    assert not expr.holds("mcp__web__q", {"limit": 5})

    wrong: list[tuple[int, bool]] = []

    def worker(offset: int) -> None:
        for i in range(2000):
            limit = (i * 7 + offset) % 200
            if expr.holds("mcp__db__q", {"limit": limit}) != (limit <= 100):
                wrong.append((limit, not limit <= 100))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


def test_the_last_call_s_arguments_are_not_kept() -> None:
    import gc
    import weakref

    class Big(dict):  # type: ignore[type-arg]
        pass

    expr = compile_expr("args.n > 1")
    arguments = Big(n=2)
    ref = weakref.ref(arguments)
    assert expr.holds("t", arguments)
    del arguments
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize(("source", "arguments", "expected"), [
    ("args.limit <= 100", {"limit": 5}, True),
    ("args.limit == args['limit']", {"limit": 7}, True),
    ("args.nested.x == 2", {"nested": {"x": 2}}, True),
    # an argument named like a dict method is the argument (red team F4); without one, the
    # method can still be called
    ("args.items is callable", {"items": 1}, False),
    ("args.items == 1", {"items": 1}, True),
    ("args.get('a') == 3", {"a": 3}, True),
])
def test_attribute_access_reads_the_arguments(source: str, arguments: dict[str, object],
                                              expected: bool) -> None:
    assert compile_expr(source).holds("t", arguments) is expected


@pytest.mark.parametrize(("source", "message"), [
    ("args.missing == 1", "'dict object' has no attribute 'missing'"),
    ("args.__class__", "unsafe"),
])
def test_a_missing_key_or_a_private_attribute_is_an_error(source: str, message: str) -> None:
    with pytest.raises(ExprError, match=message):
        compile_expr(source).holds("t", {"a": 1})
