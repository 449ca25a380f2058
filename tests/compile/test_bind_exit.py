"""A tool's module that calls ``sys.exit()`` while it is imported (``argparse`` at module
scope reading toolhost's own arguments, a stray ``exit()``) is a located config problem of
that tool: ``validate`` used to end with the module's status and no word of where."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(("body", "code"), [
    ("import argparse\nargparse.ArgumentParser().add_argument('--x', required=True)\n"
     "argparse.ArgumentParser().parse_args(['--nope'])\n", "2"),
    ("import sys\nsys.exit(5)\n", "5"),
    ("raise SystemExit('bye')\n", "'bye'"),
])
def test_a_module_that_exits_at_import_is_a_located_problem(tmp_path: Path, body: str,
                                                           code: str) -> None:
    (tmp_path / "exits.py").write_text(body + "def f(x: int) -> int:\n    return x\n")
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n"
                      "      f: {python: exits:f}\n      g: {command: [echo, hi]}\n")
    done = subprocess.run([sys.executable, "-m", "toolhost", "validate", str(config)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 1, done
    assert f"c.yaml:5:7: servers.s.tools.f: the 'python' backend could not bind this tool: " \
           f"it called exit({code})" in done.stderr
    assert "Traceback" not in done.stderr
