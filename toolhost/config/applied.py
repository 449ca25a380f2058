"""The directory of the config most recently applied in this process.

``toolhost.plugins.config_dir()`` answers from here: a plugin resolves its relative settings
against it. Kept outside ``toolhost.plugins`` so that a load without plugins records it
without importing the plugin machinery (~3.5 ms of a fresh ``serve``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

__all__ = ["applied_dir", "remember_applied"]

_dir: Path | None = None


def remember_applied(files: Sequence[str]) -> None:
    """Record the directory of ``files[0]`` (none: no config file was involved)."""
    global _dir
    _dir = Path(files[0]).resolve().parent if files else None


def applied_dir() -> Path | None:
    """The directory recorded last, or None."""
    return _dir
