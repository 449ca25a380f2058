"""The entry point toolhost calls when a config enables ``toolhost-sqlite``."""

from __future__ import annotations

from toolhost.plugins import Registry
from toolhost_sqlite.kind import SqliteKind


def register(registry: Registry) -> None:
    """Add the ``sqlite`` backend kind."""
    registry.add_kind(SqliteKind())
