"""The case files: each broken one names the file and line of its first expected problem.

A broken case starts with ``# expect: FILE:LINE: TEXT`` (FILE relative to cases/broken);
loading it must report a problem in that file, at that line, whose text contains TEXT.
Fragments (files without the expect line) are only read through an entry's extends.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolhost.config import load_config
from toolhost.errors import ConfigError

CASES = Path(__file__).parent / "cases"
BROKEN = CASES / "broken"
VALID = sorted((CASES / "valid").iterdir())


def _expectation(path: Path) -> tuple[str, int, str] | None:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    if not first.startswith("# expect: "):
        return None
    where, line, text = first.removeprefix("# expect: ").split(":", 2)
    return str(BROKEN / where), int(line), text.strip()


BROKEN_CASES = sorted(p for p in BROKEN.rglob("*") if p.is_file() and _expectation(p))


@pytest.mark.parametrize("path", BROKEN_CASES, ids=lambda p: str(p.relative_to(BROKEN)))
def test_broken_case(path: Path, kinds: Any) -> None:
    expected = _expectation(path)
    assert expected is not None
    with pytest.raises(ConfigError) as info:
        load_config(path, kinds=kinds, environ={}, layers=False)
    found = [(os.path.normpath(p.file), p.line, str(p)) for p in info.value.problems]
    file, line, text = expected
    assert any(f == os.path.normpath(file) and n == line and text in s for f, n, s in found), \
        found


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_case(path: Path, kinds: Any) -> None:
    load_config(path, kinds=kinds, environ={}, layers=False)


def test_validate_command_on_every_case(tmp_path: Path) -> None:
    """``toolhost validate`` as a real process, with the real backend kinds."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOST_CASES_")}
    env["HOME"] = str(tmp_path)  # no user layer
    env.pop("XDG_CONFIG_HOME", None)
    files = [str(p) for p in [*VALID, *BROKEN_CASES]]
    proc = subprocess.run([sys.executable, "-m", "toolhost", "validate", *files],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert proc.returncode == 1
    for path in VALID:
        assert f"{path}: ok" in proc.stdout
    errors = proc.stderr.splitlines()
    for path in BROKEN_CASES:
        expected = _expectation(path)
        assert expected is not None
        file, line, text = expected
        prefix = f"{os.path.normpath(file)}:{line}:"
        assert any(e.startswith(prefix) and text in e for e in errors), (prefix, errors)
    valid = subprocess.run([sys.executable, "-m", "toolhost", "validate", "-q",
                            *map(str, VALID)], capture_output=True, text=True, env=env,
                           timeout=120, check=False)
    assert (valid.returncode, valid.stdout, valid.stderr) == (0, "", "")
