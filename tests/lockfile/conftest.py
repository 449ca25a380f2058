"""Real git repositories with tags, and a private cache per test."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ..plugins.conftest import _make_repo, git

__all__ = ["git"]


@pytest.fixture
def make_repo() -> Callable[..., str]:
    return _make_repo


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "toolhost-cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # no user layer
