"""A value on the stdin of a program that reads its program or commands from stdin is code
the model wrote: refused at load for interpreters given no script (through wrappers too:
``[env, sh]``, ``[timeout, 5, python3]``), for programs that read commands from stdin
whatever their operands (``ed``, ``bc``, ``gdb``, ``at``, ``sftp``) and for SQL shells given
no statement (``sqlite3 db`` runs ``.shell``); data on stdin still loads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from toolhost.compile import compile_tools
from toolhost.config.model import HostConfig
from toolhost.errors import CompileError

Config = Callable[..., HostConfig]

CODE = [
    ["redis-cli"], ["redis-cli", "-h", "db", "-n", "2"], ["valkey-cli", "--pipe"],
    ["redis-cli", "-x", "EVAL"], ["redis-cli", "-x", "script", "load"],
    ["redis-cli", "-X", "S", "EVAL", "S", "0"],
    ["timeout", "5", "keydb-cli", "-p", "6380"],
    ["gs", "-"], ["gs", "-dSAFER", "-dBATCH", "-"], ["/usr/bin/gs"], ["gswin64c", "-q"],
    ["sh"], ["bash", "-s"], ["bash", "-"], ["zsh"], ["tcsh"], ["python3"], ["python3.12"],
    ["pypy3"], ["perl"], ["ruby"], ["irb"], ["node"], ["deno"], ["php"], ["lua5.4"],
    ["luajit"], ["tclsh"], ["tclsh8.6"], ["expect"], ["guile"], ["Rscript", "-"], ["R"],
    ["julia"], ["jshell"], ["ghci"], ["dc"], ["m4"], ["crontab"], ["crontab", "-"],
    ["mongosh"], ["/usr/bin/python3"],
    # through wrappers: stdin goes to the program they run
    ["env", "sh"], ["env", "FOO=1", "bash"], ["/usr/bin/env", "python3"],
    ["timeout", "5", "sh"], ["nice", "-n", "5", "perl"], ["nohup", "ruby"],
    ["setsid", "node"], ["stdbuf", "-o", "0", "sh"], ["sudo", "-u", "x", "bash"],
    ["timeout", "5", "env", "sh"],
    # commands from stdin whatever the operands
    ["ed", "notes.txt"], ["bc"], ["bc", "-l", "lib.bc"], ["ex", "file"], ["vim", "-es"],
    ["gdb", "./prog"], ["at", "now"], ["batch"], ["sftp", "host"], ["ftp", "host"],
    # SQL shells given no statement
    ["sqlite3", "db.sqlite"], ["sqlite3"], ["psql"], ["psql", "mydb"], ["mysql", "db"],
    ["duckdb", "x.db"],
]
DATA = [
    ["redis-cli", "-x", "SET", "k"], ["redis-cli", "-x", "HSET", "h", "f"],
    ["cat"], ["sh", "-c", "read x; echo \"$x\""], ["sh", "script.sh"],
    ["python3", "script.py"], ["python3", "-c", "import sys; print(sys.stdin.read())"],
    ["perl", "-ne", "print"], ["node", "app.js"], ["env", "cat"], ["timeout", "5", "wc"],
    ["psql", "-c", "COPY t FROM STDIN"], ["sqlite3", "db", ".import /dev/stdin t"],
    ["mysql", "-e", "LOAD DATA LOCAL INFILE '/dev/stdin' INTO TABLE t"], ["jq", "."],
    ["m4", "macros.m4"], ["dc", "prog.dc"],
]  # (crontab -l ignores stdin but is refused: fail closed, as crontab's other forms install
#    a table read from stdin)


def _tool(argv: list[str], **options: Any) -> dict[str, Any]:
    return {"kind": "command", "options": {"argv": argv, "stdin": "{{ text }}", **options}}


@pytest.mark.parametrize("argv", CODE, ids=" ".join)
def test_a_value_on_a_code_reading_stdin_is_refused(config: Config, argv: list[str]) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": _tool(argv)}))
    (problem,) = info.value.problems
    assert problem.key_path == "servers.demo.tools.t.command.stdin"
    assert "from stdin: a value would become code" in problem.message


@pytest.mark.parametrize("argv", DATA, ids=" ".join)
def test_data_on_stdin_loads(config: Config, argv: list[str]) -> None:
    compile_tools(config({"t": _tool(argv)}))


@pytest.mark.parametrize("argv", CODE[:5], ids=" ".join)
def test_unsafe_code_placeholders_allows_it(config: Config, argv: list[str]) -> None:
    compile_tools(config({"t": _tool(argv, unsafe_code_placeholders=True)}))


def test_a_literal_stdin_is_the_configs(config: Config) -> None:
    compile_tools(config({"t": {"kind": "command",
                                "options": {"argv": ["sh"], "stdin": "echo hi"}}}))


@pytest.mark.parametrize("argv", [
    ["curl", "-K", "-", "https://example.com/"],  # options: output, upload-file, url ...
    ["curl", "-sK-"],
    ["curl", "--config=/dev/stdin"],
    ["sed", "-f", "-", "data"],
    ["sed", "-f", "/dev/stdin", "data"],
    ["awk", "-f", "/dev/fd/0", "data"],
    ["make", "-f", "-"],
    ["psql", "-f", "-"],
    ["ssh", "-F", "/dev/stdin", "host", "uptime"],
    ["node", "-r", "/proc/self/fd/0", "app.js"],
    ["bash", "/dev/stdin"],
    ["timeout", "5", "sed", "-nf", "-", "data"],
], ids=" ".join)
def test_a_stdin_the_argv_names_as_code_or_config_is_refused(config: Config,
                                                             argv: list[str]) -> None:
    # backends24: `-` or /dev/stdin where a program reads a script or configuration file
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": _tool(argv)}))
    (problem,) = info.value.problems
    assert problem.key_path == "servers.demo.tools.t.command.stdin", problem
    assert "the argv names the stdin there" in problem.message, problem


@pytest.mark.parametrize("argv", [
    ["grep", "-e", "x", "-"], ["sed", "-e", "s/a/b/", "-"], ["awk", "{print}", "-"],
    ["tar", "-xf", "-", "-C", "out"], ["curl", "-T", "-", "https://example.com/"],
    ["curl", "--data-binary", "@-", "https://example.com/"], ["sort", "-o", "out", "-"],
    ["python3", "script.py", "/dev/stdin"],
], ids=" ".join)
def test_a_stdin_the_argv_names_as_data_loads(config: Config, argv: list[str]) -> None:
    compile_tools(config({"t": _tool(argv)}))
