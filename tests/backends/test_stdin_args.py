"""xargs turns its stdin's words into arguments of its command: a stdin value is read as if
it were at the end of the argv (or at each argument holding -I's replace string)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import Config, cmd, run

pytestmark = pytest.mark.anyio

STDIN = {"stdin": "{{ v }}"}


@pytest.mark.parametrize(("argv", "what"), [
    (["xargs", "rm"], "option"),
    (["xargs", "-0", "grep", "-n", "x"], "option"),
    (["timeout", "5", "xargs", "-r", "ls"], "option"),
    (["xargs", "-I", "{}", "cp", "{}", "/tmp"], "option"),
    (["xargs", "-I", "{}", "sh", "-c", "echo {}"], "code"),
    (["xargs", "-i", "python3", "-c", "print('{}')"], "code"),
    (["xargs", "sh"], "code"),  # the first word is the script file
    (["xargs", "env"], "code"),  # env runs the first word as the program
])
def test_stdin_words_that_xargs_makes_options_or_code_are_load_errors(
        config: Config, argv: list[Any], what: str) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(argv, options=STDIN)}))
    problem = info.value.problems[0]
    assert problem.key_path.endswith(".stdin"), problem
    assert ("be an option" if what == "option" else "become code") in problem.message, problem


@pytest.mark.parametrize("argv", [
    ["xargs", "rm", "--"],
    ["xargs", "-0", "grep", "-n", "x", "--"],
    ["xargs", "-I", "{}", "cp", "--", "{}", "/tmp"],
    ["xargs", "sh", "-c", 'echo "$@"', "sh"],  # the words are $1...: data
])
def test_stdin_words_after_dashdash_or_as_data_still_load(config: Config,
                                                         argv: list[Any]) -> None:
    compile_tools(config({"t": cmd(argv, options=STDIN)}))


def test_allow_dash_lets_the_words_be_options(config: Config) -> None:
    compile_tools(config({"t": cmd(["xargs", "ls"], options={**STDIN, "allow_dash": ["v"]})}))


@pytest.mark.skipif(shutil.which("xargs") is None, reason="needs xargs")
async def test_the_safe_form_keeps_words_operands(config: Config, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    argv = ["xargs", "-I", "{}", "sh", "-c", 'printf "%s" "$1"', "sh", "{}"]
    result = await run(config({"t": cmd(argv, options=STDIN)}), "t",
                       {"v": f"$(touch {marker})"})
    assert not result.is_error, result.text_content
    assert result.text_content == f"$(touch {marker})"
    assert not marker.exists()
    listed = await run(config({"t": cmd(["xargs", "ls", "--"],
                                        options={**STDIN, "cwd": str(tmp_path)})}),
                       "t", {"v": "-la"})
    assert "-la" in result.text_content or listed.is_error  # ls -- -la: no such file
    assert "No such file" in listed.text_content, listed.text_content


@pytest.mark.parametrize(("argv", "refused"), [
    (["env", "-S", "sh -e"], True),
    (["/usr/bin/env", "-Spython3 -u"], True),
    (["env", "--split-string=timeout 5 bash"], True),
    (["env", "-S", "cat -n"], False),  # cat reads data
    (["bash", "-e"], True),  # -e is errexit: bash still reads its program from stdin
    (["sh", "-eu", "-o", "pipefail"], True),
    (["bash", "-ec", "cat"], False),
])
def test_the_program_reading_the_stdin_is_found(config: Config, argv: list[Any],
                                                      refused: bool) -> None:
    spec = cmd(argv, options=STDIN)
    if not refused:
        compile_tools(config({"t": spec}))
        return
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": spec}))
    assert "reads its program from stdin" in info.value.problems[0].message


@pytest.mark.parametrize(("argv", "refused"), [
    (["xargs", "-a", "{{ v }}", "rm"], "be an option"),  # a file of words `-rf /`
    (["xargs", "-a", "{{ v }}", "-I{}", "sh", "-c", "echo {}"], "become code"),
    (["xargs", "--arg-file", "{{ v }}", "env"], "become code"),
    (["xargs", "-a", "{{ v }}", "rm", "--"], None),
    (["xargs", "-a", "{{ v }}", "sh", "-c", 'echo "$@"', "sh"], None),
    (["xargs", "-a", "list.txt", "rm", "--", "{{ v }}"], None),
])
def test_a_file_a_value_names_for_xargs_a_is_read_as_its_stdin(
        config: Config, argv: list[Any], refused: str | None) -> None:
    spec = config({"t": cmd(argv, options={"allow_dash": ["v"]})})
    if refused is None:
        compile_tools(spec)
        return
    with pytest.raises(CompileError) as info:
        compile_tools(spec)
    problem = info.value.problems[0]
    assert "xargs -a reads its words from" in problem.message, problem
    assert refused in problem.message, problem
    assert ".argv[" in problem.key_path, problem
