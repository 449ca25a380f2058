"""The locked plugin release installed, but behind another copy earlier on ``sys.path`` (two
site directories on PYTHONPATH, a user site, an upgrade that left the old copy): still
refused before it is imported, and the hint names both copies. It said "pip install
'rt-plug==2.0'", as if 2.0 were missing."""

from __future__ import annotations

import os
from pathlib import Path

from .test_plugin_lock import sites, toolhost  # noqa: F401 (the fixture)


def test_a_shadowed_locked_release_is_named_with_the_copy_in_its_way(
        tmp_path: Path, sites: tuple[Path, Path, Path]) -> None:  # noqa: F811
    v1, v2, marks = sites
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nplugins: ['rt-plug']\n"
                      "permissions:\n  allow: [mcp__rt__hello]\n")
    assert toolhost("lock", str(config), cwd=tmp_path, site=v2).returncode == 0  # pins 2.0
    both = Path(f"{v1}{os.pathsep}{v2}")  # 1.0 first on sys.path, 2.0 after it
    done = toolhost("validate", str(config), cwd=tmp_path, site=both)
    assert done.returncode == 1, done
    assert "toolhost.yaml:2:11: plugins[0]: plugin rt-plug 1.0 is installed, locked at 2.0 " \
        "(toolhost.lock) (rt-plug 2.0 is installed too, in " + str(v2) + ", but the 1.0 in " \
        + str(v1) + " comes first on sys.path: remove that copy" in done.stderr, done.stderr
    assert not (marks / "imported-1.0").exists()  # the refused copy never ran


def test_a_single_copy_of_another_release_keeps_the_install_hint(
        tmp_path: Path, sites: tuple[Path, Path, Path]) -> None:  # noqa: F811
    v1, v2, _ = sites
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nplugins: ['rt-plug']\n")
    assert toolhost("lock", str(config), cwd=tmp_path, site=v2).returncode == 0
    done = toolhost("validate", str(config), cwd=tmp_path, site=v1)
    assert done.returncode == 1 and "(the release the lock pins)" in done.stderr, done.stderr
    assert "installed too" not in done.stderr
