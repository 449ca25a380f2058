"""A database name that is really a connection string: the value chooses the server.

libpq's programs (``psql``, ``pg_dump``, ``pg_restore``, ``pgbench`` ...) read a database
name that holds ``=`` or starts with ``postgresql://`` as a connection string, and its
``host=``, ``port=``, ``user=`` override the config's ``-h``/``-p``/``-U`` (checked for real:
``psql -h 127.0.0.1 -p 1 "host=... port=18800 dbname=x"`` connected to port 18800), sending
``PGPASSWORD`` to that host. MongoDB's shells and tools read an operand ``host/db``,
``host:port/db`` or ``mongodb://...`` as the server to connect to; DuckDB a database
``md:NAME`` (MotherDuck), ``s3://`` or ``https://`` as a remote one. :func:`conn_string` finds
an argument where a value does that (the database operand, ``-d``/``--dbname``), through
wrappers; ``argv`` refuses the call unless the tool sets ``allow_remote: true``. A
connection string the config writes (``"host=db.internal dbname={{ db }}"``) keeps the
keys the config's: only the value's own ``=`` counts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["conn_string"]

_LIBPQ = frozenset({"psql", "pg_dump", "pg_dumpall", "pg_restore", "pg_isready", "pgbench",
                    "vacuumdb", "reindexdb", "clusterdb", "pg_basebackup", "pg_receivewal",
                    "pg_recvlogical", "createdb", "dropdb", "createuser", "dropuser",
                    "pg_amcheck", "vacuumlo", "oid2name"})
_DUCKDB = frozenset({"duckdb"})
_MONGO = frozenset({"mongosh", "mongo", "mongodump", "mongorestore", "mongoexport",
                    "mongoimport", "mongostat", "mongotop", "mongofiles"})
# short options of these programs that take the next argument (the union of theirs)
_SHORT_ARG = frozenset("cdfhjLnNopPRsStTUvFIZEbDMlWa")
_DBNAME = frozenset({"-d", "--dbname", "--maintenance-db", "--db"})
# mongosh's and the tools' long options that take no argument (the operand may follow)
_MONGO_FLAGS = frozenset({
    "--quiet", "--nodb", "--norc", "--shell", "--tls", "--ssl", "--verbose", "--help",
    "--version", "--jsonArray", "--pretty", "--drop", "--gzip", "--oplog", "--oplogReplay",
    "--dryRun", "--forceTableScan", "--ipv6", "--tlsAllowInvalidCertificates",
    "--tlsAllowInvalidHostnames", "--tlsUseSystemCA", "--retryWrites", "--apiStrict",
    "--apiDeprecationErrors", "--json", "--build-info", "--smokeTests", "--no-color"})
_PG_URI = re.compile(r"(?i)postgres(ql)?://")
_MONGO_HOST = re.compile(r"[/:@]")
_SCHEME = re.compile(r"(?=[A-Za-z0-9+.-]*[A-Za-z])[A-Za-z0-9+.-]{2,}:")


def _name(program: str) -> str:
    base = program.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base[:-4] if base.endswith(".exe") else base


def conn_string(out: Sequence[str], valued: Sequence[tuple[int, int]]) -> tuple[str, str] | None:
    """(the argument, the program's family) for the first database argument a value makes
    a connection string or a server address, or None. ``valued``: (index in ``out``, length
    of the literal text before the value)."""
    from toolhost.backends.code_args import Token, run_programs

    values = dict(valued)
    runs = run_programs([Token("", text, k in values) for k, text in enumerate(out)])
    for start in runs:
        name = _name(out[start])
        family = "libpq" if name in _LIBPQ else "mongo" if name in _MONGO \
            else "duckdb" if name in _DUCKDB else None
        if family is None:
            continue
        for index, text, sure in _db_arguments(out, start):
            # the value's start within the database part (after '--dbname=', '-d')
            begin = values.get(index, -1) - (len(out[index]) - len(text))
            if index in values and _chooses_server(family, text, max(begin, 0), sure):
                return out[index], family
    return None


def _db_arguments(out: Sequence[str], start: int) -> list[tuple[int, str, bool]]:
    """(index, the database part, surely a database argument) of each argument that may name
    the database: operands, ``-d X``, ``-dX``, ``--dbname=X``. An option's argument is
    skipped; the argument after a long option not known to take one is either (not sure)."""
    found: list[tuple[int, str, bool]] = []
    j = start + 1
    while j < len(out):
        text = out[j]
        if text == "--":
            found.extend((k, out[k], True) for k in range(j + 1, len(out)))
            break
        if text.startswith("--"):
            option, eq, rest = text.partition("=")
            if eq and option in _DBNAME:
                found.append((j, rest, True))
            elif not eq and option not in _MONGO_FLAGS and j + 1 < len(out):
                found.append((j + 1, out[j + 1], option in _DBNAME))
                j += 1
        elif text.startswith("-") and len(text) > 1:
            letter, glued = text[1], text[2:]
            if letter == "d" and glued:
                found.append((j, glued, True))
            elif letter in _SHORT_ARG and not glued:
                if letter == "d" and j + 1 < len(out):
                    found.append((j + 1, out[j + 1], True))
                j += 1
        else:
            found.append((j, text, True))
        j += 1
    return found


def _chooses_server(family: str, text: str, begin: int, sure: bool) -> bool:
    """Whether the value (printed from ``begin`` on in ``text``) makes ``text`` name a
    server: its own ``=`` or a URI scheme it writes (libpq), a host part or a scheme it
    writes (MongoDB). Not ``sure``: it may be an option's argument (``--query {...}``), so
    only a scheme the value writes counts."""
    if family == "libpq":  # '=' in any option's argument is rare: fail closed
        scheme = _PG_URI.match(text)
        return (scheme is not None and begin < scheme.end()) or "=" in text[begin:]
    if family == "duckdb":  # a scheme the value writes: md:, s3://, https://
        scheme = _SCHEME.match(text)
        return sure and scheme is not None and begin < scheme.end()
    if begin == 0 and text[:10].lower().startswith("mongodb"):
        return True
    return sure and _MONGO_HOST.search(text, begin) is not None
