"""``max_memory`` for command tools (backends33): the program and each process it starts
get RLIMIT_DATA, so a runaway allocation fails at once (MemoryError, ENOMEM) instead of
growing until the timeout or the OOM killer. Opt-in; Linux (the run's subreaper sets it)."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from toolhost.backends import process
from toolhost.backends.reaper import enable_subreaper
from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import Config, cmd, run

pytestmark = pytest.mark.anyio
PY = sys.executable
GRAB = "import sys; print(len(bytearray(int(sys.argv[1]) << 20)))"
NESTED = ("import subprocess, sys; r = subprocess.run([sys.executable, '-c', 'bytearray(4 << "
          "30)'], capture_output=True, text=True); print(r.stderr.strip().splitlines()[-1])")


@pytest.mark.skipif(not (sys.platform.startswith("linux") and enable_subreaper()
                         and process._SUPERVISOR is not None), reason="the run's subreaper")
async def test_an_allocation_past_max_memory_fails(config: Config) -> None:
    tools = {"grab": cmd([PY, "-c", GRAB, "{{ mib }}"], options={"max_memory": "1GiB"}),
             "nested": cmd([PY, "-c", NESTED], options={"max_memory": 1 << 30})}
    cfg = config(tools)
    result = await run(cfg, "grab", {"mib": "10240"})
    assert result.is_error and "MemoryError" in result.text_content, result.text_content
    result = await run(cfg, "grab", {"mib": "64"})
    assert not result.is_error and result.text_content.strip() == str(64 << 20)
    result = await run(cfg, "nested", {})
    assert not result.is_error and result.text_content.strip() == "MemoryError", \
        result.text_content


@pytest.mark.parametrize(("value", "message"), [
    ("1KiB", "at least 16MiB"), (1024, "at least 16MiB"), ("lots", "not a size"),
    (10**23, "at most"), ("2TiB", "at most"), (True, "expected")])
def test_max_memory_is_checked_at_load(config: Config, value: Any, message: str) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(["echo"], options={"max_memory": value})}))
    (problem,) = info.value.problems
    assert message in problem.message and problem.key_path.endswith("max_memory"), problem
