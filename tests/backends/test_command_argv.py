"""What runs is what the config says: values never dropped, shifted, or read as options.

Real subprocesses throughout: option-reading programs (sort, git, tar, find, grep) for the
attacks the issue reproduced, and a recorder script for the positions.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import ARGV_JSON, PY, Config, cmd, every_slot, every_slot_call, run

pytestmark = pytest.mark.anyio


async def test_an_empty_value_keeps_its_place(config: Config, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("b\na\n")
    cfg = config({"sort": cmd(["sort", "-o", "{{ out }}", "{{ file }}"],
                              options={"cwd": str(tmp_path)})})
    result = await run(cfg, "sort", {"out": "", "file": "victim.txt"})
    assert result.is_error  # sort cannot open '' for writing; the file is untouched
    assert victim.read_text() == "b\na\n"


async def test_optional_groups_and_list_items(config: Config) -> None:
    cfg = config({"t": cmd(
        [PY, "-c", ARGV_JSON, {"if": "out", "argv": ["-o", "{{ out }}"]},
         {"if": "verbose", "argv": ["-v"]}, "--", "{{ files }}"],
        params={"out": {"type": "string"}, "verbose": {"type": "boolean", "default": False},
                "files": {"type": "array", "items": {"type": "string"}}},
        required=("files",))})
    assert json.loads((await run(cfg, "t", {"files": ["a", "", "b"]})).text_content) == \
        ["--", "a", "", "b"]
    given = await run(cfg, "t", {"files": [], "out": "", "verbose": True})
    assert json.loads(given.text_content) == ["-o", "", "-v", "--"]
    # an explicit null is not given: the group is absent, like a left-out param
    none = await run(cfg, "t", {"files": ["x"], "out": None})
    assert none.is_error  # the schema says string: null never reaches the argv


async def test_literal_only_elements_are_optional_flags_value_elements_never_drop(
        config: Config) -> None:
    cfg = config({"t": cmd(
        [PY, "-c", ARGV_JSON, "{% if icase %}-i{% endif %}", "--", "{{ a }}", "x{{ b }}",
         "{{ '' }}", ""],
        params={"icase": {"type": "boolean", "default": False}, "a": {"type": "string"},
                "b": {"type": "string"}}, required=("a", "b"))})
    result = await run(cfg, "t", {"a": "", "b": ""})
    assert json.loads(result.text_content) == ["--", "", "x", "", ""]


@pytest.mark.parametrize("program", ["", "   ", "{# c #}", "{{ '' }}", "{{ prog }}",
                                     "{% if x %}ls{% endif %}", "ec\0ho"])
def test_the_program_must_be_a_non_empty_literal(config: Config, program: str) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd([program, "{{ x }}"])}))
    (problem,) = info.value.problems
    assert problem.key_path == "servers.demo.tools.t.command.argv[0]"
    assert problem.line == 4
    assert "program (argv[0])" in problem.message


@pytest.mark.parametrize("element", ["a\0b", "\0", "--x=\0{{ x }}", "{{ x }}\0"])
def test_a_nul_written_in_the_argv_is_a_load_error(config: Config, element: str) -> None:
    # the kernel ends an argument at a NUL: such a tool could never start
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(["echo", element, "{{ x }}"])}))
    (problem,) = info.value.problems
    assert problem.key_path == "servers.demo.tools.t.command.argv[1]"
    assert "NUL character" in problem.message


def test_an_optional_param_a_value_position_always_needs_is_a_load_error(
        config: Config) -> None:
    cfg = config({"t": cmd(["sort", "-o", "{{ out }}", "--", "{{ file }}"],
                           params={"out": {"type": "string"}, "file": {"type": "string"}},
                           required=("file",))})
    with pytest.raises(CompileError) as info:
        compile_tools(cfg)
    (problem,) = info.value.problems
    assert problem.key_path.endswith("command.argv[2]")
    assert "'out' is optional with no default" in problem.message
    assert "{if: out, argv: [...]}" in problem.hint


@pytest.mark.parametrize("value", ["-rf", "--output=/tmp/x", "-", "--", "-e", "-\n"])
async def test_leading_dash_values_are_refused_by_default(config: Config, value: str) -> None:
    cfg = every_slot(config)
    for tool, args in every_slot_call(value):
        result = await run(cfg, tool, args)
        assert result.is_error, (tool, result)
        name = next(iter(args))
        assert result.text_content.startswith(
            f"Refused to run the command: the value of '{name}' starts with '-'"), result


async def test_dashes_pass_after_a_literal_double_dash_when_allowed_or_glued(
        config: Config) -> None:
    cfg = config({
        "dd": cmd([PY, "-c", ARGV_JSON, "--", "{{ a }}", "{{ b }}"]),
        "allow": cmd([PY, "-c", ARGV_JSON, "{{ a }}"], options={"allow_dash": ["a"]}),
        "eq": cmd([PY, "-c", ARGV_JSON, "--file={{ a }}", "-o{{ a }}"]),
        "num": cmd([PY, "-c", ARGV_JSON, "-n", "{{ n }}", "{{ xs }}"],
                   params={"n": {"type": "integer"},
                           "xs": {"type": "array", "items": {"type": "number"}}},
                   required=("n", "xs")),
        "group": cmd([PY, "-c", ARGV_JSON, {"if": "a", "argv": ["--", "{{ a }}"]}],
                     params={"a": {"type": "string"}}),
    })
    assert json.loads((await run(cfg, "dd", {"a": "-x", "b": "--y"})).text_content) == \
        ["--", "-x", "--y"]
    assert json.loads((await run(cfg, "allow", {"a": "-x"})).text_content) == ["-x"]
    assert json.loads((await run(cfg, "eq", {"a": "-x"})).text_content) == \
        ["--file=-x", "-o-x"]
    assert json.loads((await run(cfg, "num", {"n": -5, "xs": [-1.5, 2]})).text_content) == \
        ["-n", "-5", "-1.5", "2"]
    assert json.loads((await run(cfg, "group", {"a": "-x"})).text_content) == ["--", "-x"]


def test_allow_dash_must_name_a_used_param(config: Config) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(["echo", "{{ a }}"], options={"allow_dash": ["b"]})}))
    (problem,) = info.value.problems
    assert problem.key_path.endswith("command.allow_dash[0]")
    assert "allow_dash names 'b'" in problem.message


async def test_a_nul_in_a_value_is_an_error_result(config: Config) -> None:
    cfg = config({"t": cmd(["echo", "--", "{{ a }}"]),
                  "env": cmd(["env"], options={"env": {"X": "{{ a }}"}})})
    result = await run(cfg, "t", {"a": "x\0y"})
    assert result.is_error and "NUL character" in result.text_content
    env = await run(cfg, "env", {"a": "x\0y"})
    assert env.is_error and "argument 'a' contains a NUL character" in env.text_content


async def test_option_injection_into_real_programs_is_refused(config: Config,
                                                              tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    subprocess.run(["git", "-C", str(tmp_path / "r"), "-c", "user.name=t", "-c",
                    "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    (tmp_path / "t.tar").write_bytes(b"")
    (tmp_path / "keep").write_text("x")
    marker = tmp_path / "pwned"
    cfg = config({
        "log": cmd(["git", "log", "{{ rev }}"], options={"cwd": str(tmp_path / "r")}),
        "tar": cmd(["tar", "-tf", "t.tar", "{{ member }}"], options={"cwd": str(tmp_path)}),
        "find": cmd(["find", ".", "-name", "{{ name }}", "{{ more }}"],
                    options={"cwd": str(tmp_path)}),
        "grep": cmd(["grep", "-r", "{{ pattern }}", "."], options={"cwd": str(tmp_path),
                                                                    "ok_codes": [0, 1, 2]}),
    })
    attacks = [("log", {"rev": f"--output={marker}"}),
               ("tar", {"member": f"--use-compress-program=touch {marker}"}),
               ("find", {"name": "keep", "more": "-delete"}),
               ("grep", {"pattern": f"--file={marker}"})]
    for tool, args in attacks:
        result = await run(cfg, tool, args)
        assert result.is_error and "starts with '-'" in result.text_content, (tool, result)
    assert not marker.exists() and (tmp_path / "keep").exists()


@pytest.mark.parametrize("argv", [
    ["sh", "-c", "echo {{ v }}"],
    ["bash", "-ec", "echo {{ v }}"],
    ["/bin/sh", "-c", "x{{ v }}"],
    ["env", "FOO=1", "sh", "-c", "{{ v }}"],
    ["/usr/bin/env", "-i", "bash", "-c", "{{ v }}"],
    ["python3", "-c", "print({{ v }})"],
    ["python3.11", "-I", "-c", "{{ v }}"],
    ["python", "-m", "{{ v }}"],
    ["perl", "-ne", "print if /{{ v }}/"],
    ["perl", "-E", "{{ v }}"],
    ["ruby", "-e", "{{ v }}"],
    ["node", "-e", "{{ v }}"],
    ["node", "--print", "{{ v }}"],
    ["php", "-r", "{{ v }}"],
    ["awk", "{ print {{ v }} }"],
    ["gawk", "-F", ":", "{{ v }}", "file"],
    ["awk", "-v", "x=1", "--", "{{ v }}"],
    ["sed", "s/a/{{ v }}/"],
    ["sed", "-n", "-e", "{{ v }}", "f"],
    ["sed", "--expression={{ v }}"],
    ["osascript", "-e", "{{ v }}"],
    ["cmd", "/c", "echo", "{{ v }}"],
    ["pwsh", "-Command", "{{ v }}"],
    ["xargs", "-n", "1", "sh", "-c", "{{ v }}"],
    ["find", ".", "-exec", "sh", "-c", "echo {{ v }}", ";"],
    ["timeout", "5", "bash", "-c", "{{ v }}"],
    ["nice", "-n", "5", "{{ v }}"],
    ["env", "{{ v }}"],
    ["bash", "{{ v }}"],
    ["ssh", "-p", "22", "host", "ls {{ v }}"],
    ["julia", "-e", "{{ v }}"], ["raku", "-e", "{{ v }}"], ["elixir", "-e", "{{ v }}"],
    ["guile", "-c", "{{ v }}"], ["racket", "-e", "{{ v }}"], ["sbcl", "--eval", "{{ v }}"],
    ["gnuplot", "-e", "{{ v }}"], ["R", "-e", "{{ v }}"], ["octave", "--eval", "{{ v }}"],
    ["expect", "-c", "{{ v }}"], ["dc", "-e", "{{ v }}"], ["erl", "-noshell", "-eval", "{{ v }}"],
    ["groovy", "-e", "{{ v }}"], ["clisp", "-x", "{{ v }}"],
    ["unshare", "-r", "{{ v }}"], ["setpriv", "--reuid", "1000", "{{ v }}"],
    ["prlimit", "--nofile=10", "{{ v }}"], ["firejail", "--quiet", "{{ v }}"],
    ["systemd-run", "--user", "-p", "X=1", "{{ v }}"], ["xvfb-run", "-a", "{{ v }}"],
    ["fakeroot", "{{ v }}"], ["nsenter", "-t", "1", "-m", "{{ v }}"], ["npx", "{{ v }}"],
    ["uvx", "--from", "x", "{{ v }}"], ["setarch", "x86_64", "{{ v }}"],
    ["faketime", "2020-01-01", "{{ v }}"], ["valgrind", "--leak-check=yes", "{{ v }}"],
    ["npx", "-c", "{{ v }}"], ["unshare", "-r", "sh", "-c", "{{ v }}"],
    ["sh", "-c", {"each": "vs", "argv": ["{{ item }}"]}],
])
def test_placeholders_inside_interpreter_code_are_load_errors(config: Config,
                                                              argv: list[Any]) -> None:
    params = {"vs": {"type": "array", "items": {"type": "string"}}} \
        if isinstance(argv[-1], dict) else None
    spec = cmd(argv, options={"allow_dash": []}, **({"params": params} if params else {}))
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": spec}))
    (problem,) = info.value.problems
    assert problem.key_path.startswith("servers.demo.tools.t.command.argv[")
    assert any(w in problem.message for w in ("code", "program", "script")), problem
    unsafe = cmd(argv, options={"unsafe_code_placeholders": True},
                 **({"params": params} if params else {}))
    compile_tools(config({"t": unsafe}))  # the loud opt-out


@pytest.mark.parametrize("argv", [
    ["sh", "-c", 'echo "$1"', "sh", "{{ v }}"],
    ["python3", "-c", "import sys; print(sys.argv[1])", "--", "{{ v }}"],
    ["awk", "-v", "x={{ v }}", "{ print x }"],
    ["sed", "-e", "s/a/b/", "--", "{{ v }}"],
    ["perl", "-e", "print @ARGV", "{{ v }}"],
    ["bash", "script.sh", "{{ v }}"],
    ["find", ".", "-name", "{{ v }}", "-exec", "cat", "{}", ";"],
    ["grep", "-e", "{{ v }}"],
])
def test_values_as_separate_arguments_load(config: Config, argv: list[Any]) -> None:
    compile_tools(config({"t": cmd(argv)}))


async def test_safe_shell_form_runs_values_as_data(config: Config, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    cfg = config({"t": cmd(["sh", "-c", 'printf "%s" "$1"', "sh", "{{ v }}"])})
    result = await run(cfg, "t", {"v": f"$(touch {marker}); `touch {marker}`"})
    assert result.text_content == f"$(touch {marker}); `touch {marker}`"
    assert not marker.exists()


def test_validate_prints_one_located_line(tmp_path: Path) -> None:
    config = tmp_path / "t.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n"
                      "        command: [sh, -c, 'echo {{ v }}']\n"
                      "      u:\n        command: ['${NO_SUCH_BIN_XYZ:-}', '{{ v }}']\n")
    proc = subprocess.run([sys.executable, "-m", "toolhost", "validate", "--no-layers",
                           str(config)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 2, proc.stderr
    assert lines[0].startswith(f"{config}:6:")
    assert "servers.s.tools.t.command.argv[2]: a placeholder inside code that sh runs" \
        in lines[0]
    assert """[sh, -c, 'echo "$1"', sh, "{{ v }}"]""" in lines[0]
    assert "servers.s.tools.u.command.argv[0]: the program (argv[0]) is empty" in lines[1]
    assert "Traceback" not in proc.stderr


def test_validate_notes_option_positions_without_failing(tmp_path: Path) -> None:
    config = tmp_path / "t.yaml"
    config.write_text(
        "toolhost: 1\nservers:\n  s:\n    tools:\n"
        "      log:\n        command: [git, log, '{{ rev }}', --, '{{ path }}']\n"
        "        description: Show the commits of a path.\n"
        "      grep:\n        description: Search for patterns.\n        command:\n"
        "          argv: [grep, {each: pats, argv: [-e, '{{ item }}']}, '{{ x }}']\n"
        "          allow_dash: [x]\n"
        "        params:\n          pats: {type: array, items: {type: string}}\n"
        "          x: string\n"
        "permissions:\n  allow: [mcp__s]\n")  # no unanswered-ask note in the way
    proc = subprocess.run([sys.executable, "-m", "toolhost", "validate", "--no-layers",
                           str(config)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"{config}: ok (1 server, 2 tools)\n"
    notes = proc.stderr.strip().splitlines()
    assert len(notes) == 2, proc.stderr
    assert notes[0].startswith(f"{config}:6:")
    assert "servers.s.tools.log.command.argv[2]: note: '{{ rev }}' starts an argument" \
        in notes[0]
    assert "allow_dash: [rev]" in notes[0]  # argv[4] comes after '--': no note
    assert "servers.s.tools.grep.command.argv[1].argv[1]: note:" in notes[1]
    assert "allow_dash: [pats]" in notes[1]  # x is allowed: no note
    quiet = subprocess.run([sys.executable, "-m", "toolhost", "validate", "-q", "--no-layers",
                            str(config)], capture_output=True, text=True, timeout=60)
    assert quiet.returncode == 0 and quiet.stdout == quiet.stderr == ""


@pytest.mark.parametrize(("spec", "key", "words"), [
    (cmd(["sh"], options={"stdin": "echo {{ v }}"}), ".stdin", "reads its program from stdin"),
    (cmd(["python3", "-u"], options={"stdin": "{{ v }}"}), ".stdin", "from stdin"),
    (cmd(["git", "fetch"], options={"env": {"GIT_SSH_COMMAND": "ssh {{ v }}"}}),
     ".env.GIT_SSH_COMMAND", "placeholder in env"),
    (cmd(["make"], options={"env": {"LD_PRELOAD": "{{ v }}"}}), ".env.LD_PRELOAD", "library"),
    (cmd(["ls", {"if": "out", "argv": ["-o"]}]), ".argv[1].if", "not a declared param"),
])
def test_other_ways_a_value_could_choose_code(config: Config, spec: dict[str, Any], key: str,
                                              words: str) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": spec}))
    (problem,) = info.value.problems
    assert problem.key_path == "servers.demo.tools.t.command" + key
    assert words in problem.message


def test_data_on_stdin_and_in_plain_env_loads(config: Config) -> None:
    compile_tools(config({
        "cat": cmd(["cat"], options={"stdin": "{{ v }}"}),
        "py": cmd(["python3", "script.py"], options={"stdin": "{{ v }}"}),
        "sh": cmd(["sh", "-c", 'read x; echo "$x"'], options={"stdin": "{{ v }}"}),
        "env": cmd(["env"], options={"env": {"GREETING": "{{ v }}"}}),
    }))


async def test_huge_and_odd_values_are_results_not_crashes(config: Config) -> None:
    cfg = config({"t": cmd(["echo", "--", "{{ a }}"]),
                  "list": cmd(["echo", "--", "{{ xs }}"],
                              params={"xs": {"type": "array", "items": {}}},
                              required=("xs",))})
    huge = await run(cfg, "t", {"a": "x" * 300_000})  # past Linux's 128 KiB per argument
    assert huge.is_error and "too long for the system to start it" in huge.text_content
    assert len(huge.text_content) < 1000
    nested: Any = "x"
    for _ in range(50):
        nested = [nested]
    deep = await run(cfg, "list", {"xs": [nested, {"k": [1, None]}, None, True]})
    assert not deep.is_error
    assert deep.text_content == "-- " + "[" * 50 + '"x"' + "]" * 50 + ' {"k":[1,null]}  true\n'


async def test_a_value_after_bare_dashes_would_name_the_option(config: Config) -> None:
    cfg = config({"t": cmd([PY, "-c", ARGV_JSON, "--{{ opt }}", "-{{ n }}"],
                           params={"opt": {"type": "string"}, "n": {"type": "integer"}},
                           required=("opt", "n")),
                  "ok": cmd([PY, "-c", ARGV_JSON, "--{{ opt }}"],
                            options={"allow_dash": ["opt"]})})
    refused = await run(cfg, "t", {"opt": "output=/tmp/x", "n": 5})
    assert refused.is_error and "follows a bare '--'" in refused.text_content
    assert "'opt'" in refused.text_content
    assert json.loads((await run(cfg, "ok", {"opt": "verbose"})).text_content) == ["--verbose"]
    numbers = config({"h": cmd([PY, "-c", ARGV_JSON, "-{{ n }}"],
                               params={"n": {"type": "integer"}}, required=("n",))})
    assert json.loads((await run(numbers, "h", {"n": 20})).text_content) == ["-20"]
