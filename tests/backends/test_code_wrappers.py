"""Programs that run another program (``timeout -s KILL 5``, ``flock FILE``, ``docker run
IMAGE``, ``uv run``, ``sg GROUP``, ``parallel``, ``tmux new-session`` ...): a value in the
program's place, in a shell command line they run, or in an interpreter's code behind them
is a load error; values the program only reads as data still load."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from toolhost.backends.code_args import Token, run_programs
from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import Config, cmd, run

pytestmark = pytest.mark.anyio

V = "{{ v }}"


@pytest.mark.parametrize("argv", [
    ["timeout", "-s", "KILL", "5", V],  # -s takes an argument: 5 is the duration
    ["timeout", "--kill-after", "2", "5", "sh", "-c", V],
    ["flock", "/tmp/l", V],
    ["flock", "-w", "3", "/tmp/l", "sh", "-c", V],
    ["flock", "/tmp/l", "-c", V],
    ["chrt", "-f", "10", V],
    ["setarch", "x86_64", "-R", V],
    ["sudo", "--user", "x", V],
    ["sudo", "--bogus", "x", V],  # unknown option: with an argument or without, both read
    ["sudo", "-s", "echo", V],  # a shell command line
    ["docker", "run", "--rm", "alpine", V],
    ["docker", "run", "--rm", "-it", "-v", "/d:/d", "alpine", "sh", "-c", V],
    ["docker", "run", V],  # the image
    ["docker", "run", "--entrypoint", V, "alpine"],
    ["docker", "--context", "c", "container", "run", "alpine", V],
    ["docker", V, "alpine", "id"],  # the subcommand
    ["podman", "exec", "c1", "sh", "-c", V],
    ["docker", "compose", "run", "--rm", "web", "sh", "-c", V],
    ["docker-compose", "-f", "c.yml", "exec", "-T", "web", V],
    ["kubectl", "-n", "ns", "exec", "pod", "--", V],
    ["ip", "netns", "exec", "ns", V],
    ["uv", "run", "--with", "x", V],
    ["poetry", "run", "python", "-c", V],
    ["npm", "exec", "--", V],
    ["bundle", "exec", V],
    ["deno", "run", V],
    ["sg", "staff", "echo " + V],
    ["parallel", V, ":::", "a"],
    ["parallel", "-j", "4", ":::", V],  # no command: each argument is one
    ["hyperfine", "--prepare", V, "true"],
    ["hyperfine", V],
    ["tmux", "new-session", "-d", V],
    ["tmux", "send-keys", "-t", "s", V, "Enter"],
    ["screen", "-dmS", "s", V],
    ["xterm", "-e", V],
    ["gdb", "--args", V],
    ["sshpass", "-p", "pw", V],
    ["bwrap", "--ro-bind", "/", "/", V],
    ["start-stop-daemon", "--start", "--exec", V],
    ["nix-shell", "--run", V],
    ["sbatch", "--wrap=" + V],
    ["env", "--split-string=sh -c", V],
    ["busybox", "sh", "-c", V],  # a multi-call binary: its first operand is the program
    ["/bin/busybox", "awk", V, "f"],
    ["toybox", "sh", "-c", V],
    ["busybox", "timeout", "5", "sh", "-c", V],
    ["busybox", V],
    ["caffeinate", "-i", "sh", "-c", V],
    ["nice", "-n", "5", "timeout", "5", "flock", "/l", "docker", "run", "a", "sh", "-c", V],
    # (backends25) the directory or root the program runs in: its configuration runs
    ["env", "-C", V, "make"],
    ["env", "--chdir", V, "git", "status"],
    ["sudo", "-D", V, "make"],
    ["sudo", "--chroot=" + V, "make"],
    ["nsenter", "--wd=" + V, "make"],
    ["unshare", "-w", V, "npm", "test"],
    ["bwrap", "--chdir", V, "make"],
    ["chroot", V, "ls"],  # the new root: its ls runs
])
def test_a_value_a_wrapper_runs_is_a_load_error(config: Config, argv: list[Any]) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(argv, options={"allow_dash": []})}))
    problem = info.value.problems[0]
    assert problem.key_path.startswith("servers.demo.tools.t.command.argv["), problem
    assert "code" in problem.message or "chooses the program" in problem.message, problem
    compile_tools(config({"t": cmd(argv, options={"unsafe_code_placeholders": True})}))


@pytest.mark.parametrize("argv", [
    ["timeout", "-s", "KILL", "5", "cat", "--", V],
    ["timeout", V, "true"],  # the duration is data
    ["flock", "/tmp/l", "cat", "--", V],
    ["sudo", "-u", "x", "cat", "--", V],
    ["nice", "-5", "grep", "-e", "x", "--", V],
    ["docker", "run", "--rm", "alpine", "cat", "--", V],
    ["docker", "exec", V, "ls"],  # which container: data, like a host
    ["docker", "ps", "--filter", V],
    ["docker", "compose", "exec", "-T", "db", "psql", "-d", V, "-c", "select 1"],
    ["kubectl", "exec", "pod", "--", "cat", "--", V],
    ["uv", "run", "python", "script.py", V],
    ["parallel", "echo", ":::", V],  # parallel quotes the arguments it substitutes
    ["gdb", "-batch", "-ex", "bt", "./prog", V],  # the core file
    ["tmux", "new-session", "-d", "-s", V, "htop"],
    ["busybox", "grep", "-e", V, "f"],
    ["env", "-C", "/srv/app", "make", V],  # the config's directory, a target
    ["env", "-u", V, "make"],
    ["chroot", "/srv/root", "ls", "--", V],
])
def test_data_behind_a_wrapper_still_loads(config: Config, argv: list[Any]) -> None:
    compile_tools(config({"t": cmd(argv, options={"allow_dash": ["v"]})}))


@pytest.mark.parametrize(("argv", "programs"), [
    (["timeout", "-s", "KILL", "5", "sh"], ["sh"]),
    (["sudo", "--bogus", "x", "sh"], ["sh", "x"]),  # both readings
    (["docker", "run", "alpine", "sh"], ["sh"]),
    (["env", "-S", "sh -c x"], []),  # a command line: no one program
])
def test_which_program_runs(argv: list[str], programs: list[str]) -> None:
    tokens = [Token(f".argv[{k}]", text, False) for k, text in enumerate(argv)]
    assert sorted(argv[k] for k in run_programs(tokens)) == sorted(programs)


@pytest.mark.skipif(shutil.which("flock") is None or shutil.which("timeout") is None,
                    reason="needs flock and timeout")
async def test_the_safe_form_behind_wrappers_runs_the_value_as_data(config: Config,
                                                                   tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    hostile = f"$(touch {marker})"
    with pytest.raises(CompileError):
        compile_tools(config({"t": cmd(["timeout", "-s", "KILL", "5", "flock",
                                        str(tmp_path / "l"), "sh", "-c", "echo " + V])}))
    safe = ["timeout", "-s", "KILL", "5", "flock", str(tmp_path / "l"), "sh", "-c",
            'printf %s "$1"', "sh", V]
    result = await run(config({"t": cmd(safe)}), "t", {"v": hostile})
    assert not result.is_error, result.text_content
    assert result.text_content == hostile
    assert not marker.exists()


def test_a_long_chain_of_wrappers_is_a_located_error_not_a_recursion_error(
        config: Config) -> None:
    # the scan recursed once per wrapper: 3,000 `nice` passed Python's recursion limit
    argv = ["nice"] * 3000 + ["sh", "-c", V]
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(argv)}))
    assert info.value.problems[0].key_path.endswith("argv[3002]")


def test_many_unknown_options_make_the_rest_a_shell_line(config: Config) -> None:
    # each option the table does not know is read two ways; past a few, fail closed
    argv = ["nice", *["--q", "echo"] * 20, V]
    tokens = [Token(f".argv[{k}]", text, text == V) for k, text in enumerate(argv)]
    assert run_programs(tokens) == []
    with pytest.raises(CompileError):
        compile_tools(config({"t": cmd(argv)}))
