"""An ``extends`` entry is interpolated before it is resolved, so a secret-named variable in
it (``${API_TOKEN}``) becomes part of a path or a package name. Its value is a secret like
any other: the entry's own problems (no such file, no such package), which are said before
the rest of the config is read, show ``***`` for it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SECRET = "s3cr3t-Extends-Value-7Q"


def _validate(config: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "API_TOKEN": SECRET, "XDG_CONFIG_HOME": str(config.parent / "xdg"),
           "TOOLHOST_CACHE": str(config.parent / "cache")}
    return subprocess.run([sys.executable, "-m", "toolhost", "validate", "--no-layers",
                           str(config)], capture_output=True, text=True, timeout=120,
                          cwd=config.parent, env=env, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize(("entry", "said"), [
    ("${API_TOKEN}.yaml", "no such file"),
    ("team/${API_TOKEN}/base.yaml", "no such file"),
    ("${NOT_SET_HERE:-x}${API_TOKEN}.toml", "no such file"),
    ("pkg:${API_TOKEN}/base.yaml", "no installed package"),
    ("pkg:json/${API_TOKEN}.yaml", "json"),
])
def test_a_secret_in_an_extends_entry_is_hidden_in_its_problem(tmp_path: Path, entry: str,
                                                               said: str) -> None:
    config = tmp_path / "main.yaml"
    config.write_text(f'toolhost: 1\nextends: ["{entry}"]\n')
    proc = _validate(config)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "main.yaml:2:" in lines[0] and said in lines[0], lines
    assert "***" in lines[0], lines
    assert SECRET not in proc.stdout + proc.stderr, lines


def test_a_fragment_named_by_a_secret_still_loads(tmp_path: Path) -> None:
    (tmp_path / f"{SECRET}.yaml").write_text(
        "servers: {s: {tools: {t: {command: [echo, hi]}}}}\n")
    config = tmp_path / "main.yaml"
    config.write_text('toolhost: 1\nextends: ["${API_TOKEN}.yaml"]\n')
    proc = _validate(config)
    assert proc.returncode == 0, proc.stderr
    assert SECRET not in proc.stdout + proc.stderr

