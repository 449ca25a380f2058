"""Possessive quantifiers that match as documented on Python 3.11.0 to 3.11.4.

The ``re`` module of those releases misreads a possessive repeat (``X*+``, ``X++``, ``X?+``,
``X{m,n}+``) whose body can backtrack: CPython gh-106052, fixed in 3.11.5 (and gh-101955, an
internal error, fixed in 3.11.3). Python 3.11.2 is Debian 12's ``python3``. toolhost's
linear-time patterns lean on possessive repeats (the TOML reader's comment runs, the shell
reader, the config's size checks...): on those releases
``(?:[^#\\n]++|\\n(?!(?:#[^\\n]*+\\n){4}))*+\\n((?:#[^\\n]*+\\n)++)`` matched from the middle of
a run and a TOML file's line numbers came out wrong.

A possessive repeat sets no point to come back to: each turn takes its body's first match. So
``X*+`` is ``(?>X)*+``, whose body no longer backtracks, which those releases match correctly,
in bounded memory. On them (and only on them) the pattern parser hands re's compiler that
form instead: the same language, the same groups, the pattern's text kept. Patterns other
code of the process compiles (a plugin's, a tool's) get the same correct reading.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

__all__ = ["BROKEN", "atomic", "install"]

# The releases whose possessive repeats are broken
BROKEN = (3, 11, 0) <= sys.version_info[:3] < (3, 11, 5)


def atomic(tree: Any) -> Any:
    """``tree`` (an ``re._parser.SubPattern``), with each possessive repeat's body put, in
    place, in an atomic group."""
    parser: Any = importlib.import_module("re._parser")
    c: Any = importlib.import_module("re._constants")
    data = tree.data
    for i, (op, av) in enumerate(data):
        if op is c.POSSESSIVE_REPEAT:
            low, high, item = av
            atomic(item)
            # each turn takes the body's first match and sets no point to come back to (as
            # the documentation says, and 3.11.5+ matches): ``(?>X)*+`` is ``X*+``, its body
            # no longer backtracks (the broken case), and its memory stays bounded
            data[i] = (op, (low, high, parser.SubPattern(tree.state, [(c.ATOMIC_GROUP, item)])))
        elif op is c.MAX_REPEAT or op is c.MIN_REPEAT:
            atomic(av[2])
        elif op is c.SUBPATTERN:
            atomic(av[3])
        elif op is c.ATOMIC_GROUP:
            atomic(av)
        elif op is c.BRANCH:
            for branch in av[1]:
                atomic(branch)
        elif op is c.ASSERT or op is c.ASSERT_NOT:
            atomic(av[1])
        elif op is c.GROUPREF_EXISTS:
            atomic(av[1])
            if av[2] is not None:
                atomic(av[2])
    return tree


def install() -> None:
    """On the broken releases, have ``re`` compile each possessive repeat as its atomic group
    (once per process; elsewhere nothing)."""
    if not BROKEN:
        return
    parser: Any = importlib.import_module("re._parser")
    if getattr(parser.parse, "_toolhost_atomic", False):
        return
    parse = parser.parse

    # re's compiler looks ``_parser.parse`` up at each compile (re caches compiled patterns)
    def parse_atomic(text: Any, flags: int = 0, state: Any = None) -> Any:
        return atomic(parse(text, flags, state))

    parse_atomic._toolhost_atomic = True  # type: ignore[attr-defined]
    parser.parse = parse_atomic
