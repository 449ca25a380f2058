"""A python tool whose function is toolhost's own (``toolhost.cli:main``: the model would
run ``toolhost call`` on any config without its rules, ``install`` or ``init``) loads, but
``validate`` warns at its line, named or re-exported (``mytools:entry``); ``--strict`` fails
on it. ``toolhost.demo``'s tools, the examples', are no warning."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CONFIG = """\
toolhost: 1
servers:
  o:
    tools:
      one:
        description: d
        python: "{ref}"
permissions: {{default: allow}}
"""


def _validate(tmp_path: Path, ref: str, *extra: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "mytools.py").write_text(
        "from toolhost.cli import main as entry\n"
        "from toolhost.commands import call\n"
        "from toolhost.demo import add\n")
    (tmp_path / "t.yaml").write_text(CONFIG.format(ref=ref))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLHOST")}
    return subprocess.run([sys.executable, "-m", "toolhost", "validate", *extra, "t.yaml"],
                          cwd=tmp_path, capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=120)


@pytest.mark.parametrize(("ref", "module"), [
    ("toolhost.cli:main", "toolhost.cli"), ("mytools:entry", "toolhost.cli"),
    ("toolhost.commands.call:split_tool", "toolhost.commands.call"),
    ("toolhost.excerpt:cut", "toolhost.excerpt"),
])
def test_toolhosts_own_function_is_a_warning(tmp_path: Path, ref: str, module: str) -> None:
    checked = _validate(tmp_path, ref)
    lines = [line for line in checked.stderr.splitlines() if "toolhost's own code" in line]
    assert len(lines) == 1, checked.stderr
    assert lines[0].startswith("t.yaml:7:") and "servers.o.tools.one" in lines[0]
    assert f"'{ref}' is toolhost's own code ({module})" in lines[0]
    assert "Traceback" not in checked.stderr
    assert checked.returncode == 0, checked.stderr
    assert _validate(tmp_path, ref, "--strict").returncode == 1


@pytest.mark.parametrize("ref", ["toolhost.demo:add", "mytools:add"])
def test_the_demo_tools_are_no_warning(tmp_path: Path, ref: str) -> None:
    checked = _validate(tmp_path, ref)
    assert checked.returncode == 0 and "toolhost's own code" not in checked.stderr, \
        checked.stderr
