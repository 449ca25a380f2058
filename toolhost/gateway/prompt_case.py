"""An upstream's prompts are told apart as an upstream that ignores case tells them.

The rules judge a ``prompts/get`` by the prompt's name and its arguments
(``GetMcpPromptTool``, ``{server, name, arguments}``), compared exactly. An upstream whose
dispatch or JSON binding ignores case (Go's ``encoding/json``, .NET's web defaults, a
``lower()`` in a lookup) reads ``Payroll`` as ``payroll`` and an argument ``Diff`` as
``diff``: a deny on ``name: payroll`` or ``arguments.diff`` would not hold for what the
upstream renders. So, as for its tools (``toolhost.gateway.reshape``, ``compile._alike``):

- prompts whose names differ only in case are left out, every one of them, with a warning
  naming the others (``ambiguous``);
- a ``prompts/get`` whose arguments hold a key the prompt does not declare that differs only
  in case from one it declares or from another key given is refused (``alike``), naming
  both; so is a key ``__proto__`` (a JavaScript upstream's ``Object.assign`` reads it as the
  prototype of the merged arguments).

Names are compared as ``compile._fold`` compares arguments: upper-cased, then case-folded.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from toolhost.excerpt import cut
from toolhost.visible import visible

__all__ = ["alike", "ambiguous"]

log = logging.getLogger("toolhost.gateway")

_PROTO = "__proto__"


def _fold(key: str) -> str:
    return key.upper().casefold()  # (as compile._fold: .NET's upper case, Go's EqualFold)


def ambiguous(names: Iterable[str], server: str) -> set[str]:
    """The names among ``names`` that another differs from only in case (each warned)."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(_fold(name), []).append(name)
    left_out: set[str] = set()
    for group in groups.values():
        if len(group) < 2:
            continue
        for name in group:
            others = ", ".join(repr(visible(o)) for o in group if o != name)
            log.warning("upstream server '%s': its prompt %r is left out: its name differs "
                        "only in case from %s (a rule naming one would not hold for the "
                        "other, which an upstream ignoring case renders alike)", server,
                        cut(visible(name), 100), cut(others, 300))
            left_out.add(name)
    return left_out


def alike(given: Mapping[str, Any], declared: Iterable[str]) -> str:
    """Why a prompt's ``given`` arguments are refused (see the module), or ""."""
    known = set(declared)
    seen = {_fold(name): name for name in known}
    for key in given:
        if key == _PROTO:
            return f"the argument {_PROTO!r} is refused (a JavaScript upstream reads it as " \
                "the prototype of the arguments, holding values no rule judged)"
        if key in known:
            continue
        other = seen.get(_fold(key))
        if other is not None and other != key:
            return (f"the argument {cut(visible(key), 100)!r} differs only in case from "
                    f"{cut(visible(other), 100)!r}: an upstream ignoring case would read it "
                    "as that one, which the rules did not judge")
        seen[_fold(key)] = key
    return ""
