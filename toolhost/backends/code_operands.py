"""Operands that are code by design: ``pytest {{ path }}``, ``docker build {{ dir }}``.

``python3 {{ script }}`` is a load error (``code_args``: the value is the script), and so are
the options that name code (``make -C``, ``npm --prefix``, ``cargo --manifest-path``:
``code_opts``). A test runner's or a builder's *operand* is code too, but naming it is what
the tool is for: ``pytest {{ path }}`` imports the test file and every ``conftest.py`` from
the root directory down to it, ``go test {{ pkg }}`` compiles and runs the package (and
``go generate`` the commands its ``//go:generate`` lines name), ``docker build {{ dir }}``
runs the ``RUN`` lines of that directory's Dockerfile. Refusing them would refuse the tools;
accepting them silently would let the model run code from any directory it can write to
(a checkout it cloned, ``/tmp``). So ``validate`` prints a note for each such position,
naming the program and what it runs there, and the author bounds the param with a
permission rule (``path_under``) or writes the directory in the config.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolhost.backends.code_args import Token, program_name, run_programs

__all__ = ["CODE_OPERANDS", "code_operand_slots"]

_TESTS = "imports and runs as tests (the test files it names or finds there"
_PYTEST = f"{_TESTS}, and every conftest.py from the root directory down to them)"
_JS = f"{_TESTS}, and the configuration file it finds there, which is code)"
_RUNS = f"{_TESTS})"
_DOCKER = ("builds with that directory's Dockerfile, whose RUN lines run (in a container, "
           "with the build's network and any secrets passed to it)")
_GO = "compiles and runs (the package's tests, or the commands its //go:generate lines name)"

# program -> {subcommand ("" for none): what it does with an operand}
CODE_OPERANDS: dict[str, dict[str, str]] = {
    "pytest": {"": _PYTEST}, "py.test": {"": _PYTEST},
    "jest": {"": _JS}, "vitest": {"": _JS, "run": _JS}, "mocha": {"": _JS}, "ava": {"": _JS},
    "jasmine": {"": _JS}, "playwright": {"test": _JS},
    "phpunit": {"": _RUNS}, "pest": {"": _RUNS}, "rspec": {"": _RUNS},
    "cucumber": {"": _RUNS}, "behave": {"": _RUNS}, "nose2": {"": _RUNS},
    "trial": {"": _RUNS}, "robot": {"": _RUNS}, "prove": {"": _RUNS}, "bats": {"": _RUNS},
    "deno": {"test": _RUNS, "bench": _RUNS}, "bun": {"test": _RUNS},
    "go": {"test": _GO, "generate": _GO},
    **{engine: {"build": _DOCKER, "buildx": _DOCKER, "bud": _DOCKER}
       for engine in ("docker", "podman", "nerdctl", "buildah")},
}
# python -m MODULE
_MODULES = {"pytest": _PYTEST, "unittest": _RUNS, "nose2": _RUNS}
_PYTHON = re.compile(r"^((python|pypy)(\d+(\.\d+)*)?|py)$")  # not pytest
# options whose argument is text, not a path (-k EXPR, -m MARK, a reporter's name)
_TEXT_OPTIONS = frozenset({
    "-k", "-m", "-n", "-o", "-t", "-g", "--maxfail", "--tb", "--junitxml",
    "--junit-xml", "--testNamePattern", "--grep", "--timeout", "--reporter", "--tag",
    "-run", "-bench", "-count", "-timeout", "--name", "--tags", "--platform",
    "--build-arg", "--target", "--label", "--network", "--progress"})


def _python_module(words: Sequence[Token]) -> tuple[str, int] | None:
    """(what, index past ``-m MODULE``) for ``python -m pytest``."""
    for k, word in enumerate(words[1:], 1):
        if word.text == "-m" and k + 1 < len(words) and not words[k + 1].value:
            what = _MODULES.get(words[k + 1].text)
            return (what, k + 2) if what is not None else None
        if word.value or not word.text.startswith("-"):
            return None
    return None


def code_operand_slots(tokens: Sequence[Token]) -> list[tuple[str, str, str]]:
    """(key, program, what it does) for each position where a value is an operand that a
    test runner or builder runs as code."""
    found: list[tuple[str, str, str]] = []
    for at in run_programs(tokens):
        if tokens[at].value:
            continue
        name = program_name(tokens[at].text)
        words = tokens[at:]
        start, what = 1, None
        if _PYTHON.match(name):
            module = _python_module(words)
            if module is not None:
                what, start = module
                name = f"{name} -m {words[start - 1].text}"
        elif name in CODE_OPERANDS:
            table = CODE_OPERANDS[name]
            sub = next((k for k, w in enumerate(words[1:], 1)
                        if not w.value and not w.text.startswith("-")), None)
            if sub is not None and words[sub].text in table:
                what, start = table[words[sub].text], sub + 1
                name = f"{name} {words[sub].text}"
            elif "" in table:
                what = table[""]
        if what is None:
            continue
        for k in range(start, len(words)):
            if words[k].value and words[k - 1].text not in _TEXT_OPTIONS:
                found.append((words[k].key, name, what))
    return found
