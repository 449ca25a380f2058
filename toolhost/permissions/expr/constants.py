"""Parts of an ``expr`` that are too costly whatever the call, reported when it is compiled.

A part of an expression that reads neither ``args`` nor ``tool`` — ``(['ab' * 50000] * 100000)
|string``, ``5|round(-100000000)`` — gives the same value for every call. If computing it runs
out of the limits of ``toolhost.permissions.expr.limits`` (too big to build, too slow), every
decision would fail (a deny), so ``validate`` and the load say so, naming the expression,
rather than leaving a rule that can only deny. Each such part is computed once, under the same
limits as a decision; a part that fails for another reason (a type error) is left to decide.
"""

from __future__ import annotations

from typing import Any

__all__ = ["check_constants"]


def _costly_constants(node: Any) -> list[Any]:
    """The largest parts of ``node`` that read no name and compute something (an operator,
    a filter, a call): those whose value is the same for every call."""
    from jinja2 import nodes

    reads = any(True for _ in node.find_all(nodes.Name)) or isinstance(node, nodes.Name)
    if not reads and isinstance(node, nodes.Expr):  # (an Operand, a Keyword: look inside)
        costly = (nodes.BinExpr, nodes.Filter, nodes.Call, nodes.Test, nodes.Concat)
        if isinstance(node, costly) or any(True for _ in node.find_all(costly)):
            return [node]
        return []
    return [part for child in node.iter_child_nodes() for part in _costly_constants(child)]


def check_constants(env: Any, source: str) -> None:
    """Raise ValueError when a constant part of ``source`` exceeds the limits of a decision."""
    from jinja2 import nodes
    from jinja2.parser import Parser

    from toolhost.excerpt import cut
    from toolhost.permissions.expr.limits import finish, start

    for part in _costly_constants(Parser(env, source, state="variable").parse_expression()):
        body = [nodes.Assign(nodes.Name("result", "store"), part, lineno=1)]
        try:
            template = env.from_string(nodes.Template(body, lineno=1))
        except Exception:
            continue
        context = template.new_context({})
        start()
        try:
            for _ in template.root_render_func(context):
                pass
        except (OverflowError, TimeoutError, MemoryError, RecursionError) as exc:
            raise ValueError(f"expr {cut(source, 120)!r} computes a value that is too costly "
                             f"for every call ({type(exc).__name__}: {exc}); no decision "
                             "could use it") from None
        except Exception:
            continue
        finally:
            finish()
