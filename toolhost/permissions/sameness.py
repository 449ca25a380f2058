"""Whether two JSON values are the very same value, as the wire would carry them.

Used where "equal" means "nothing changed" and a wrong *equal* would skip a check: a rewrite
that a guard drops because the model's input already looks like it, the second lock taking a
``tools/call`` for the input its allow was answered for. Python's ``==`` is too loose there
(``True == 1 == 1.0``), so here a boolean is not a number, an integer is not a float (``1``
and ``1.0`` serialise differently, and a tool may read them differently), ``0.0`` is not
``-0.0`` and ``NaN`` equals nothing. Anything unusual (a type JSON does not have, nesting too
deep to walk) is "not the same": the caller then decides again, or uses the rewritten input.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["same_json"]

# Deeper than this is "not the same" (the wire decoder refuses far shallower input).
_MAX_DEPTH = 200


def same_json(a: Any, b: Any) -> bool:
    """True only when ``a`` and ``b`` are the same JSON value, types included (as
    ``json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)`` for finite values)."""
    return _same(a, b, 0)


def _same(a: Any, b: Any, depth: int) -> bool:
    if depth > _MAX_DEPTH:
        return False
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is bool and type(b) is bool and a is b
    if isinstance(a, int) or isinstance(b, int):
        return isinstance(a, int) and isinstance(b, int) \
            and not isinstance(a, float) and not isinstance(b, float) and int(a) == int(b)
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, float) and isinstance(b, float) and math.isfinite(a) \
            and a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and str(a) == str(b)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if len(a) != len(b) or not all(type(k) is str for k in a) \
                or not all(type(k) is str for k in b) or a.keys() != b.keys():
            return False
        return all(_same(a[k], b[k], depth + 1) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(
            _same(x, y, depth + 1) for x, y in zip(a, b, strict=True))
    return False
