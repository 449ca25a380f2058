"""toolhost-sqlite: a ``sqlite:`` backend kind for toolhost (SQL query tools over SQLite)."""

__version__ = "0.1.0"
