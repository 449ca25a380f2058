"""redis-cli's operands are a command the server runs: a value as the command word, as
EVAL's script, SCRIPT/FUNCTION LOAD's code, MODULE LOAD's library, CONFIG SET's setting or
REPLICAOF's host chooses code, so it is a load error; a value as a key or data loads."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import Config, cmd

V = "{{ v }}"


@pytest.mark.parametrize(("argv", "index"), [
    (["redis-cli", V], 1),
    (["redis-cli", V, "k"], 1),
    (["redis-cli", "-h", "localhost", "-p", "6379", V, "x"], 5),
    (["redis-cli", "--no-raw", "-n", "2", V], 4),
    (["redis-cli", "-X", "tag", V], 3),
    (["redis-cli", "EVAL", V, "0"], 2),
    (["redis-cli", "eval", V, "1", "k"], 2),
    (["redis-cli", "Eval_RO", "return " + V, "0"], 2),
    (["redis-cli", "EVALSHA", V, "0"], 2),
    (["redis-cli", "FCALL", V, "0"], 2),
    (["redis-cli", "SCRIPT", "LOAD", V], 3),
    (["redis-cli", "SCRIPT", V, "x"], 2),
    (["redis-cli", "FUNCTION", "LOAD", "REPLACE", V], 4),
    (["redis-cli", "MODULE", "LOAD", V], 3),
    (["redis-cli", "module", "loadex", V], 3),
    (["redis-cli", "CONFIG", "SET", "dir", V], 4),
    (["redis-cli", "config", "set", V, "x"], 3),
    (["redis-cli", "CONFIG", "SET", "dbfilename", V], 4),
    (["redis-cli", "REPLICAOF", V, "6379"], 2),
    (["redis-cli", "SLAVEOF", V, "6379"], 2),
    (["redis-cli", "DEBUG", V], 2),
    (["redis-cli", "ACL", "SETUSER", V, "on"], 3),
    (["/usr/local/bin/redis-cli", "EVAL", V, "0"], 2),
    (["valkey-cli", V], 1),
    (["keydb-cli", "EVAL", V, "0"], 2),
    (["env", "redis-cli", V], 2),
    (["timeout", "5", "redis-cli", "-h", "h", V], 5),
    (["redis-cli", "--cluster", V, "h:1"], 2),
    (["redis-cli", "--cluster", "call", "h:1", V], 4),
    (["redis-cli", "--cluster", "call", "h:1", "EVAL", V, "0"], 5),
])
def test_a_value_that_chooses_the_servers_code_is_a_load_error(
        config: Config, argv: list[Any], index: int) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(argv)}))
    problem = next(p for p in info.value.problems if "redis" in p.message
                   or "valkey" in p.message or "keydb" in p.message)
    assert problem.key_path == f"servers.demo.tools.t.command.argv[{index}]", problem
    assert "\n" not in problem.message
    compile_tools(config({"t": cmd(argv, options={"unsafe_code_placeholders": True})}))


@pytest.mark.parametrize("argv", [
    ["redis-cli", "GET", V],
    ["redis-cli", "SET", "k", V],
    ["redis-cli", "-h", V, "-p", "6379", "PING"],
    ["redis-cli", "-n", V, "GET", "k"],
    ["redis-cli", "EVAL", "return redis.call('GET', KEYS[1])", "1", V],
    ["redis-cli", "CONFIG", "GET", V],
    ["redis-cli", "SCRIPT", "EXISTS", V],
    ["redis-cli", "HSET", "h", V, V],
    ["redis-cli", "--cluster", "check", V],
])
def test_a_value_as_a_key_or_data_loads(config: Config, argv: list[Any]) -> None:
    compile_tools(config({"t": cmd(argv)}))
