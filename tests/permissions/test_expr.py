"""``expr`` evaluation: each thread reuses its own jinja Context, so answers never mix."""

from __future__ import annotations

import threading

import pytest

from toolhost.permissions.expr import ExprError, compile_expr


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
