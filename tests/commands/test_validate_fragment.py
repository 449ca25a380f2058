"""``validate --fragment``: a file meant to be extended is checked on its own."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.inproc import run_cli

FRAGMENT = """\
servers:
  team:
    tools:
      add: {python: "toolhost.demo:add"}
      bad: {python: "toolhost.demo:nope"}
permissions:
  allow: [mcp__team__add]
"""


def validate(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(["validate", "--no-layers", *args], cwd=cwd)


def test_fragment_is_checked_without_a_version(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text(FRAGMENT)
    plain = validate("base.yaml", cwd=tmp_path)
    assert plain.returncode == 1 and "--fragment" in plain.stderr
    frag = validate("--fragment", "base.yaml", cwd=tmp_path)
    assert frag.returncode == 1
    assert "base.yaml:5" in frag.stderr and "nope" in frag.stderr  # what it can check, it does
    assert "missing format version" not in frag.stderr
    good = "".join(line for line in FRAGMENT.splitlines(keepends=True) if "nope" not in line)
    (tmp_path / "base.yaml").write_text(good)
    assert validate("--fragment", "base.yaml", cwd=tmp_path).returncode == 0


def test_fragment_with_a_wrong_version_is_still_refused(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("toolhost: 7\n" + FRAGMENT)
    done = validate("--fragment", "base.yaml", cwd=tmp_path)
    assert done.returncode == 1 and "unsupported format version 7" in done.stderr
