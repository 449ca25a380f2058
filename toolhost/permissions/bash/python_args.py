"""A python command line read as python reads it: its options, then what it runs.

Short options bundle (``-uI``), and ``-c``, ``-m``, ``-W`` and ``-X`` take the rest of their
word as their value, or the next word (``-Wignore``, ``-W ignore``, ``-uW ignore``): the
letters of a glued value are not options (``-WIgnore`` is no ``-I``: python warns that the
filter is invalid and runs the script, its folder first on ``sys.path``; checked with python
3.11). ``-I`` and ``-P`` leave the current folder and the script's off ``sys.path``. The
first word that is not an option is the script (``-`` the program on stdin); ``-c`` and
``-m`` end python's own options too, and what follows is the program's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["PYTHON", "PYTHON_VALUED", "PythonRun", "python_run"]

# a python interpreter by its name (python3, python3.12, pypy3)
PYTHON = re.compile(r"(?:python|pypy)[0-9.]*")
# python's options written as a word of their own whose value is the next word
PYTHON_VALUED = frozenset({"-X", "-W", "--check-hash-based-pycs"})
_TAKES_VALUE = "cmWX"  # short options whose value is the rest of the word, or the next word


@dataclass(frozen=True)
class PythonRun:
    """What a python form runs. ``module``: the dotted name ``-m`` runs; ``code``: ``-c`` or
    ``-`` (a program not in a file); ``script``: the script operand; none of the three: no
    operand (python reads its program from stdin, or is interactive). ``rest``: the index in
    the form of the program's first own argument. ``warnings``: the ``-W`` filters."""

    isolated: bool
    module: str | None
    code: bool
    script: str | None
    rest: int
    warnings: tuple[str, ...]


def python_run(form: tuple[str, ...]) -> PythonRun | None:
    """``form`` (a python program first) read as python reads it; None: not python."""
    if not form or not PYTHON.fullmatch(form[0].rsplit("/", 1)[-1]):
        return None
    isolated, warnings = False, []
    k, n = 1, len(form)
    while k < n:
        word = form[k]
        if word in PYTHON_VALUED:
            if word == "-W" and k + 1 < n:
                warnings.append(form[k + 1])
            k += 2
            continue
        if word == "--":
            script = form[k + 1] if k + 1 < n else None
            return PythonRun(isolated, None, script == "-", None if script == "-" else script,
                             k + 2, tuple(warnings))
        if word.startswith("--"):  # (a long option: none takes a value but those above)
            k += 1
            continue
        if word == "-" or not word.startswith("-"):
            return PythonRun(isolated, None, word == "-", None if word == "-" else word, k + 1,
                             tuple(warnings))
        for j, letter in enumerate(word[1:], 1):
            if letter in "IP":
                isolated = True
            elif letter in _TAKES_VALUE:
                glued = word[j + 1:]
                value = glued or (form[k + 1] if k + 1 < n else "")
                after = k + 1 if glued else k + 2
                if letter == "m":
                    return PythonRun(isolated, value, False, None, after, tuple(warnings))
                if letter == "c":
                    return PythonRun(isolated, None, True, None, after, tuple(warnings))
                if letter == "W":
                    warnings.append(value)
                k = after - 1  # (the value is no option: past it)
                break
        k += 1
    return PythonRun(isolated, None, False, None, n, tuple(warnings))
