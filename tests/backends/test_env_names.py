"""An environment variable name the OS cannot hold (empty, holding '=') is a load error at its
key, wherever an env map is written (a command tool's, a server's, an imported server's,
``run:``'s): it passed validate and every call then failed with "could not be started:
illegal environment variable name" (an empty one even reached the program as "=x")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

NAMES = ["A=B", "", "=A", "PATH="]


def _yaml(where: str, name: str) -> str:
    env = "{" + json.dumps(name) + ": x}"
    if where == "tool":
        return ("servers:\n  s:\n    tools:\n      t:\n        command:\n"
                f"          argv: [env]\n          env: {env}\n")
    if where == "server":
        return f"servers:\n  s:\n    env: {env}\n    tools:\n      t: {{command: [env]}}\n"
    if where == "imported":
        return f"servers:\n  gh:\n    mcp:\n      command: [cat]\n      env: {env}\n"
    return f"run:\n  env: {env}\nservers:\n  s:\n    tools:\n      t: {{command: [env]}}\n"


@pytest.mark.parametrize("where", ["tool", "server", "imported", "run"])
@pytest.mark.parametrize("name", NAMES)
def test_an_impossible_name_is_a_load_error(tmp_path: Path, where: str, name: str) -> None:
    config = tmp_path / "env.yaml"
    config.write_text("toolhost: 1\n" + _yaml(where, name))
    done = subprocess.run([sys.executable, "-m", "toolhost", "validate", str(config)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode != 0, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"{config}:"), first
    assert ".env" in first, first


@pytest.mark.parametrize("name", ["A_B", "a", "X1", "A B", "É"])
def test_an_odd_but_possible_name_loads(tmp_path: Path, name: str) -> None:
    config = tmp_path / "env.yaml"
    config.write_text("toolhost: 1\n" + _yaml("server", name))
    done = subprocess.run([sys.executable, "-m", "toolhost", "validate", str(config)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
