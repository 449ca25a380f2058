"""Fixtures: real installed plugin distributions (a .dist-info next to a module) in tmp dirs."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

MakePlugin = Callable[..., Path]


def write_plugin(site: Path, dist: str, version: str, modules: dict[str, str],
                 entry_points: dict[str, str] | None = None) -> None:
    """Lay out an installed distribution in ``site`` the way pip does, without pip."""
    for name, source in modules.items():
        path = site / (name.replace(".", "/") + ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    info.joinpath("METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\nSummary: test plugin {dist}\n")
    eps = entry_points if entry_points is not None else {"main": next(iter(modules))}
    lines = ["[toolhost]", *(f"{k} = {v}" for k, v in eps.items())] if eps else []
    info.joinpath("entry_points.txt").write_text("\n".join(lines) + "\n")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory on sys.path (and PYTHONPATH for subprocesses) to install plugins into."""
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv("PYTHONPATH", str(root))
    before = set(sys.modules)
    yield root
    for name in set(sys.modules) - before:
        module = sys.modules.get(name)
        if module is not None and str(getattr(module, "__file__", "") or "").startswith(
                str(root)):
            del sys.modules[name]


@pytest.fixture
def make_plugin(site: Path) -> MakePlugin:
    def make(dist: str, version: str = "1.0.0", *, modules: dict[str, str],
             entry_points: dict[str, str] | None = None) -> Path:
        write_plugin(site, dist, version, modules, entry_points)
        import importlib

        importlib.invalidate_caches()
        return site

    return make


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def _make_repo(path: Path, files: dict[str, str], tag: str | None = None) -> str:
    """A real git repository with one more commit of ``files`` (tagged ``tag``); its sha."""
    if not (path / ".git").exists():
        path.mkdir(parents=True)
        git(path, "init", "-q", "-b", "main")
        git(path, "config", "user.email", "t@example.invalid")
        git(path, "config", "user.name", "Test")
        git(path, "config", "commit.gpgsign", "false")
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    git(path, "add", "-A")
    git(path, "commit", "-q", "--allow-empty", "-m", f"commit {tag or ''}")
    if tag:
        git(path, "tag", tag)
    return git(path, "rev-parse", "HEAD")


@pytest.fixture
def make_repo() -> Callable[..., str]:
    return _make_repo


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never touch the real ~/.cache: every test gets its own TOOLHOST_CACHE."""
    monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "toolhost-cache"))
