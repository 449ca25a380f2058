"""A database name a value writes as a connection string chooses the server: libpq's
programs read ``host=...``/``postgresql://...`` there over the config's ``-h``/``-p`` (checked
for real with psql and a listener: it connected), MongoDB's read ``host/db`` and
``mongodb://``. Refused at the call unless ``allow_remote: true``; plain names, JSON
queries and a connection string the config writes itself still run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from .test_command_backend import Config, cmd, run
from .test_ffmpeg_values import _recorder

pytestmark = pytest.mark.anyio
DB = "{{ db }}"



@pytest.mark.parametrize("value", ["host=127.0.0.1 port={port} dbname=x",
                                   "postgresql://127.0.0.1:{port}/x", "dbname=x port={port}"])
async def test_psql_never_connects_where_a_value_says(config: Config, listener: Any,
                                                      value: str) -> None:
    psql = shutil.which("psql")
    if psql is None:
        pytest.skip("psql is not installed")
    port, got = listener
    cfg = config({"t": cmd([psql, "-h", "127.0.0.1", "-p", "1", "-w", DB, "-c", "select 1"],
                           options={"env": {"PGPASSWORD": "pw", "PGCONNECT_TIMEOUT": "3"}})})
    result = await run(cfg, "t", {"db": value.format(port=port)})
    assert result.is_error and "a connection string or a server address" in result.text_content
    assert got == []


@pytest.mark.parametrize("name", ["psql", "pg_dump", "pg_restore", "pgbench", "vacuumdb"])
@pytest.mark.parametrize("shape", [[DB], ["-d", DB], ["-d" + DB], ["--dbname=" + DB],
                                   ["--maintenance-db", DB], ["--no-psqlrc", DB],
                                   ["-U", "app", "--", DB]])
@pytest.mark.parametrize("value", ["host=evil port=5432", "postgresql://evil/x",
                                   "POSTGRES://evil", "x user=postgres"])
async def test_a_libpq_database_name_is_never_a_connection_string(
        config: Config, tmp_path: Path, name: str, shape: list[str], value: str) -> None:
    program = _recorder(tmp_path, name)
    for argv in ([program, "-h", "db.internal", *shape], ["timeout", "5", program, *shape]):
        result = await run(config({"t": cmd(argv)}), "t", {"db": value})
        assert result.is_error and "libpq reads 'host='" in result.text_content, result


@pytest.mark.parametrize("argv", [[DB], ["--quiet", DB], ["--nodb", "--norc", DB],
                                  ["--db", DB]])
@pytest.mark.parametrize("value", ["evil.example/test", "evil:27017/test", "mongodb://evil",
                                   "mongodb+srv://u@evil/x", "user@evil"])
async def test_a_mongo_database_is_never_a_server(config: Config, tmp_path: Path,
                                                  argv: list[str], value: str) -> None:
    for name in ("mongosh", "mongodump"):
        cfg = config({"t": cmd([_recorder(tmp_path, name), *argv])})
        result = await run(cfg, "t", {"db": value})
        assert result.is_error and "MongoDB reads 'host/db'" in result.text_content, result


@pytest.mark.parametrize(("name", "argv", "args"), [
    ("psql", ["-h", "db.internal", DB, "-c", "select 1"], {"db": "my_db"}),
    ("psql", ["host=db.internal dbname=" + DB], {"db": "my_db"}),
    ("psql", ["-v", "x=1", "-d", DB], {"db": "x-y.z"}),
    ("pg_dump", ["-d", "app", "--table", "{{ t }}"], {"t": "public.users"}),
    ("mongosh", ["--quiet", DB], {"db": "test"}),
    ("mongoexport", ["--collection", "{{ c }}", "--query", "{{ q }}", "--db", "app"],
     {"c": "things", "q": '{"a": "x:y/z"}'}),
])
async def test_names_and_queries_still_run(config: Config, tmp_path: Path, name: str,
                                           argv: list[str], args: dict[str, str]) -> None:
    program = _recorder(tmp_path, name)
    result = await run(config({"t": cmd([program, *argv])}), "t", args)
    assert not result.is_error, result
    assert all(any(v in a for a in json.loads(result.text_content)) for v in args.values())


async def test_allow_remote_lets_the_model_choose_the_server(config: Config,
                                                             tmp_path: Path) -> None:
    cfg = config({"t": cmd([_recorder(tmp_path, "psql"), DB],
                           options={"allow_remote": True})})
    result = await run(cfg, "t", {"db": "postgresql://replica.internal/app"})
    assert not result.is_error and json.loads(result.text_content) == [
        "postgresql://replica.internal/app"]


@pytest.mark.parametrize("value", ["md:my_db", "s3://bucket/x.duckdb", "https://evil/x.db",
                                   "MotherDuck:x"])
async def test_a_duckdb_database_is_never_remote(config: Config, tmp_path: Path,
                                                 value: str) -> None:
    program = _recorder(tmp_path, "duckdb")
    for argv in ([program, DB], [program, "-readonly", DB]):
        result = await run(config({"t": cmd(argv)}), "t", {"db": value})
        assert result.is_error and "DuckDB opens 'md:'" in result.text_content, result
    ok = await run(config({"t": cmd([program, "./" + DB])}), "t", {"db": "md:x"})
    assert not ok.is_error, ok
