"""An upgraded plugin release the lock does not name is refused before any of it runs.

Real installed distributions (a .dist-info beside the module) in two site directories, and
real ``toolhost`` processes: the refused release's import-time code and its ``register`` hook
leave a mark on disk if they run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..plugins.conftest import write_plugin

PLUGIN = '''
import pathlib
pathlib.Path({mark!r}).joinpath("imported-{version}").write_text("ran")
def hello() -> str:
    """hi"""
    return "{version}"
def register(reg):
    pathlib.Path({mark!r}).joinpath("registered-{version}").write_text("ran")
    reg.add_tool(hello, server="rt")
'''


def toolhost(*args: str, cwd: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([sys.executable, "-m", "toolhost", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=120, env=env)


@pytest.fixture
def sites(tmp_path: Path) -> tuple[Path, Path, Path]:
    marks = tmp_path / "marks"
    marks.mkdir()
    out = []
    for version in ("1.0", "2.0"):
        site = tmp_path / f"site{version}"
        write_plugin(site, "rt-plug", version, {
            "rtplug": PLUGIN.format(mark=str(marks), version=version)}, {"rtplug": "rtplug"})
        out.append(site)
    return out[0], out[1], marks


@pytest.mark.parametrize("command", [["call", "{c}", "rt.hello"], ["validate", "{c}"],
                                     ["tools", "{c}"], ["lock", "--check", "{c}"],
                                     ["lock", "--dry-run", "{c}"]])
@pytest.mark.parametrize("spelled", ["rt-plug", "rt-plug>=1"])
def test_unlocked_release_is_never_imported(tmp_path: Path, sites: tuple[Path, Path, Path],
                                            command: list[str], spelled: str) -> None:
    v1, v2, marks = sites
    config = tmp_path / "toolhost.yaml"
    config.write_text(f"toolhost: 1\nplugins: ['{spelled}']\n"
                      "permissions:\n  allow: [mcp__rt__hello]\n")
    assert toolhost("lock", str(config), cwd=tmp_path, site=v1).returncode == 0
    assert json.loads(config.with_suffix(".lock").read_text())["plugins"] == {"rt-plug": "1.0"}
    done = toolhost(*(a.format(c=config) for a in command), cwd=tmp_path, site=v2)
    assert sorted(p.name for p in marks.iterdir()) == ["imported-1.0", "registered-1.0"]
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    if command[1] == "--dry-run":
        assert done.returncode == 0 and "~ plugin rt-plug: 1.0 -> 2.0" in done.stdout
        assert json.loads(config.with_suffix(".lock").read_text())["plugins"] == {
            "rt-plug": "1.0"}
    else:
        assert done.returncode == 1
        assert "toolhost.yaml:2" in done.stderr
        assert "plugin rt-plug 2.0 is installed, locked at 1.0" in done.stderr


def test_plugin_missing_from_the_lock_is_not_imported(tmp_path: Path,
                                                     sites: tuple[Path, Path, Path]) -> None:
    _, v2, marks = sites
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\n")
    assert toolhost("lock", str(config), cwd=tmp_path, site=v2).returncode == 0
    config.write_text("toolhost: 1\nplugins: [rt-plug]\n")
    done = toolhost("validate", str(config), cwd=tmp_path, site=v2)
    assert done.returncode == 1 and "not in the lock" in done.stderr
    assert list(marks.iterdir()) == []
    accepted = toolhost("lock", str(config), cwd=tmp_path, site=v2)  # accepting imports it
    assert accepted.returncode == 0 and "+ plugin rt-plug: absent -> 2.0" in accepted.stdout
