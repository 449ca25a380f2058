"""``isolation: process``: a tool that closes its worker's descriptors (``os.closerange``)
leaves a worker that can never answer and never exits. Its call waited for the tool's
timeout; now the closed pipe is seen, the worker killed, and the call answered (backends33)."""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import CompiledTools, compile_tools
from toolhost.config.loader import load_config

pytestmark = pytest.mark.anyio

TOOLS = '''
import os

def close_all() -> int:
    with open(os.path.join(os.path.dirname(__file__), "pid"), "w") as f:
        f.write(str(os.getpid()))
    os.closerange(0, 4096)
    return 1

def close_out() -> int:
    os.close(int(os.environ.get("TOOLHOST_TEST_FD", "3")))
    os.closerange(3, 4096)
    return 2

def pid() -> int:
    return os.getpid()
'''


@pytest.fixture
async def compiled(tmp_path: Path) -> AsyncIterator[CompiledTools]:
    module = f"th_closed_{os.getpid()}_{abs(hash(tmp_path)) % 10**6}"
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(TOOLS))
    lines = ["toolhost: 1", "servers:", "  w:", "    timeout: 120s", "    tools:"]
    lines += [f"      {n}: {{python: {{function: '{module}:{n}', isolation: process, "
              "workers: 1}}" for n in ("close_all", "close_out", "pid")]
    (tmp_path / "w.yaml").write_text("\n".join(lines) + "\n")
    tools = compile_tools(load_config(str(tmp_path / "w.yaml")))
    yield tools
    await tools.aclose()
    sys.modules.pop(module, None)


@pytest.mark.parametrize("name", ["close_all", "close_out"])
async def test_a_worker_that_closed_its_pipes_is_killed_not_waited_for(
        compiled: CompiledTools, tmp_path: Path, name: str) -> None:
    tool = compiled.tool("w", name)
    result = await tool.call({}, CallContext(tool=tool.wire_name))
    assert result.is_error
    assert "timed out" not in result.text_content, result.text_content
    assert "crashed" in result.text_content, result.text_content
    if name == "close_all":
        worker = int((tmp_path / "pid").read_text())
        with pytest.raises(ProcessLookupError):
            os.kill(worker, 0)
    again = compiled.tool("w", "pid")
    result = await again.call({}, CallContext(tool=again.wire_name))
    assert not result.is_error and result.text_content.isdigit(), result.text_content
