"""The sqlite kind through toolhost's real loader and compiler, on a real database file."""

from __future__ import annotations

import sqlite3
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from toolhost_sqlite.params import named_parameters

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.loader import load_config
from toolhost.errors import CompileError
from toolhost.plugins import activate


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as conn:
        conn.executescript("""
            CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, total REAL);
            INSERT INTO orders (customer, total) VALUES ('ada', 10.5), ('ada', 3), ('bob', 7);
        """)
    conn.close()
    return path


def write_config(tmp_path: Path, tools: str) -> Path:
    path = tmp_path / "app.yaml"
    path.write_text("toolhost: 1\nplugins: [toolhost-sqlite]\nservers:\n  shop:\n    tools:\n"
                    + textwrap.indent(textwrap.dedent(tools), "      "))
    return path


def call(config_path: Path, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    config = load_config(config_path, layers=False)
    compiled = compile_tools(config, kinds=activate(config.plugins).kinds)

    async def go() -> dict[str, Any]:
        try:
            (found,) = [t for t in compiled.servers["shop"] if t.name == tool]
            return (await found.call(arguments, CallContext())).to_mcp()
        finally:
            await compiled.aclose()

    return anyio.run(go)


def test_named_parameters_are_bound_not_pasted(tmp_path: Path, db: Path) -> None:
    path = write_config(tmp_path, """
        orders_for:
          sqlite:
            database: shop.db
            query: SELECT id, total FROM orders WHERE customer = :customer ORDER BY id LIMIT :n
          params:
            customer: {type: string}
            n: {type: integer, default: 10}
    """)
    out = call(path, "orders_for", {"customer": "ada"})
    assert out["structuredContent"] == {"columns": ["id", "total"], "truncated": False,
                                        "rows": [{"id": 1, "total": 10.5},
                                                 {"id": 2, "total": 3}]}
    injected = call(path, "orders_for", {"customer": "x' OR 1=1 --", "n": 5})
    assert injected["structuredContent"]["rows"] == []
    truncated = call(path, "orders_for", {"customer": "ada", "n": 1})
    assert truncated["structuredContent"]["rows"] == [{"id": 1, "total": 10.5}]
    bad = call(path, "orders_for", {"customer": 3})
    assert bad["isError"] and "customer" in bad["content"][0]["text"]


def test_readonly_by_default_and_writes_when_allowed(tmp_path: Path, db: Path) -> None:
    path = write_config(tmp_path, """
        add:
          sqlite: {database: shop.db, query: "INSERT INTO orders (customer, total) VALUES (:c, :t)"}
    """)
    with pytest.raises(CompileError, match=r"app\.yaml:\d+:\d+: .*the tool is read-only"):
        call(path, "add", {"c": "eve", "t": 1})
    path = write_config(tmp_path, """
        add:
          sqlite:
            database: shop.db
            readonly: false
            query: "INSERT INTO orders (customer, total) VALUES (:c, :t)"
          params: {c: {type: string}, t: {type: number}}
    """)
    assert call(path, "add", {"c": "eve", "t": 1})["structuredContent"] == {"rows_affected": 1}
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM orders WHERE customer='eve'").fetchone() == (1,)
    conn.close()


def test_compile_errors_name_the_config_line(tmp_path: Path, db: Path) -> None:
    path = write_config(tmp_path, """
        typo:
          sqlite: {database: shop.db, query: "SELECT nope FROM orders"}
        missing:
          sqlite: {database: absent.db, query: "SELECT 1"}
        attach:
          sqlite: {database: shop.db, query: "ATTACH DATABASE 'x.db' AS x", readonly: false}
        extra:
          sqlite: {database: shop.db, query: "SELECT 1"}
          params: {unused: {type: string}}
    """)
    with pytest.raises(CompileError) as info:
        call(path, "typo", {})
    text = str(info.value)
    assert "servers.shop.tools.typo" in text and "no such column: nope" in text
    assert "no such file" in text and "absent.db" in text
    assert "not authorized" in text  # ATTACH is refused even when not read-only
    assert "params not used in the query: unused" in text


def test_parameter_scanner_skips_strings_and_comments() -> None:
    sql = "SELECT ':no', \"a:b\" FROM t -- :nope\nWHERE x = :x AND y = :y /* :z */ AND x = :x"
    assert named_parameters(sql) == ["x", "y"]
    with pytest.raises(ValueError, match="use :name parameters"):
        named_parameters("SELECT * FROM t WHERE x = ?")
