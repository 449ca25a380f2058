"""``max_memory`` for ``isolation: process`` (backends33): a worker's allocations past it
fail with MemoryError, one line, instead of growing the worker (10 GB) until its timeout or
the OOM killer; the worker lives on for the next call. Only with isolation: process."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.loader import load_config
from toolhost.errors import CompileError, ConfigError

pytestmark = pytest.mark.anyio

TOOLS = '''
import os

def grab(mib: int) -> int:
    return len(bytearray(mib << 20))

def pid() -> int:
    return os.getpid()
'''


def _write(tmp_path: Path, tools: dict[str, str]) -> tuple[str, str]:
    module = f"th_mem_{os.getpid()}_{abs(hash(tmp_path)) % 10**6}"
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(TOOLS))
    lines = ["toolhost: 1", "servers:", "  w:", "    timeout: 60s", "    tools:"]
    lines += [f"      {name}: {{python: {{function: '{module}:{name.rstrip('_')}', {extra}}}}}"
              for name, extra in tools.items()]
    (tmp_path / "w.yaml").write_text("\n".join(lines) + "\n")
    return str(tmp_path / "w.yaml"), module


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_DATA is enforced on Linux")
async def test_an_allocation_past_max_memory_fails_in_one_line(tmp_path: Path) -> None:
    path, module = _write(tmp_path, {
        "grab": "isolation: process, workers: 1, max_memory: 1GiB",
        "pid": "isolation: process, max_memory: 1073741824"})
    tools = compile_tools(load_config(path))
    try:
        grab = tools.tool("w", "grab")
        result = await grab.call({"mib": 10 * 1024}, CallContext(tool=grab.wire_name))
        assert result.is_error and result.text_content == "Tool 'grab' failed: MemoryError"
        result = await grab.call({"mib": 64}, CallContext(tool=grab.wire_name))
        assert not result.is_error and result.text_content == str(64 << 20)
        pid = tools.tool("w", "pid")
        assert not (await pid.call({}, CallContext(tool=pid.wire_name))).is_error
    finally:
        await tools.aclose()
        sys.modules.pop(module, None)


@pytest.mark.parametrize(("extra", "message"), [
    ("max_memory: 1GiB", "needs isolation: process"),
    ("isolation: in-process, max_memory: 1GiB", "needs isolation: process"),
    ("isolation: process, max_memory: 1MiB", "at least 512MiB"),
    ("isolation: process, max_memory: lots", "not a size"),
    ("isolation: process, max_memory: 99999999999999999999999", "at most"),
])
def test_max_memory_is_checked_at_load(tmp_path: Path, extra: str, message: str) -> None:
    path, module = _write(tmp_path, {"pid": extra})
    try:
        with pytest.raises((CompileError, ConfigError)) as info:
            compile_tools(load_config(path))
        (problem,) = info.value.problems
        assert message in problem.message, problem
        assert problem.key_path.endswith("python.max_memory"), problem.key_path
    finally:
        sys.modules.pop(module, None)
