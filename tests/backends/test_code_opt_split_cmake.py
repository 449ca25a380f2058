"""Options whose argument runs code, missing from the table: `split --filter=CMD` pipes each
piece to `$SHELL -c CMD` (`[split, -b, 1k, "--filter={{ v }}", a]` with `touch x; cat`
made x, real coreutils), `cmake --build DIR` runs the build program DIR's cache names (a
fake make in the cache ran, real cmake) and `cmake --install DIR` runs DIR's
cmake_install.cmake. Load errors, as `make -C` and `sort --compress-program` are; literal
arguments and values elsewhere still load."""

from __future__ import annotations

import pytest

from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import Config, cmd


@pytest.mark.parametrize("argv", [
    ["split", "-b", "1k", "--filter={{ v }}", "a"],
    ["split", "-b", "1k", "--filter", "{{ v }}", "a"],
    ["split", "--fil={{ v }}", "a"],  # getopt_long takes an unambiguous start
    ["gsplit", "--filter={{ v }}", "a"],
    ["timeout", "60", "split", "-n", "2", "--filter={{ v }}", "a"],
    ["/usr/bin/split", "--filter=gzip > {{ v }}", "a"],
    ["cmake", "--build", "{{ v }}"],
    ["cmake", "--build={{ v }}"],
    ["cmake", "--build", "build/{{ v }}"],
    ["cmake", "--install", "{{ v }}"],
    ["nice", "cmake", "--install", "{{ v }}", "--prefix", "/tmp/x"],
])
def test_a_value_there_is_a_load_error(config: Config, argv: list[str]) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(argv)}))
    (problem,) = info.value.problems
    assert "the model would choose the program or code that runs" in problem.message, problem


@pytest.mark.parametrize("argv", [
    ["split", "-b", "{{ v }}", "a"],
    ["split", "-b", "1k", "--filter=gzip > $FILE.gz", "--", "{{ v }}"],
    ["split", "-l", "10", "--", "{{ v }}", "part-"],
    ["cmake", "--build", "build", "--target", "{{ v }}"],
    ["cmake", "--build", "build", "-j", "{{ v }}"],
    ["cmake", "--install", "build", "--component", "{{ v }}"],
])
def test_values_elsewhere_still_load(config: Config, argv: list[str]) -> None:
    compile_tools(config({"t": cmd(argv)}))
