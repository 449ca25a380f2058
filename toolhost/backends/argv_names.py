"""Which params a command template's output may come from, and what it starts with.

An argv element is dash-checked against the params whose values may reach what it prints:
``allow_dash`` names params, so an allowance must follow a value to the param it came from,
not to the name a template prints. A template that prints a name it binds itself
(``{% set a = b %}{{ a }}``, ``{% with %}``, a ``{% for %}`` target, a macro's argument,
``loop``, ``caller``, ``self``) may print any param it reads: the analysis does not follow
values through those, so it fails closed and counts every param the template reads
(``{% for x in v %}{{ x }}{% endfor %}`` prints ``v``; ``{% set a = b %}{{ a }}`` prints
``b``, never ``a``).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from toolhost.backends import templating

__all__ = ["Analysis", "analyse", "jinja_analysis", "printed_names"]

# names jinja2 binds without a `set`/`for`/`with` naming them (inside a loop, a macro, a
# template with blocks); outside those they are ordinary params
_IMPLICIT = frozenset({"loop", "caller", "varargs", "kwargs", "self", "super"})


class Analysis(NamedTuple):
    """What one template prints."""

    outputs: frozenset[str]  # params whose values may reach the output
    needs: frozenset[str]  # params it prints by name (left out, they render empty)
    literal_only: bool  # prints no value, only literal text (under `{% %}` at most)
    prefix: str  # the literal text the output always starts with


@functools.lru_cache(maxsize=8192)
def analyse(source: str) -> Analysis:
    """The ``Analysis`` of one template; the common shapes without parsing it."""
    if templating.is_literal(source):
        return Analysis(frozenset(), frozenset(), True, source)
    simple = templating.simple_variable(source)
    if simple is not None:  # parsed, it is [Output([TemplateData(prefix)?, Name, ...])]
        names = frozenset({simple[1]})
        return Analysis(names, names, False, simple[0])
    return jinja_analysis(source)


def jinja_analysis(source: str) -> Analysis:
    """``analyse`` as jinja2's parse tree says it (the yardstick of the quick path)."""
    from jinja2 import meta, nodes

    tree = templating.guarded(templating.ENV, source, parse=True)
    printed: set[str] = set()
    literal_only = True
    for output in tree.find_all(nodes.Output):
        for child in output.nodes:
            if not isinstance(child, nodes.TemplateData):
                literal_only = False
                found = [child, *child.find_all(nodes.Name)]
                printed |= {n.name for n in found
                            if isinstance(n, nodes.Name) and n.ctx == "load"}
    bound = {n.name for n in tree.find_all(nodes.Name) if n.ctx in ("store", "param")}
    outputs = needs = frozenset(printed)
    if printed & (bound | _IMPLICIT):  # (rare) jinja2's own account of what is read
        free = frozenset(meta.find_undeclared_variables(tree)) - templating.GLOBALS
        needs = outputs & free
        if printed & bound or outputs - free - templating.GLOBALS:
            outputs = free  # a name of the template's own: any param it reads may be in it
    prefix = ""
    first = tree.body[0] if tree.body else None
    if isinstance(first, nodes.Output) and first.nodes \
            and isinstance(first.nodes[0], nodes.TemplateData):
        prefix = str(first.nodes[0].data)
    return Analysis(outputs, needs, literal_only, prefix)


def printed_names(source: str) -> frozenset[str]:
    """The params whose values a template may print (not those it only tests in
    ``{% if %}``, unless it prints a name of its own that any of them may be in)."""
    return analyse(source).outputs
