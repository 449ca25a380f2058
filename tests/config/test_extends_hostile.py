"""``extends`` that points somewhere hostile: a symlink loop or an over-long name inside a git
repository or a package, an unusable cache directory, a chain hundreds of files long. Each is
one located line from a real ``toolhost validate``, exit 1, never an internal error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

LONG = "a" * 300


def _validate(config: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "XDG_CONFIG_HOME": str(config.parent / "xdg"), **env}
    full.setdefault("TOOLHOST_CACHE", str(config.parent / "cache"))
    return subprocess.run([sys.executable, "-m", "toolhost", "validate", "--no-compile",
                           str(config)], capture_output=True, text=True, timeout=120,
                          env=full, cwd=config.parent)


def _one_located_line(proc: subprocess.CompletedProcess[str], config: Path,
                      line: int = 3) -> str:
    assert proc.returncode == 1, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{config.name}:{line}:") or \
        lines[0].startswith(f"{config}:{line}:"), lines[0]
    assert len(lines[0]) < 500
    return lines[0]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A tagged repository holding a symlink loop."""
    path = tmp_path / "repo"
    path.mkdir()
    (path / "toolhost.yaml").write_text("servers: {}\n")
    (path / "loop.yaml").symlink_to("loop.yaml")
    (path / "a.yaml").symlink_to("b.yaml")
    (path / "b.yaml").symlink_to("a.yaml")
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=n"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "x"], ["tag", "v1"]):
        subprocess.run([*git, *args], cwd=path, check=True, capture_output=True)
    return path


@pytest.mark.parametrize(("target", "reason"), [("loop.yaml", "symbolic links"),
                                                ("a.yaml", "symbolic links"),
                                                (f"{LONG}.yaml", "File name too long"),
                                                (f"sub/{LONG}/x.yaml", "has no file")])
def test_a_git_path_that_cannot_be_stat_is_located(tmp_path: Path, repo: Path, target: str,
                                                   reason: str) -> None:
    config = tmp_path / "g1.yaml"
    config.write_text(f'toolhost: 1\nextends:\n  - {{repo: ./repo, rev: v1, path: "{target}"}}\n')
    line = _one_located_line(_validate(config), config)
    assert "extends[0]:" in line and reason in line, line


@pytest.mark.parametrize("target", [f"pkg:toolhost-files/{LONG}.yaml",
                                    f"pkg:toolhost-files/{LONG}/x.yaml"])
def test_a_package_path_that_cannot_be_stat_is_located(tmp_path: Path, target: str) -> None:
    config = tmp_path / "p.yaml"
    config.write_text(f'toolhost: 1\nextends: ["{target}"]\n')
    line = _one_located_line(_validate(config), config, line=2)
    assert "File name too long" in line, line


@pytest.mark.parametrize("cache", ["/dev/null", "/proc/1/x", "FILE"])
def test_an_unusable_cache_directory_is_located(tmp_path: Path, repo: Path, cache: str) -> None:
    config = tmp_path / "g2.yaml"
    config.write_text("toolhost: 1\nextends:\n  - {repo: ./repo, rev: v1}\n")
    if cache == "FILE":
        cache = str(config)
    line = _one_located_line(_validate(config, TOOLHOST_CACHE=cache), config)
    assert "cannot use the cache directory" in line and "TOOLHOST_CACHE" in line, line


def _chain(tmp_path: Path, links: int) -> Path:
    for i in range(links):
        (tmp_path / f"c{i}.yaml").write_text(f"extends: [c{i + 1}.yaml]\n")
    (tmp_path / f"c{links}.yaml").write_text("servers: {}\n")
    config = tmp_path / "chain.yaml"
    config.write_text("toolhost: 1\nextends: [c0.yaml]\n")
    return config


@pytest.mark.parametrize("env", [{}, {"TOOLHOST_MAX_EXTENDS_CHAIN": "100000"}])
def test_a_chain_hundreds_of_files_long_is_one_located_line(tmp_path: Path,
                                                            env: dict[str, str]) -> None:
    config = _chain(tmp_path, 500)
    proc = _validate(config, **env)
    assert proc.returncode == 1, proc.stderr
    assert "internal error" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    if env:  # an override past the ceiling is said so (once), and the ceiling used
        assert lines.pop(0) == ("toolhost: WARNING: TOOLHOST_MAX_EXTENDS_CHAIN='100000': it "
                                "is above the most it can be; using 200")
    assert len(lines) == 1 and "extends chain of more than" in lines[0], lines
    assert "chain.yaml -> " in lines[0] and "c0.yaml -> ... (" in lines[0]
    assert "TOOLHOST_MAX_EXTENDS_CHAIN" in lines[0] and len(lines[0]) < 600
    limit = 200 if env else 50  # the override is capped: the loader recurses per link
    assert lines[0].startswith(f"{tmp_path}/c{limit - 2}.yaml:1:11: extends[0]: extends "
                               f"chain of more than {limit} files"), lines[0]


def test_a_chain_within_the_limit_loads_and_the_limit_can_be_raised(tmp_path: Path) -> None:
    config = _chain(tmp_path, 60)
    assert _validate(config).returncode == 1
    proc = _validate(config, TOOLHOST_MAX_EXTENDS_CHAIN="80")
    assert proc.returncode == 0, proc.stderr
