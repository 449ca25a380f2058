"""make's variable assignments: code a value would write.

An operand ``NAME=VALUE`` overrides the Makefile's variable, and make expands it where a
recipe uses it: ``[make, "X={{ v }}"]`` with ``$(shell touch /tmp/p)`` ran the command at
the first ``$(X)``, ``a; touch /tmp/p`` ran it in the recipe's shell, ``CC=...`` replaced the
compiler (real GNU make 4.3). A value after a literal ``NAME=`` is a load error
(:func:`make_slots`), as a value in ``make --eval`` is; a value that writes the ``=`` itself
(``[make, "{{ target }}"]`` with ``CFLAGS=$(shell id)``) is refused at call time
(:func:`make_assignment`). A target the model names (``make "{{ target }}"``) still runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolhost.backends.code_opts import OPTION, Token, program_family

__all__ = ["MAKES", "make_assignment", "make_slots"]

Slot = tuple[str, str, str]  # (key, program, what)
MAKES = frozenset({"make", "gmake", "bmake", "pmake", "remake"})
_WHAT = OPTION + "a variable make expands (`$(shell CMD)`) and a recipe may run as a command"


def _assignment(text: str) -> int:
    """Where ``text``'s ``=`` is when make reads it as an assignment (``NAME=``, ``NAME:=``,
    ``NAME+=``, ``NAME!=`` that runs the shell at once ...), else -1."""
    if text.startswith("-"):
        return -1
    return text.find("=")


def make_slots(tokens: Sequence[Token], i: int, name: str) -> list[Slot]:
    """The operands after make at ``i`` that assign a variable a value prints into (or whose
    name a value prints: the model would choose ``SHELL`` or ``MAKEFILES``)."""
    if program_family(name) not in MAKES:
        return []
    return [(t.key, name, _WHAT) for t in tokens[i + 1:]
            if t.value and _assignment(t.text) >= 0]


def make_assignment(out: Sequence[str], valued: Sequence[tuple[int, int]]) -> str | None:
    """The make operand a value made an assignment (it wrote the ``=``), or None.
    ``valued``: (index in ``out``, length of the literal text before the value)."""
    if not any(_name(text) in MAKES for text in out):
        return None  # the common case, without building tokens
    from toolhost.backends.code_args import Token as ArgToken
    from toolhost.backends.code_args import run_programs

    starts = dict(valued)
    tokens = [ArgToken("", text, k in starts) for k, text in enumerate(out)]
    for at in run_programs(tokens):
        if _name(out[at]) not in MAKES:
            continue
        for k in range(at + 1, len(out)):
            eq = _assignment(out[k])
            if k in starts and eq >= starts[k]:
                return out[k]
    return None


def _name(program: str) -> str:
    base = program.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base[:-4] if base.endswith(".exe") else base
