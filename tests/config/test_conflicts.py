"""A config a merge left conflict markers in says so at the first marker, with how to fix it
(it said "could not find expected ':'" or "Invalid statement")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.inproc import run_cli

CONFLICTED = {
    "t.yaml": "toolhost: 1\nservers: {}\n<<<<<<< HEAD\npermissions: {deny: [Bash]}\n"
              "=======\npermissions: {allow: [Bash]}\n>>>>>>> theirs\n",
    "t.toml": 'toolhost = 1\n[[extends]]\nrepo = "../w"\n<<<<<<< HEAD\nrev = "v1"\n'
              '=======\nrev = "v2"\n>>>>>>> theirs\n',
    "inner.yaml": "toolhost: 1\nextends:\n  - repo: ../w\n<<<<<<< HEAD\n    rev: v1\n"
                  "=======\n    rev: v2\n>>>>>>> theirs\n",
}


@pytest.mark.parametrize("name", sorted(CONFLICTED))
def test_merge_conflict_markers_are_named_at_the_first_marker(tmp_path: Path,
                                                              name: str) -> None:
    text = CONFLICTED[name]
    (tmp_path / name).write_text(text)
    done = run_cli(["validate", "--no-compile", name], cwd=tmp_path,
                   env={"XDG_CONFIG_HOME": str(tmp_path / "xdg"),
                        "TOOLHOST_CACHE": str(tmp_path / "cache")})
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    (line,) = done.stderr.strip().splitlines()
    at = text.splitlines().index("<<<<<<< HEAD") + 1
    assert line.startswith(f"{name}:{at}:1: invalid "), line
    assert "merge conflict markers (<<<<<<<)" in line and "delete the <<<<<<<" in line, line


def test_a_file_without_markers_keeps_its_parse_error(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text("toolhost: 1\nservers: [\n")
    done = run_cli(["validate", "--no-compile", "t.yaml"], cwd=tmp_path,
                   env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert done.returncode == 1 and "conflict" not in done.stderr, done.stderr
    assert "invalid YAML" in done.stderr, done.stderr
