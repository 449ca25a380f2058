"""Operands some programs read as more than a name whatever '--' came before them
(backends33): find's expression (`[find, --, "{{ dir }}", -name, x]` with `-delete` deleted
every file below the cwd; `!` inverts the config's expression), the `@FILE` response files
of GCC, binutils and LLVM (`[nm, --, "{{ f }}"]` with `@/etc/passwd` printed the file in its
errors), and dd's `KEY=VALUE` operands a value writes (`of=/home/me/.bashrc`)."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from toolhost.backends.argv import ArgvRefused, compile_argv

from .test_command_backend import Config, cmd, run

pytestmark = pytest.mark.anyio

FIND_ARGVS = [
    ["find", "--", "{{ v }}", "-name", "*.txt"],
    ["find", "-L", "--", "{{ v }}"],
    ["/usr/bin/find", "--", "{{ v }}", "-type", "f"],
    ["timeout", "5", "find", "--", "{{ v }}"],
    ["nice", "-n", "5", "gfind", "--", "{{ v }}"],
    ["bfs", "--", "{{ v }}"],
]
EXPRESSIONS = ["-delete", "-exec", "-fprint", "--", "-newer", "!", "(", ")", ","]


@pytest.mark.parametrize("argv", FIND_ARGVS)
@pytest.mark.parametrize("value", EXPRESSIONS)
def test_find_reads_its_expression_past_dashdash(argv: list[str], value: str) -> None:
    with pytest.raises(ArgvRefused, match="reads as a part of its expression"):
        compile_argv(argv).render({"v": value})


@pytest.mark.parametrize("value", ["!", "(", ")", ","])
def test_find_operators_without_dashdash(value: str) -> None:
    plan = compile_argv(["find", "{{ v }}", "-name", "*.tmp", "-delete"])
    with pytest.raises(ArgvRefused, match="an operator"):
        plan.render({"v": value})


@pytest.mark.parametrize("value", ["src", "./-delete", "a!", "(x)", "-", "@x", "+x"])
def test_find_paths_still_run(value: str) -> None:
    for argv in FIND_ARGVS:
        assert compile_argv(argv).render({"v": value})[-1 if argv[-1] == "{{ v }}" else
                                                        argv.index("{{ v }}")] == value


def test_allow_dash_lets_the_config_choose() -> None:
    plan = compile_argv(["find", ".", "-name", "{{ v }}"], allow_dash=["v"])
    assert plan.render({"v": "!"})[-1] == "!"
    plan = compile_argv(["nm", "--", "{{ v }}"], allow_dash=["v"])
    assert plan.render({"v": "@opts"})[-1] == "@opts"


def test_a_list_item_is_checked_too() -> None:
    plan = compile_argv(["find", "--", "{{ v }}"])
    assert plan.render({"v": ["a", "b"]}) == ["find", "--", "a", "b"]
    with pytest.raises(ArgvRefused):
        plan.render({"v": ["a", "-delete"]})


AT_PROGRAMS = ["nm", "objdump", "readelf", "size", "strings", "ar", "ld", "as", "objcopy",
               "strip", "addr2line", "c++filt", "gcc", "g++", "cc", "x86_64-linux-gnu-gcc-12",
               "aarch64-linux-gnu-objdump", "gcc-13", "clang", "clang++", "llvm-nm",
               "llvm-objdump", "ld.lld", "javac"]
# R36-4: more programs that expand '@FILE' wherever it is: every LLVM tool (cl's response
# files: clang-format, clang-tidy, opt, llc, FileCheck...), rustc and rustdoc ('@path'), the
# JDK's tools (the launcher's @argfiles), Kotlin, Scala, Swift, Emscripten, D and .NET
# compilers; versioned names too (clang-format-14, llc-14)
AT_PROGRAMS_MORE = ["clang-format", "clang-tidy", "clang-format-14", "clangd", "clang-check",
                    "opt", "llc", "lli", "llc-14", "FileCheck", "FileCheck-14", "dsymutil",
                    "bugpoint", "mlir-opt", "flang-new", "ldc2", "ldmd2", "rustc", "rustdoc",
                    "clippy-driver", "javadoc", "jar", "jlink", "jmod", "jdeps", "jpackage",
                    "kotlinc", "kotlinc-jvm", "scalac", "swiftc", "swift-frontend", "emcc",
                    "em++", "dmd", "csc", "mcs", "vbc", "fsc", "msbuild",
                    "/usr/lib/llvm-14/bin/clang-tidy"]


@pytest.mark.parametrize("program", AT_PROGRAMS + AT_PROGRAMS_MORE)
def test_response_files_past_dashdash(program: str) -> None:
    with pytest.raises(ArgvRefused, match="a file of options"):
        compile_argv([program, "--", "{{ v }}"]).render({"v": "@/etc/passwd"})
    with pytest.raises(ArgvRefused, match="a file of options"):
        compile_argv(["env", "LC_ALL=C", program, "-x", "--", "{{ v }}"]).render({"v": "@f"})


@pytest.mark.parametrize("program", ["ls", "cat", "grep", "npm", "git", "wc", "sort",
                                     "options", "jq", "rust-analyzer", "java-config"])
def test_other_programs_take_at_past_dashdash(program: str) -> None:
    assert compile_argv([program, "--", "{{ v }}"]).render({"v": "@types/node"})[-1] \
        == "@types/node"


def test_a_link_is_known_by_its_target(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    for name in ("find", "nm"):
        (tmp_path / "bin" / name).write_text("#!/bin/sh\n")
        (tmp_path / f"my{name}").symlink_to(tmp_path / "bin" / name)
    plan = dataclasses.replace(compile_argv(["./myfind", "--", "{{ v }}"]), cwd=str(tmp_path))
    with pytest.raises(ArgvRefused, match="'find' reads"):
        plan.render({"v": "-delete"})
    plan = dataclasses.replace(compile_argv(["./mynm", "--", "{{ v }}"]), cwd=str(tmp_path))
    with pytest.raises(ArgvRefused, match="'nm' reads"):
        plan.render({"v": "@x"})


DD_ARGVS = [
    ["dd", "if=/dev/null", "{{ v }}"],
    ["dd", "--", "{{ v }}"],
    ["timeout", "5", "dd", "{{ v }}", "status=none"],
    ["dcfldd", "{{ v }}"],
]


@pytest.mark.parametrize("argv", DD_ARGVS)
@pytest.mark.parametrize("value", ["of=/home/me/.bashrc", "if=/etc/shadow", "count=1",
                                   "conv=notrunc", "=x"])
def test_dd_operand_keys_are_the_configs(argv: list[str], value: str) -> None:
    with pytest.raises(ArgvRefused, match="a dd operand of its own choosing"):
        compile_argv(argv).render({"v": value})


AWK_ARGVS = [
    ["awk", "{print x}", "{{ v }}"],
    ["gawk", "--", "{print x}", "{{ v }}"],
    ["mawk", "-f", "prog.awk", "{{ v }}", "data.txt"],
    ["timeout", "5", "awk", "-v", "{{ v }}", "{print}", "data.txt"],
]


@pytest.mark.parametrize("argv", AWK_ARGVS)
@pytest.mark.parametrize("value", ["x=1", "OFS=;", "cmd=id", "_a9=b"])
def test_awk_assignments_are_the_configs(argv: list[str], value: str) -> None:
    with pytest.raises(ArgvRefused, match="an awk operand of its own choosing"):
        compile_argv(argv).render({"v": value})
    with pytest.raises(ArgvRefused, match="an awk operand"):
        compile_argv(["awk", "-v{{ v }}", "{print}"]).render({"v": value})


@pytest.mark.parametrize(("argv", "value"), [
    (["awk", "{print}", "{{ v }}"], "data.csv"),
    (["awk", "{print}", "./{{ v }}"], "x=1"),
    (["awk", "{print}", "{{ v }}"], "1x=2"),
    (["awk", "-F", "{{ v }}", "{print}", "f"], "x=1"),
    (["awk", "-v", "n={{ v }}", "{print}", "f"], "a=b"),
])
def test_awk_files_and_the_configs_variables_run(argv: list[str], value: str) -> None:
    assert value in "".join(compile_argv(argv).render({"v": value}))


@pytest.mark.skipif(shutil.which("awk") is None, reason="needs awk")
async def test_real_awk_sets_no_variable(config: Config, tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_text("line\n")
    tool = cmd(["awk", "{print x}", "--", "{{ f }}", "in.txt"], options={"cwd": str(tmp_path)})
    result = await run(config({"t": tool}), "t", {"f": "x=INJECTED"})
    assert result.is_error and "INJECTED" not in result.text_content.split("'")[0]
    assert "an awk operand" in result.text_content, result.text_content


def test_dd_values_after_the_configs_key_run() -> None:
    plan = compile_argv(["dd", "if=/dev/null", "of={{ out }}", "bs={{ bs }}"])
    assert plan.render({"out": "a=b.img", "bs": "4k"})[2:] == ["of=a=b.img", "bs=4k"]
    assert compile_argv(["echo", "{{ v }}"]).render({"v": "of=x"})[-1] == "of=x"


@pytest.mark.skipif(shutil.which("find") is None, reason="needs find")
async def test_real_find_deletes_nothing(config: Config, tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("x")
    (tmp_path / "keep.tmp").write_text("x")
    tools = {"t": cmd(["find", "--", "{{ d }}", "-name", "*.txt"],
                      options={"cwd": str(tmp_path)}),
             "del": cmd(["find", "{{ d }}", "-name", "*.tmp", "-delete"],
                        options={"cwd": str(tmp_path)})}
    for tool, value in (("t", "-delete"), ("del", "!")):
        result = await run(config(tools), tool, {"d": value})
        assert result.is_error, result.text_content
        assert "reads as a part of its expression" in result.text_content
    assert sorted(os.listdir(tmp_path)) == ["keep.tmp", "keep.txt"]
    result = await run(config(tools), "t", {"d": "."})
    assert not result.is_error and "keep.txt" in result.text_content, result.text_content


@pytest.mark.skipif(shutil.which("nm") is None, reason="needs nm")
async def test_real_nm_shows_no_file(config: Config, tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("hunter2-line\n")
    tool: dict[str, Any] = cmd(["nm", "--", "{{ f }}"], options={"cwd": str(tmp_path)})
    result = await run(config({"t": tool}), "t", {"f": f"@{tmp_path / 'secret'}"})
    assert result.is_error
    assert "hunter2" not in result.text_content and "a file of options" in result.text_content
