"""An argv is at most MAX_ARGV_ELEMENTS elements (groups' items counted), checked before
any element is compiled: a 490,000-element argv took 14 s and 770 MB to load, and no program
could be started with it anyway (the system's limit on a command line). The error names the
first element past the limit by its key path."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from toolhost.backends import argv as argv_module
from toolhost.backends.argv import ArgvConfigError, compile_argv

N = 10_000  # argv.MAX_ARGV_ELEMENTS, as the docs say


def test_the_documented_limit() -> None:
    assert getattr(argv_module, "MAX_ARGV_ELEMENTS", None) == N


def _each(items: int) -> dict[str, Any]:
    return {"each": "l", "argv": ["-e"] * items}


# argv (the program first) -> the key of the first element past the limit, or None
SHAPES: dict[str, tuple[list[Any], str | None]] = {
    "literals at the limit": (["echo", *["a"] * (N - 1)], None),
    "literals one past": (["echo", *["a"] * N], f".argv[{N}]"),
    "templates one past": (["echo", "--", *["{{ x }}"] * N], f".argv[{N}]"),
    "groups at the limit": (["echo", *[_each(2)] * ((N - 1) // 2)], None),
    "groups one past": (["echo", *[_each(2)] * (N // 2)], f".argv[{N // 2}].argv[1]"),
    "one huge group": (["echo", _each(N)], f".argv[1].argv[{N - 1}]"),
    "an empty group counts one": (["echo", *[{"if": "f", "argv": []}] * N], f".argv[{N}]"),
    "far past": (["echo", *["a"] * (49 * N)], f".argv[{N}]"),
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_limit(shape: str) -> None:
    argv, key = SHAPES[shape]
    start = time.monotonic()
    if key is None:
        compile_argv(argv)
        return
    with pytest.raises(ArgvConfigError) as caught:
        compile_argv(argv)
    assert caught.value.key == key
    assert f"more than {N:,} elements" in str(caught.value)
    assert time.monotonic() - start < 5  # refused before compiling anything


def test_validate_names_the_element(tmp_path: Path) -> None:
    argv = ["echo", "--", *[f"a{i}" for i in range(3 * N)]]
    config = tmp_path / "big.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n        command:\n"
                      "          argv:\n" + "".join(f"            - {json.dumps(a)}\n"
                                                    for a in argv))
    done = subprocess.run([sys.executable, "-m", "toolhost", "validate", str(config)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode != 0
    # at the command block's line, as every argv error, and the element's key path
    assert (f"big.yaml:6:9: servers.s.tools.t.command.argv[{N}]: argv has more than "
            f"{N:,} elements") in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
