"""What a rule's ``expr`` reads: the names it uses, the argument paths it reads and the ones
it calls as methods, from jinja2's parse tree (``validate`` checks them against the tools'
inputSchemas, ``toolhost.permissions.authoring.rulecheck``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolhost.permissions.conditions import KeyPath

__all__ = ["DICT_NAMES", "expr_refs"]

# Methods of the args mapping itself: ``args.get`` is a call, not an argument named "get".
DICT_NAMES = frozenset(n for n in dir(dict) if not n.startswith("_"))


def expr_refs(source: str) -> tuple[list[str], list[KeyPath], list[KeyPath]]:
    """Names an expression uses that are not defined, the argument paths it reads, and the
    paths it calls as methods (``args.get(...)``: ("get",); ``args.sql.lower()``)."""
    from jinja2 import nodes
    from jinja2.parser import Parser
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment()
    tree = Parser(env, source, state="variable").parse_expression()
    known = {"args", "tool"}  # expr has no globals (exprlimits): range, lipsum... are unknown
    names = list(dict.fromkeys(n.name for n in tree.find_all(nodes.Name)
                               if n.ctx == "load" and n.name not in known))

    def chain(node: Any) -> list[str | int] | None:
        if isinstance(node, nodes.Name):
            return [] if node.name == "args" else None
        if isinstance(node, nodes.Getattr):
            base = chain(node.node)
            return None if base is None else [*base, node.attr]
        if isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Const) \
                and isinstance(node.arg.value, (str, int)):
            base = chain(node.node)
            return None if base is None else [*base, node.arg.value]
        return None

    paths: list[KeyPath] = []
    methods: set[int] = set()
    calls: list[KeyPath] = []
    # A method call (the tree itself too: find_all skips its root): args.sql.lower() reads sql.
    for call in _walk(tree):
        if isinstance(call, nodes.Call) and isinstance(call.node, nodes.Getattr):
            methods.add(id(call.node))
            base = chain(call.node.node)
            if base is not None:
                calls.append((*base, call.node.attr))
            if base is not None and call.node.attr == "get" and call.args and isinstance(
                    call.args[0], nodes.Const) and isinstance(call.args[0].value, str):
                paths.append((*base, call.args[0].value))
    for node in _walk(tree):
        if id(node) in methods:
            continue
        if isinstance(node, (nodes.Getattr, nodes.Getitem)):
            found = chain(node)
            if found:
                paths.append(tuple(found))
    return names, sorted(set(paths), key=len), calls


def _walk(node: Any) -> Iterator[Any]:
    yield node
    for child in node.iter_child_nodes():
        yield from _walk(child)
