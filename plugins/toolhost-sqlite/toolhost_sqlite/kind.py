"""The ``sqlite`` backend kind: one SQL statement per tool, parameters bound by name.

Config::

    plugins: [toolhost-sqlite]
    servers:
      shop:
        tools:
          orders_for:
            description: Orders of one customer
            sqlite:
              database: data/shop.db            # relative to this config file
              query: SELECT id, total FROM orders WHERE customer = :customer LIMIT :limit
              # readonly: true                  # the default: opened with mode=ro
              # max_rows: 1000
            params:
              customer: {type: string}
              limit: {type: integer, default: 20, maximum: 100}

Each ``:name`` in the query becomes a required argument (``params`` sets its type; a param
with a ``default`` becomes optional). Values are passed to SQLite as bound parameters, never
pasted into the SQL. A read-only tool opens the database with ``mode=ro`` and
``PRAGMA query_only``, so even a writing statement fails.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio.to_thread

from toolhost.backends.base import BindContext, Binding, CallContext
from toolhost.config.model import ToolConfig
from toolhost.errors import CompileError, Problem
from toolhost.results import ToolResult
from toolhost_sqlite.params import named_parameters

__all__ = ["SqliteKind"]

DEFAULT_MAX_ROWS = 1000
ANY_SCALAR = {"type": ["string", "number", "integer", "boolean", "null"]}


class SqliteKind:
    """``sqlite: {database, query, readonly, max_rows}``; ``sqlite: "SQL"`` sets ``query``."""

    name = "sqlite"
    shorthand: str | None = "query"
    options_schema: Mapping[str, Any] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["database", "query"],
        "properties": {
            "database": {"type": "string", "minLength": 1,
                         "description": "SQLite file, relative to the config file"},
            "query": {"type": "string", "minLength": 1,
                      "description": "One SQL statement; :name parameters become arguments"},
            "readonly": {"type": "boolean", "default": True},
            "max_rows": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1,
                         "default": DEFAULT_MAX_ROWS},
        },
    }

    def bind(self, tool: ToolConfig, ctx: BindContext) -> Binding:
        """Check the statement against the database once, at compile time."""
        opts = tool.backend.options
        query = str(opts.get("query", ""))
        readonly = bool(opts.get("readonly", True))
        max_rows = int(opts.get("max_rows", DEFAULT_MAX_ROWS))
        path = _database_path(tool)
        try:
            names = named_parameters(query)
        except ValueError as exc:
            raise _error(tool, f"query: {exc}") from None
        if not sqlite3.complete_statement(query.rstrip().rstrip(";") + ";"):
            raise _error(tool, "query: not a complete SQL statement")
        if readonly and not path.is_file():
            raise _error(tool, f"database: no such file: {path}")
        writes: set[int] = set()
        try:
            with _closing(_connect(path, readonly)) as conn:
                conn.set_authorizer(_recorder(writes))
                conn.execute(f"EXPLAIN {query}", dict.fromkeys(names))  # parses; runs nothing
        except sqlite3.Error as exc:
            raise _error(tool, f"query: {exc}") from None
        if readonly and writes:
            raise _error(tool, "query: the statement changes the database, and the tool "
                         "is read-only (set `readonly: false` to allow it)")
        declared = set(tool.params)
        schema = {
            "type": "object",
            "properties": {n: dict(tool.params.get(n, ANY_SCALAR)) for n in names},
            "required": [n for n in names if "default" not in tool.params.get(n, {})],
            "additionalProperties": False,
        }
        unused = sorted(declared - set(names))
        if unused:
            raise _error(tool, f"params not used in the query: {', '.join(unused)} "
                         f"(write :{unused[0]} in the SQL)")
        defaults = {n: tool.params[n]["default"] for n in names
                    if "default" in tool.params.get(n, {})}

        async def invoke(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
            values = {**defaults, **{n: arguments[n] for n in names if n in arguments}}
            stop = threading.Event()
            try:
                return await anyio.to_thread.run_sync(
                    _run, path, readonly, query, values, max_rows, stop)
            finally:
                stop.set()  # cancelled or done: a still-running statement is interrupted

        return Binding(invoke=invoke, input_schema=schema, output="structured",
                       description=f"Run SQL on {path.name}: {query.strip()}")


def _run(path: Path, readonly: bool, query: str, values: dict[str, Any], max_rows: int,
         stop: threading.Event) -> ToolResult:
    with _closing(_connect(path, readonly)) as conn:
        conn.set_progress_handler(lambda: 1 if stop.is_set() else 0, 10_000)
        try:
            cursor = conn.execute(query, values)
            if cursor.description is None:  # a statement without rows (readonly: false)
                conn.commit()
                return ToolResult.json({"rows_affected": cursor.rowcount})
            columns = [d[0] for d in cursor.description]
            rows = cursor.fetchmany(max_rows + 1)
        except sqlite3.Error as exc:
            return ToolResult.error(f"SQLite error: {exc}")
    truncated = len(rows) > max_rows
    return ToolResult.json({"columns": columns,
                            "rows": [dict(zip(columns, r, strict=True)) for r in rows[:max_rows]],
                            "truncated": truncated})


_WRITES = {getattr(sqlite3, n) for n in dir(sqlite3) if n.startswith(
    ("SQLITE_INSERT", "SQLITE_UPDATE", "SQLITE_DELETE", "SQLITE_CREATE_", "SQLITE_DROP_",
     "SQLITE_ALTER_", "SQLITE_REINDEX", "SQLITE_ANALYZE"))}


def _recorder(writes: set[int]) -> Any:
    def authorize(action: int, *_: object) -> int:
        if action in _WRITES:
            writes.add(action)
        return _guard(action)
    return authorize


def _guard(action: int, *_: object) -> int:
    # Another database file is never reachable from a tool, read-only or not.
    return sqlite3.SQLITE_DENY if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH) \
        else sqlite3.SQLITE_OK


def _connect(path: Path, readonly: bool) -> sqlite3.Connection:
    if readonly:
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, check_same_thread=False)
        conn.execute("PRAGMA query_only = ON")
    else:
        conn = sqlite3.connect(path, check_same_thread=False)
    conn.set_authorizer(_guard)
    return conn


class _closing:
    """sqlite3.Connection's own context manager commits but does not close."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        return self.conn

    def __exit__(self, *exc: object) -> None:
        self.conn.close()


def _database_path(tool: ToolConfig) -> Path:
    raw = Path(os.path.expanduser(str(tool.backend.options.get("database", ""))))
    if raw.is_absolute():
        return raw
    declared_in = Path(tool.backend.origin.file)
    base = declared_in.parent if declared_in.is_file() else Path.cwd()
    return (base / raw).resolve()


def _error(tool: ToolConfig, message: str) -> CompileError:
    o = tool.backend.origin
    return CompileError([Problem(message, file=o.file, line=o.line, column=o.column,
                                 key_path=o.key_path or f"servers.{tool.server}.tools."
                                 f"{tool.name}.sqlite")])
